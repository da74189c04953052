package jobs

import (
	"time"

	"github.com/etcdlab/etcdlab/measure/bench"
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
