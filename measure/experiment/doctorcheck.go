package experiment

import (
	"slices"
	"strings"

	judgedoctor "github.com/etcdlab/etcdlab/judge/doctor"
)

// expectable are the doctor's causes an incident may expect: every one
// but the clock's, which the lab cannot skew.
func expectable() []judgedoctor.Cause {
	return slices.DeleteFunc(judgedoctor.Causes(), func(c judgedoctor.Cause) bool { return c == judgedoctor.CauseClock })
}

// checkDoctor checks doctor workload i: its setups are local, its
// expectation names a cause and a member of them, its fill is one kind,
// its load lines parse and its timeline fits its setups.
func (s *Spec) checkDoctor(i int) error {
	w := &s.Workloads[i]
	d := w.Doctor
	at := func(more ...any) []any { return append([]any{"workloads", i, "doctor"}, more...) }
	setups := s.setupsOf(w)
	for _, st := range setups {
		if st.Live() {
			return s.errorf(at(), "an incident is injected into a local setup; setup %q is a live cluster, which etcdlab does not break", st.Name)
		}
	}
	if want := expectable(); d.Expect.Cause != "" && !slices.Contains(want, d.Expect.Cause) {
		names := make([]string, len(want))
		for k, c := range want {
			names[k] = string(c)
		}
		return s.errorf(at("expect", "cause"), "%q: want one of %s, or leave it out for a healthy cluster", d.Expect.Cause, strings.Join(names, ", "))
	}
	for _, m := range []struct{ field, v string }{{"expect.member", d.Expect.Member}, {"leader", d.Leader}} {
		if m.v == "" || (m.v == "leader" && m.field == "expect.member") {
			continue
		}
		for _, st := range setups {
			o, _ := s.clusterOptions(&st, setupEnv{})
			if !isMember(m.v, o.Members) {
				return s.errorf(at(strings.Split(m.field, ".")[0]), "%q is not a member of setup %q (m1 to m%d)", m.v, st.Name, o.Members)
			}
		}
	}
	if f := d.Fill; f != nil {
		kinds := 0
		for _, set := range []bool{f.Keys > 0, f.QuotaShare > 0, f.UntilNoSpace} {
			if set {
				kinds++
			}
		}
		if kinds != 1 || f.Keys < 0 || f.QuotaShare < 0 || f.QuotaShare >= 1 || f.ValueBytes < 0 || f.ValueBytes > maxFillValue {
			return s.errorf(at("fill"), "give exactly one of keys (a count), quota_share (0 to 1) or until_nospace, and value_bytes up to %d", maxFillValue)
		}
	}
	for j, l := range d.Load {
		words, err := splitLine(l)
		if err == nil {
			_, err = parseBench(words)
		}
		if err != nil {
			return s.errorf(at("load", j), "%v", err)
		}
	}
	if d.Settle < 0 || d.Window < 0 {
		return s.errorf(at(), "settle and window must not be negative")
	}
	return s.checkTimeline(at("faults"), d.Faults, setups)
}

// setupsOf are the setups workload w runs on.
func (s *Spec) setupsOf(w *Workload) []Setup {
	if len(w.Setups) == 0 {
		return s.Setups
	}
	var out []Setup
	for _, st := range s.Setups {
		if slices.Contains(w.Setups, st.Name) {
			out = append(out, st)
		}
	}
	return out
}

// setup is the setup called name, or nil.
func (s *Spec) setup(name string) *Setup {
	for i := range s.Setups {
		if s.Setups[i].Name == name {
			return &s.Setups[i]
		}
	}
	return nil
}
