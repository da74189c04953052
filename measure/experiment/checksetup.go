package experiment

import (
	"maps"
	"slices"
)

// checkSetup checks setup i: a live setup has only connection fields; a
// local one builds valid cluster options.
func (s *Spec) checkSetup(i int) error {
	st := &s.Setups[i]
	at := func(field string) []any { return []any{"setups", i, field} }
	for _, k := range slices.Sorted(maps.Keys(st.Params)) {
		_, swept := s.Sweep.Lookup(k)
		if !paramName.MatchString(k) || swept || k == "setup" || k == "workload" || k == "cell" || k == "id" {
			return s.errorf([]any{"setups", i, "params", k}, "%q: a param is lower case letters, digits and _, and not setup, workload or a swept parameter", k)
		}
	}
	if err := s.checkLoadCPUs(i); err != nil {
		return err
	}
	if st.Live() {
		for _, f := range []struct {
			name string
			set  bool
		}{{"members", st.Members != 0}, {"storage", st.Storage != ""}, {"topology", st.Topology != "" || st.TopologySpec != nil}, {"tls", st.TLS},
			{"etcd", !st.Etcd.zero()}, {"cpus", st.CPUs != 0 || len(st.MemberCPUs) > 0}, {"leader", st.Leader != ""}, {"reuse", st.Reuse}, {"port_base", st.PortBase != 0}} {
			if f.set {
				return s.errorf(at(f.name), "a live setup (endpoints) takes only connection fields (cacert, cert, key, user, password_file, metrics_urls) and member_cores")
			}
		}
		if st.MemberCores < 0 {
			return s.errorf(at("member_cores"), "%g: want the cores of each member's machine, or leave it out", st.MemberCores)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"cacert", st.CACert != ""}, {"cert", st.Cert != ""}, {"key", st.Key != ""}, {"user", st.User != ""},
		{"password_file", st.PasswordFile != ""}, {"metrics_urls", len(st.MetricsURLs) > 0}, {"insecure_skip_tls_verify", st.InsecureSkipVerify},
		{"member_cores", st.MemberCores != 0}} {
		if f.set {
			return s.errorf(at(f.name), "%s is for live setups (endpoints); a local setup's cluster is etcdlab's", f.name)
		}
	}
	_, err := s.clusterOptions(st, setupEnv{})
	if err != nil {
		var se *setupError
		if asSetupError(err, &se) {
			return s.errorf(at(se.field), "%s", se.msg)
		}
		return s.errorf([]any{"setups", i}, "%s", err.Error())
	}
	return nil
}
