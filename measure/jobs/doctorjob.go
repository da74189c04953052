package jobs

import (
	"fmt"
	"slices"
	"strings"
	"time"

	judgedoctor "github.com/etcdlab/etcdlab/judge/doctor"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
)

// Doctor is the incident job: a workload's doctor: injects an incident
// into a fresh local cluster and grades `etcdlab doctor`'s diagnosis of it
// (DoctorJob; doctor.go runs it).
type Doctor struct{}

// Name is the workload's key.
func (Doctor) Name() string { return "doctor" }

// Fields is a *DoctorJob.
func (Doctor) Fields() any { return (*DoctorJob)(nil) }

// Placeholders: an incident takes no sweep values.
func (Doctor) Placeholders(any) []string { return nil }

// expectable are the doctor's causes an incident may expect: every one
// but the clock's, which the lab cannot skew.
func expectable() []judgedoctor.Cause {
	return slices.DeleteFunc(judgedoctor.Causes(), func(c judgedoctor.Cause) bool { return c == judgedoctor.CauseClock })
}

// Check checks that the incident's setups are local, its expectation
// names a cause and a member of them, its fill is one kind, its load lines
// parse and its timeline fits its setups.
func (Doctor) Check(c job.Checker, fields any) error {
	d := fields.(*DoctorJob)
	var setups []job.Setup
	for _, st := range c.Setups() {
		if st.Runs {
			setups = append(setups, st)
		}
	}
	for _, st := range setups {
		if st.Live {
			return c.Errorf(nil, "an incident is injected into a local setup; setup %q is a live cluster, which etcdlab does not break", st.Name)
		}
	}
	if want := expectable(); d.Expect.Cause != "" && !slices.Contains(want, d.Expect.Cause) {
		names := make([]string, len(want))
		for k, c := range want {
			names[k] = string(c)
		}
		return c.Errorf([]any{"expect", "cause"}, "%q: want one of %s, or leave it out for a healthy cluster", d.Expect.Cause, strings.Join(names, ", "))
	}
	for _, m := range []struct{ field, v string }{{"expect.member", d.Expect.Member}, {"leader", d.Leader}} {
		if m.v == "" || (m.v == "leader" && m.field == "expect.member") {
			continue
		}
		for _, st := range setups {
			if !isMember(m.v, st.Members) {
				return c.Errorf([]any{strings.Split(m.field, ".")[0]}, "%q is not a member of setup %q (m1 to m%d)", m.v, st.Name, st.Members)
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
		if f.Rewrites < 0 || (f.Rewrites > 0 && f.Keys < fillBatch) {
			return c.Errorf([]any{"fill", "rewrites"}, "rewrites (%d) needs keys of at least %d, one transaction's batch", f.Rewrites, fillBatch)
		}
		if kinds != 1 || f.Keys < 0 || f.QuotaShare < 0 || f.QuotaShare >= 1 || f.ValueBytes < 0 || f.ValueBytes > maxFillValue {
			return c.Errorf([]any{"fill"}, "give exactly one of keys (a count), quota_share (0 to 1) or until_nospace, and value_bytes up to %d", maxFillValue)
		}
	}
	for j, l := range d.Load {
		words, err := splitLine(l)
		if err == nil {
			_, err = parseBench(words)
		}
		if err != nil {
			return c.Errorf([]any{"load", j}, "%v", err)
		}
	}
	if d.Settle < 0 || d.Window < 0 {
		return c.Errorf(nil, "settle and window must not be negative")
	}
	return c.CheckFaults([]any{"faults"}, d.Faults)
}

func isMember(name string, n int) bool {
	for i := 1; i <= n; i++ {
		if name == fmt.Sprintf("m%d", i) {
			return true
		}
	}
	return false
}

// Plan parses the background load lines.
func (Doctor) Plan(p job.Cell, fields any) (job.Work, error) {
	d := fields.(*DoctorJob)
	w := &DoctorWork{Job: d, steps: p.Steps(d.Faults)}
	for li, l := range d.Load {
		words, err := splitLine(l)
		if err != nil {
			return nil, p.Errorf([]any{"load", li}, "%v", err)
		}
		cl, err := parseBench(words)
		if err != nil {
			return nil, p.Errorf([]any{"load", li}, "%v", err)
		}
		w.Loads = append(w.Loads, cl)
	}
	return w, nil
}

// DoctorWork is an incident cell's work: the incident, and its background
// load lines parsed.
type DoctorWork struct {
	Job   *DoctorJob
	Loads []bench.CommandLine
	steps []string // the timeline's steps, "action target"
}

// Command says what the incident injects and expects.
func (w *DoctorWork) Command() string {
	d := w.Job
	var parts []string
	if d.Leader != "" {
		parts = append(parts, "leader "+d.Leader)
	}
	if f := d.Fill; f != nil {
		switch {
		case f.Keys > 0:
			parts = append(parts, fmt.Sprintf("fill %d keys", f.Keys))
			if f.Rewrites > 0 {
				parts = append(parts, fmt.Sprintf("rewritten %d times", f.Rewrites))
			}
		case f.QuotaShare > 0:
			parts = append(parts, fmt.Sprintf("fill to %.0f%% of the quota", 100*f.QuotaShare))
		default:
			parts = append(parts, "fill until NOSPACE")
		}
		if f.Delete {
			parts = append(parts, "delete")
		}
	}
	if len(d.Load) > 0 {
		parts = append(parts, fmt.Sprintf("%d background loads", len(d.Load)))
	}
	parts = append(parts, w.steps...)
	want := "no finding"
	if d.Expect.Cause != "" {
		want = string(d.Expect.Cause)
		if d.Expect.Member != "" {
			want += " on " + d.Expect.Member
		}
	}
	parts = append(parts, "expects "+want)
	return "doctor " + strings.Join(parts, ", ")
}

// Estimate is the incident's fill, settle and diagnosis.
func (w *DoctorWork) Estimate(job.Env) time.Duration { return w.Job.estimate() }
