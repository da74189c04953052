package kube

import "time"

// Sources says where bench kube's defaults and loops come from, the same
// strings its result's components carry: for a model of the load
// (load/sizing) to quote rather than restate.
type Sources struct {
	ControllerManager, ReplicaSet, EndpointSlice, GarbageCollector, Scheduler   string
	Kubelet, HollowKubelet, Heartbeat, LeaderElection, IdentityLease, APIServer string
}

// DefaultSources returns the sources of DefaultLimits and of the control
// plane's timings (Timings).
func DefaultSources() Sources {
	return Sources{
		ControllerManager: srcControllerManager, ReplicaSet: srcReplicaSet, EndpointSlice: srcEndpointSlice,
		GarbageCollector: srcGC, Scheduler: srcScheduler, Kubelet: srcKubelet, HollowKubelet: srcHollowKubelet,
		Heartbeat: srcHeartbeat, LeaderElection: srcLeaderElection, IdentityLease: srcIdentityLease, APIServer: srcAPIServer,
	}
}

// Timings are the control plane's fixed timings that DefaultLimits does
// not hold (their sources are in the constants' comments and Sources).
type Timings struct {
	// LeaderRenew is leader election's renewal period (kube-controller-
	// manager's and kube-scheduler's leases); IdentityRenew an
	// apiserver's identity lease's.
	LeaderRenew, IdentityRenew time.Duration
	// Jitter is the largest share of a period the kubelet's heartbeat
	// loops and the lease controller add to it (wait.JitterUntil's 0.04).
	Jitter float64
	// EventAggregate is how many events differing only by message about
	// one object the event correlator writes before it aggregates;
	// EventSpamBurst how many events about one object it lets through
	// (refilled at one per EventSpamRefill).
	EventAggregate, EventSpamBurst int
	EventSpamRefill                time.Duration
}

// DefaultTimings returns the timings bench kube runs with.
func DefaultTimings() Timings {
	return Timings{LeaderRenew: leaderRetryPeriod, IdentityRenew: identityLeaseRenew, Jitter: kubeletJitter,
		EventAggregate: aggregateMaxEvents, EventSpamBurst: spamBurst, EventSpamRefill: spamRefill}
}

// Resource is how kube-apiserver stores one of the resources bench kube
// writes.
type Resource struct {
	// Name is the API resource ("pods"); Segment its key segment under
	// /registry/ ("minions" for nodes).
	Name, Segment string
	Namespaced    bool
	// Watched: kube-apiserver keeps a watch cache of it (a prev_kv watch
	// of its prefix per apiserver); events have none.
	Watched bool
}

// Resources lists the resources bench kube writes, in its tables' order;
// each apiserver counts the objects of every one (CountPollPeriod).
func Resources() []Resource {
	out := make([]Resource, 0, numResources)
	for _, r := range allResources() {
		i := r.info()
		out = append(out, Resource{Name: i.name, Segment: i.segment, Namespaced: i.namespaced, Watched: i.watched})
	}
	return out
}
