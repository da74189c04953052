package result

// KubeEtcdRequestBuckets are the upper bounds (seconds) of kube-apiserver's
// etcd_request_duration_seconds histogram as Kubernetes 1.23 to 1.25
// defined it (staging/src/k8s.io/apiserver/pkg/storage/etcd3/metrics): the
// labels a dashboard of that metric shows, 0.005, 0.025 and 0.25 s among
// them, as the multi-cloud article's KubeAPI ranges quote them.
func KubeEtcdRequestBuckets() []float64 {
	return []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 15, 30, 60}
}

// PeerRTTBuckets are the upper bounds (seconds) of etcd's
// etcd_network_peer_round_trip_time_seconds histogram: 0.1 ms doubling,
// 16 of them (3.5 to 3.7), 0.0032, 0.0256 and 0.2048 s among them, as the
// multi-cloud article's dashboard labels them.
func PeerRTTBuckets() []float64 {
	out := make([]float64, 16)
	for i := range out {
		out[i] = LowestPeerRTTBucket * float64(int(1)<<i)
	}
	return out
}

// BucketOf is the upper bound of the bucket of bounds (ascending) that
// holds v: the lowest bound not below v, the top bound for a v above
// every bound.
func BucketOf(v float64, bounds []float64) float64 {
	for _, le := range bounds {
		if v <= le {
			return le
		}
	}
	return bounds[len(bounds)-1]
}

// kubeEtcdBuckets are the buckets of kube-apiserver's etcd request
// histogram that the fastest and the slowest of an emulated control
// plane's requests to etcd fall in, over a kube cell's runs: the range a
// dashboard of that histogram would show. The emulator's requests are the
// apiservers' storage calls, so their latency is what the real
// apiserver's histogram times. False for a cell that ran no Kubernetes
// workload or ran it against a real control plane (whose histogram the
// result keeps only as means).
func kubeEtcdBuckets(c *Cell) (lowest, highest float64, ok bool) {
	bounds := KubeEtcdRequestBuckets()
	for _, r := range c.Runs {
		if r.Kube == nil || r.Kube.ControlPlane != "" || r.Requests == 0 || r.Latency.Max <= 0 {
			continue
		}
		lo, hi := BucketOf(r.Latency.Min, bounds), BucketOf(r.Latency.Max, bounds)
		if !ok || lo < lowest {
			lowest = lo
		}
		highest = max(highest, hi)
		ok = true
	}
	return lowest, highest, ok
}
