package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdbuild"
	"github.com/etcdlab/etcdlab/lab/topology"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
)

// The estimate's model. It is an estimate, said to be one wherever it is
// shown (docs/experiments.md, "Estimated time"); its fixed costs are the
// rows of job.Costs(), each with the measurement it comes from.
const (
	// CellOverhead is a fresh cluster's start and teardown
	// (job.CostClusterStart); a setup with a slow disk, an emulated
	// network or members from an etcd binary adds its own costs
	// (setupOverhead).
	CellOverhead = 2200 * time.Millisecond
	// baseLatency is a put's latency on loopback without emulated delays
	// (docs/benchmarks.md); the jobs model their work from it.
	baseLatency = 2 * time.Millisecond
)

// estimate models how long cell c takes: the overhead of its cluster
// (none when reused: the setup's cluster is already up, or when the work
// starts its own: job.OwnClusters), and its work's
// (job.Work.Estimate) in the setup's Env. It reads nothing but the spec.
func (s *Spec) estimate(c *Cell, reused bool) time.Duration {
	env := job.Env{Latency: baseLatency}
	var overhead time.Duration
	if !c.Setup.Live() && !ownClusters(c.Work) {
		o, err := s.clusterOptions(c.Setup, setupEnv{})
		if err == nil {
			env = jobEnv(o, c.Setup.Leader != "", c.Setup.LoadCPUs)
			if !reused {
				overhead = setupOverhead(o)
			}
		} else if !reused {
			overhead = CellOverhead
		}
	}
	return overhead + c.Work.Estimate(env)
}

// jobEnv is the Env of a cluster started with o, its leader placed
// before every run or not, its load in a budget of loadCPUs cores (0:
// none).
func jobEnv(o cluster.Options, leader bool, loadCPUs float64) job.Env {
	env := job.Env{Latency: baseLatency + topology.PutLatency(o.Links, o.Members), Members: o.Members,
		MemberCPUs: o.CPUs, LoadCPUs: loadCPUs, Leader: leader || o.Leader != ""}
	for _, c := range o.MemberCPUs {
		if c > 0 && (env.MemberCPUs == 0 || c < env.MemberCPUs) {
			env.MemberCPUs = c
		}
	}
	if o.FsyncDelay != nil {
		env.Fsync, env.FsyncMean = o.FsyncDelay.Median(), o.FsyncDelay.Mean()
		env.Latency += 2 * env.Fsync
	}
	env.SlowDisk = o.FsyncDelay != nil || o.ReadDelay != nil || o.WriteDelay != nil || len(o.MemberFsyncDelay) > 0
	return env
}

// setupOverhead is a fresh cluster's start and teardown under o: the base
// (job.CostClusterStart), and what a slow disk, an emulated network and
// members from an etcd binary add.
func setupOverhead(o cluster.Options) time.Duration {
	d := job.CostClusterStart.D()
	if o.FsyncDelay != nil || o.ReadDelay != nil || o.WriteDelay != nil || len(o.MemberFsyncDelay) > 0 {
		d += job.CostSlowDisk.D()
	}
	if len(o.Links) > 0 {
		d += job.CostEmulatedNet.D()
	}
	if o.Etcd != "" || len(o.MemberEtcd) > 0 {
		d += job.CostExternalEtcd.D()
	}
	return d
}

// etcdVersions are the etcd versions (not paths) a cluster under o runs.
func etcdVersions(o cluster.Options) []string {
	var vs []string
	for _, v := range append([]string{o.Etcd}, mapValues(o.MemberEtcd)...) {
		if v != "" && !strings.Contains(v, "/") {
			vs = append(vs, v)
		}
	}
	return vs
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// etcdCached reports whether the build cache holds a build of version
// (3.5.35, or 3.5: any of its patches): then starting it costs no build.
func etcdCached(version string) bool {
	dir, err := etcdbuild.DefaultDir()
	if err != nil {
		return false
	}
	v := "v" + strings.TrimPrefix(version, "v")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() && (n == v || strings.HasPrefix(n, v+".")) {
			if _, err := os.Stat(filepath.Join(dir, n, "etcd")); err == nil {
				return true
			}
		}
	}
	return false
}

// buildEstimate is the time to build the etcd versions setup st runs
// that the build cache does not hold and no earlier setup's estimate
// counted (built, which it updates): job.CostEtcdBuild each. A version
// is its members' or one a fault of its timeline moves them to (an
// upgrade's: lab/cluster's About.Etcd faults), built before the first
// run. Builds happen at the setup's first cell.
func (s *Spec) buildEstimate(st *Setup, built map[string]bool) time.Duration {
	if st.Live() {
		return 0
	}
	o, err := s.clusterOptions(st, setupEnv{})
	if err != nil {
		return 0
	}
	var d time.Duration
	for _, v := range append(etcdVersions(o), s.timelineVersions(st)...) {
		if !built[v] && !etcdCached(v) {
			d += job.CostEtcdBuild.D()
		}
		built[v] = true
	}
	return d
}

// timelineVersions are the etcd versions (not paths, not embedded) the
// timelines run on setup st move members to.
func (s *Spec) timelineVersions(st *Setup) []string {
	var vs []string
	for _, f := range s.faultsOn(st) {
		action, arg := f.Action()
		if about(action).Etcd && arg != "" && arg != "embedded" && !strings.Contains(arg, "/") {
			vs = append(vs, arg)
		}
	}
	return vs
}
