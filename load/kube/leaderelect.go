package kube

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// leaseNamespace is where the control plane keeps its Leases.
const leaseNamespace = "kube-system"

// The control plane's lease timings.
const (
	// leaderLeaseDuration and leaderRetryPeriod are leader election's
	// defaults for kube-controller-manager and kube-scheduler: 15 s lease,
	// renewed every 2 s (RecommendedDefaultLeaderElectionConfiguration,
	// k8s.io/component-base/config/v1alpha1/defaults.go).
	leaderLeaseDuration = 15 * time.Second
	leaderRetryPeriod   = 2 * time.Second
	// identityLeaseDuration and identityLeaseRenew are kube-apiserver's
	// identity lease (IdentityLeaseDurationSeconds 3600,
	// IdentityLeaseRenewIntervalPeriod 10 s, pkg/controlplane/apiserver/
	// server.go), renewed by the lease controller with jitter 0.04.
	identityLeaseDuration = time.Hour
	identityLeaseRenew    = 10 * time.Second
	// leaseControllerJitter is the lease controller's renewal jitter
	// (wait.JitterUntilWithContext(ctx, c.sync, c.renewInterval, 0.04,
	// true) in its Run).
	leaseControllerJitter = 0.04
)

// leaseHolder keeps one control-plane Lease, as client-go's leader
// elector (tools/leaderelection/leaderelection.go) and the lease
// controller (k8s.io/component-helpers/apimachinery/lease/controller.go)
// do once they hold it: the first try GETs the lease (a quorum read) and,
// finding none, creates it; every renewal after is an update from the
// copy the holder last wrote, without a GET (leader election's "fast path
// for the leader to update optimistically", the lease controller's
// latestLease), then it waits its period: wait.Until's sliding period for
// leader election (no jitter), JitterUntil with 0.04 for the lease
// controller. Immutable; run by one goroutine.
type leaseHolder struct {
	api    *apiserver
	cl     *client
	name   string
	holder string
	dur    time.Duration
	period time.Duration
	jitter float64
}

// acquire GETs the lease and creates it when it is not there (another
// holder's lease is taken over by an update).
func (h *leaseHolder) acquire(ctx context.Context) error {
	cur, err := h.api.getObj(ctx, h.cl, resLeases, leaseNamespace, h.name)
	if err != nil && !isNotFound(err) {
		return err
	}
	if err == nil && cur != nil {
		return h.renew(ctx)
	}
	now := time.Now()
	secs := int32(h.dur / time.Second)
	renew := metav1.NewMicroTime(now)
	holder := h.holder
	l := &coordinationv1.Lease{ObjectMeta: meta(h.name, leaseNamespace, nil, now),
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, AcquireTime: &renew, RenewTime: &renew}}
	_, err = h.api.create(ctx, h.cl, resLeases, l)
	return err
}

// renew updates the lease's renewTime: an update carrying the holder's
// copy, which kube-apiserver applies to its watch cache's object
// (CacheDelegator.GuaranteedUpdate, k8s.io/apiserver
// pkg/storage/cacher/delegator.go): one Txn.
func (h *leaseHolder) renew(ctx context.Context) error {
	err := h.api.update(ctx, h.cl, "update leases", resLeases, leaseNamespace, h.name, func(cur object) (object, error) {
		l := cur.(*coordinationv1.Lease)
		now := metav1.NewMicroTime(time.Now())
		l.Spec.RenewTime = &now
		return l, nil
	})
	return err
}

// run acquires the lease, then renews it every period until ctx ends; a
// failed acquire is tried again after a period.
func (h *leaseHolder) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := h.acquire(ctx); err == nil {
			break
		}
		sleep(ctx, h.period)
	}
	for ctx.Err() == nil {
		sleep(ctx, h.period+time.Duration(rand.Float64()*h.jitter*float64(h.period)))
		if ctx.Err() == nil {
			_ = h.renew(ctx)
		}
	}
}

// newLeaderElection is a leader-elected component's lease (its name is
// the lease's: "kube-controller-manager", "kube-scheduler").
func newLeaderElection(api *apiserver, cl *client, name string) *leaseHolder {
	return &leaseHolder{api: api, cl: cl, name: name, holder: name + "_" + string(newUID()),
		dur: leaderLeaseDuration, period: leaderRetryPeriod}
}

// newIdentityLease is apiserver i's identity lease.
func newIdentityLease(api *apiserver, cl *client, i int) *leaseHolder {
	name := fmt.Sprintf("apiserver-%s", randName(fmt.Sprintf("%d", i)))
	return &leaseHolder{api: api, cl: cl, name: name, holder: name + "_" + string(newUID()),
		dur: identityLeaseDuration, period: identityLeaseRenew, jitter: leaseControllerJitter}
}
