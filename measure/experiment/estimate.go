package experiment

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/measure/bench"
)

// The estimate's model. It is an estimate, said to be one wherever it is
// shown (docs/experiments.md, "Estimated time"):
const (
	// CellOverhead is a fresh cluster's start (every member healthy, a
	// leader) plus its teardown: the median over the built-ins' quick
	// cells on this project's 2-core machine was 1.3 to 4.4 s per
	// experiment, 3.0 s for storage-sweep's (docs/experiments.md).
	CellOverhead = 3 * time.Second
	// baseLatency is a put's latency on loopback without emulated delays,
	// and maxThroughput the most a closed loop reaches there (bench, 1,000
	// clients: about 7,000 to 11,000 req/s; docs/benchmarks.md).
	baseLatency   = 2 * time.Millisecond
	maxThroughput = 8000.0
	// diskSyncTime is one fdatasync of the disk job on an unemulated
	// disk; checkLevelOverhead a check level's scrapes and ramp.
	diskSyncTime       = time.Millisecond
	checkLevelOverhead = time.Second
	checkProbe         = 2 * time.Second
)

// estimate models how long cell c takes: the overhead of its cluster, and
// its workload: a bench run bounded by --duration takes that, one bounded
// by --total takes total / throughput, where throughput is clients /
// latency (latency: loopback's, plus the emulated network's, plus twice
// the median fsync delay) capped at loopback's maximum.
func (s *Spec) estimate(c *Cell) time.Duration {
	overhead := CellOverhead
	if c.Setup.Live() {
		overhead = 0
	}
	lat := baseLatency
	var fsync time.Duration
	if !c.Setup.Live() {
		if o, err := s.clusterOptions(c.Setup, setupEnv{}); err == nil {
			lat += emulatedLatency(o)
			if o.FsyncDelay != nil {
				fsync = o.FsyncDelay.Median()
				lat += 2 * fsync
			}
		}
	}
	switch c.Workload.Kind() {
	case "doctor":
		return overhead + c.Doctor.estimate()
	case "disk":
		j := c.Disk
		d := j.Runtime.D()
		if d == 0 {
			size, bs := 22<<20, 2300
			if j.Profile == "openshift" {
				size, bs = 100<<20, 8000
			}
			d = time.Duration(size/bs) * (diskSyncTime + fsync)
			if j.Profile == "openshift" {
				d = min(d, time.Minute)
			}
		}
		if j.Suite {
			d += 3*8*time.Second + 5*time.Second
		}
		return overhead + d
	case "check":
		j := c.Check
		ld := j.LevelDuration.D()
		if ld == 0 {
			ld = 6 * time.Second
		}
		levels := levelSpan(j.Load, j.MaxLoad)
		return overhead + checkProbe + time.Duration(levels)*(ld+checkLevelOverhead)
	}
	cfg := c.Bench.Config
	if cfg.Command == bench.CmdKube {
		return overhead + time.Duration(cfg.Iterations)*kubeRunTime(cfg, lat)
	}
	runTime := func(clients int, total int64, d time.Duration) time.Duration {
		rate := math.Min(float64(clients)/lat.Seconds(), maxThroughput)
		if cfg.Rate > 0 {
			rate = math.Min(rate, cfg.Rate)
		}
		t := time.Duration(float64(total) / rate * float64(time.Second))
		switch {
		case total == 0:
			return d
		case d > 0:
			return min(t, d)
		}
		return t
	}
	var total time.Duration
	for range cfg.Conns {
		for _, clients := range cfg.Clients {
			total += time.Duration(cfg.Iterations) * runTime(clients, cfg.Total, cfg.Duration)
			total += warmupTime(cfg.Warmup, func(n int64) time.Duration { return runTime(clients, n, 0) })
		}
	}
	return overhead + total
}

// warmupTime is how long bench's --warmup takes: a duration, or a request
// count at the run's rate.
func warmupTime(w string, requests func(int64) time.Duration) time.Duration {
	if w == "" {
		return 0
	}
	if d, err := time.ParseDuration(w); err == nil {
		return d
	}
	var n int64
	for _, r := range w {
		if r < '0' || r > '9' {
			return 0
		}
		n = n*10 + int64(r-'0')
	}
	return requests(n)
}

// emulatedLatency is what an emulated network adds to a put, averaged
// over which member leads: the client's round trip to the leader, and the
// leader's round trip to the follower that completes its quorum.
func emulatedLatency(o cluster.Options) time.Duration {
	if len(o.Links) == 0 {
		return 0
	}
	rtt := func(a, b string) time.Duration {
		return o.Links[wan.Dir{From: a, To: b}].Delay + o.Links[wan.Dir{From: b, To: a}].Delay
	}
	names := make([]string, o.Members)
	for i := range names {
		names[i] = fmt.Sprintf("m%d", i+1)
	}
	var sum time.Duration
	for _, leader := range names {
		var peers []time.Duration
		for _, f := range names {
			if f != leader {
				peers = append(peers, rtt(leader, f))
			}
		}
		slices.Sort(peers)
		if q := o.Members / 2; q > 0 && q <= len(peers) {
			sum += peers[q-1] // the quorum's last follower
		}
		sum += rtt(cluster.ClientNode, leader)
	}
	return sum / time.Duration(o.Members)
}

// levelSpan is how many check levels run from first to last ("" = s).
func levelSpan(first, last string) int {
	idx := map[string]int{"": 0, "s": 0, "m": 1, "l": 2, "xl": 3}
	return max(1, idx[last]-idx[first]+1)
}

// kubeRunTime models one bench kube run: the replicaset controller's pod
// creates and their events through its client limit (the measured limit of
// the default manifest: 25 s for 500 pods on this machine), a few chains of
// round trips per pod batch, and the deletion afterwards.
func kubeRunTime(cfg bench.Config, lat time.Duration) time.Duration {
	k := cfg.Kube
	if k.Mode == "steady" {
		return cfg.Duration + 5*time.Second
	}
	pods := float64(k.Deployments * k.Replicas)
	qps := k.Limits.ControllerManager.QPS
	if qps <= 0 {
		qps = 20
	}
	limited := time.Duration(pods / qps * float64(time.Second))
	return limited + 40*lat + 5*time.Second
}
