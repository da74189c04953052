package bottleneck

import (
	"fmt"
	"strings"

	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// ResourceRateLimit is a Kubernetes component's client-side rate limit
// (bench kube): the control plane, not etcd, set the pace.
const ResourceRateLimit = "rate-limit"

// kubeLimit is a bench kube cell's statement when a component's client
// rate limit accounts for most of the time to every pod Ready: the least
// time its requests need at its QPS after its burst, per instance
// (kubelets are many), in the last run that reached Ready; nil otherwise
// (the general rules then judge the cell).
func (j *judgement) kubeLimit(c *result.Cell) *result.Bottleneck {
	var k *result.KubeRun
	for i := len(c.Runs) - 1; i >= 0; i-- {
		if r := c.Runs[i].Kube; r != nil && r.TimeToReadySeconds > 0 {
			k = r
			break
		}
	}
	if k == nil {
		return nil
	}
	var worst *result.KubeComponent
	var floor float64
	for i := range k.Components {
		comp := &k.Components[i]
		if comp.QPS <= 0 {
			continue
		}
		if f := componentFloor(comp); f > floor {
			worst, floor = comp, f
		}
	}
	if worst == nil || floor < judge.LimitRateLimitShare.Value()*k.TimeToReadySeconds || worst.ThrottledSeconds <= 0 {
		return nil
	}
	j.f[string(result.MetricTimeToReady)], j.f[figRateLimitFloor], j.f[figComponentQPS] = k.TimeToReadySeconds, floor, worst.QPS
	s := fmt.Sprintf("Kubernetes' client-side rate limit set the time to Ready: %s sent %s requests in the run through its %g QPS limit (burst %d), at least %s of sending, and its requests waited %s for the limiter in all; every pod was Ready after %s",
		worst.Name, count(float64(worst.Requests)), worst.QPS, worst.Burst, secs(floor), secs(worst.ThrottledSeconds), secs(k.TimeToReadySeconds))
	s += fmt.Sprintf("; etcd's part: request p50 %s", secs(j.m.P50.Mean))
	if r := j.rttClause(); r != "" {
		s += ", " + r
	}
	if cc := j.cpuClause(); cc != "" {
		s += "; " + cc
	}
	return j.done(ResourceRateLimit, s+".")
}

// kubePods is the pods of a bench kube cell's manifest, 0 for other cells.
func kubePods(c *result.Cell) int {
	for _, r := range c.Runs {
		if r.Kube != nil {
			return r.Kube.Pods
		}
	}
	return 0
}

// componentFloor is the least time a component's requests take at its
// limit: those past the burst at QPS, per instance ("kubelet ×6").
func componentFloor(c *result.KubeComponent) float64 {
	n := 1
	if _, err := fmt.Sscanf(c.Name[strings.LastIndexByte(c.Name, ' ')+1:], "×%d", &n); err != nil || n < 1 {
		n = 1
	}
	per := float64(c.Requests) / float64(n)
	return max(0, per-float64(c.Burst)) / c.QPS
}
