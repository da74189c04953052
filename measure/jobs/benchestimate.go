package jobs

import (
	"time"

	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
)

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

// kubeRunTime models one bench kube run: the replicaset controller's pod
// creates and their events through its client limit (the measured limit of
// the default manifest: 25 s for 500 pods on this machine), a few chains of
// round trips per pod batch, and the deletion afterwards; on a slow disk,
// each kubelet's chain of status writes (kubeDiskChain).
func kubeRunTime(cfg bench.Config, env job.Env) time.Duration {
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
	t := limited + 40*env.Latency + 5*time.Second
	if env.FsyncMean > 0 {
		perNode := pods / float64(max(k.Nodes, 1))
		chain := env.Latency - 2*env.Fsync + 2*env.FsyncMean
		t += time.Duration(kubeDiskChain * perNode * float64(chain))
	}
	return t
}

// kubeDiskChain is how many commits, one after another, each of a
// kubelet's pods costs on a slow disk (its statuses and the pod's other
// writes, each waiting for the WAL's fsync at the delay's mean, whose
// tail counts): fitted to distance-sweep's hdd-kube profile (e33e1da,
// 2026-11-28, quiet): 500 pods on 6 nodes on the HDD class took 51.6 s a
// run at 0 ms and 54.8 s at 10 ms, against 27 s in memory.
const kubeDiskChain = 3.2
