package sizing

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/etcdlab/etcdlab/load/kube"
)

// Rate is one mechanism's requests of one verb on one resource.
type Rate struct {
	// Verb is kube-apiserver's etcd_requests_total operation (get,
	// create, update, delete, list, listWithCount) for Rates; for Other,
	// what etcd receives ("get", "txn", "compact", "lease-grant",
	// "watch-event").
	Verb, Resource string
	// What names the mechanism: "node lease renewals".
	What      string
	PerSecond float64
	// Source is where the rate comes from, and where real Kubernetes
	// differs from bench kube.
	Source string
}

// Objects are one resource's stored objects.
type Objects struct {
	Resource string
	// Prefix is the resource's key prefix under /registry/.
	Prefix string
	Count  int64
	// Bytes is a stored object's value; KeyBytes its key's mean length.
	Bytes, KeyBytes int
	Source          string
}

// EventLeases are the leases kube-apiserver's lease manager grants for
// events (each event is written with a lease of the event TTL).
type EventLeases struct {
	// GrantsPerSecond over every apiserver; Alive in steady state.
	GrantsPerSecond float64
	Alive           int64
	// TTL is the granted TTL (the event TTL plus the reuse window);
	// ObjectsPerLease the events attached to each.
	TTL             time.Duration
	ObjectsPerLease float64
	Source          string
}

// Load is the etcd load a cluster implies.
type Load struct {
	Cluster Cluster
	// Rates are the storage layer's requests per verb and resource (what
	// etcd_requests_total counts), one row per mechanism.
	Rates []Rate
	// Other is what is outside that metric: health checks, compaction,
	// event lease grants, watch events sent.
	Other []Rate
	// Objects per resource.
	Objects []Objects
	// EtcdWatches are the watches etcd serves: one per apiserver and
	// watched resource, all with prev_kv.
	EtcdWatches int
	// WatchedResources are the resources with a watch cache.
	WatchedResources []string
	Leases           EventLeases
	// RevisionsPerSecond are the writes that succeed (a store revision
	// each); WatchEventsPerSecond the events etcd sends the watch caches.
	RevisionsPerSecond, WatchEventsPerSecond float64
	// DBBytes is the projected database size (DBMethod says how).
	DBBytes int64
	Notes   []string
}

// DBMethod says how Load.DBBytes is projected.
const DBMethod = "the objects (keys and values) plus the history kept between compactions: kube-apiserver compacts every 5 min " +
	"to the revision it saw 5 min earlier, so up to 10 min of writes (each a new revision of its key and value; a delete " +
	"a key) are kept, and bbolt does not give the freed pages back without a defragmentation: the file holds the peak; " +
	"all of it over 0.9, the fill of etcd's sequentially written key bucket (bbolt FillPercent 0.9 in etcd's backend), " +
	"for the pages' overhead. An estimate, not a measurement"

// Storage request shapes' extra conflicts: bench kube's kubelet deletes a
// pod right after writing its final status, from its apiserver's watch
// cache's copy, which has rarely seen that status yet: the first delete's
// compare fails and it is sent again, mostly: bench kube measured 1.65 to
// 1.9 deletes a pod over five runs, 1.8 on average.
const deletesPerPod = 1.8

// rsStatusRetries are a ReplicaSet's status writes whose compare fails
// (the controller's next sync works from a watch cache that has not seen
// its last write) and are sent again; fitted to bench kube.
const rsStatusRetries = 2

// deploymentStatusRetries is the same for a Deployment's status (bench
// kube unthrottled: 12.75 to 13.5 writes for 10 replicas, 23 for 20).
const deploymentStatusRetries = 1

// endpointsPerPod is the Endpoints (and EndpointSlice) writes per pod of a
// churned Deployment with a Service: one as each new pod turns Ready
// (its IP appears), and 0.6 for the predecessor's pods, which bench kube's
// Service, deleted and created again under the same name at once, selects
// until the garbage collector marks them deleted. The 0.6 is fitted to
// bench kube (16.25 and 32.7 updates a churn at 10 and 20 replicas).
const endpointsPerPod = 1.6

// Model derives the load of c (zero fields take WithDefaults' values; an
// invalid cluster gives a meaningless load: call Validate first).
func Model(c Cluster) Load {
	c = c.WithDefaults()
	m := &modeller{c: c, lim: kube.DefaultLimits(), src: kube.DefaultSources(), tm: kube.DefaultTimings(), failed: map[[2]string]float64{}}
	m.l.Cluster = c
	m.heartbeats()
	m.pods()
	m.deployments()
	m.events()
	m.apiservers()
	m.objects()
	m.totals()
	return m.l
}

type modeller struct {
	c   Cluster
	lim kube.Limits
	src kube.Sources
	tm  kube.Timings
	l   Load
	// failed is the rate of writes whose compare fails (no revision),
	// by verb and resource.
	failed map[[2]string]float64
}

func (m *modeller) rate(verb, res, what string, perSec float64, src string) {
	if perSec > 0 {
		m.l.Rates = append(m.l.Rates, Rate{Verb: verb, Resource: res, What: what, PerSecond: perSec, Source: src})
	}
}

func (m *modeller) other(verb, res, what string, perSec float64, src string) {
	if perSec > 0 {
		m.l.Other = append(m.l.Other, Rate{Verb: verb, Resource: res, What: what, PerSecond: perSec, Source: src})
	}
}

// jittered is a loop's mean period: the period plus half the most
// jitter wait.JitterUntil adds.
func (m *modeller) jittered(d time.Duration) float64 { return d.Seconds() * (1 + m.tm.Jitter/2) }

// replicas is the mean pods per Deployment.
func (m *modeller) replicas() float64 { return float64(m.c.Pods) / float64(m.c.Deployments) }

// churnedDeployments is Deployments deleted (and created again) a second;
// withService those of them with a Service.
func (m *modeller) churnedDeployments() (all, withService float64) {
	all = m.c.Churn / m.replicas()
	return all, all * float64(min(m.c.Services, m.c.Deployments)) / float64(m.c.Deployments)
}

// heartbeats: node leases, node status, leader election, identity leases.
func (m *modeller) heartbeats() {
	n, a := float64(m.c.Nodes), float64(m.c.APIServers)
	renew := m.lim.NodeLeaseDuration / 4
	m.rate("update", "leases", "node lease renewals", n/m.jittered(renew),
		fmt.Sprintf("every node's kubelet renews its Lease every %s (a %s lease × 0.25) plus up to %.0f%% jitter, from its own copy (no get): %s",
			renew, m.lim.NodeLeaseDuration, 100*m.tm.Jitter, m.src.Kubelet))
	report := m.lim.NodeStatusReport.Seconds() + m.jittered(m.lim.NodeStatusUpdate)/2
	m.rate("update", "nodes", "node status", n/report,
		fmt.Sprintf("status computed every %s, written when it changed or %s passed: at the first computation %s after the last (%.0f s apart), "+
			"from the watch cache's copy: %s; real kubelets also write when the status changes (images, volumes, conditions), which this does not count",
			m.lim.NodeStatusUpdate, m.lim.NodeStatusReport, m.lim.NodeStatusReport, report, m.src.Kubelet))
	m.rate("update", "leases", "leader election (kube-controller-manager, kube-scheduler)", 2/m.tm.LeaderRenew.Seconds(),
		fmt.Sprintf("two leaders renew every %s: %s", m.tm.LeaderRenew, m.src.LeaderElection))
	m.rate("update", "leases", "apiserver identity leases", a/m.jittered(m.tm.IdentityRenew),
		fmt.Sprintf("each apiserver every %s plus up to %.0f%% jitter: %s", m.tm.IdentityRenew, 100*m.tm.Jitter, m.src.IdentityLease))
}

// pods: each created pod's and each deleted pod's requests.
func (m *modeller) pods() {
	c := m.c.Churn
	m.rate("create", "pods", "pods created by the replicaset controller", c, m.src.ReplicaSet)
	m.rate("update", "pods", "bindings (pods/binding)", c,
		"the scheduler binds each pod: kube-apiserver's GuaranteedUpdate of the pod from its watch cache's copy: "+m.src.Scheduler)
	m.rate("get", "serviceaccounts", "TokenRequest: the service account", c,
		"the kubelet mounts each pod's projected token: TokenRequest reads the service account and the pod from etcd (a quorum get each, pkg/registry/core/serviceaccount/storage/token.go)")
	m.rate("get", "pods", "TokenRequest: the pod", c, "as above")
	statusSrc := "the kubelet's status manager writes each status as a get of the pod (resourceVersion \"\", from etcd) and a patch of pods/status " +
		"(pkg/kubelet/status/status_manager.go): Pending with its containers creating, then Running and Ready after the next PLEG relist"
	if m.c.HollowKubelets {
		statusSrc += "; a hollow kubelet's pod is Ready from the first (" + m.src.HollowKubelet + ")"
	}
	m.rate("get", "pods", "status manager gets (start)", 2*c, statusSrc)
	m.rate("update", "pods", "pod status writes (start)", 2*c, statusSrc)
	m.rate("update", "pods", "graceful deletion", c,
		"the garbage collector deletes the pods of a deleted ReplicaSet gracefully: kube-apiserver's update setting deletionTimestamp, "+
			"from bench kube's watch cache's copy (real kube-apiserver reads the pod from etcd first: one get more)")
	m.rate("get", "pods", "status manager get (terminated)", c, "the kubelet's final status: a get of the pod, then the patch: "+statusSrc)
	m.rate("update", "pods", "pod status write (terminated)", c, "as above")
	m.rate("delete", "pods", "final delete (grace 0)", deletesPerPod*c,
		"the kubelet deletes the finished pod (canBeDeleted); bench kube's apiserver deletes from its watch cache's copy, which has rarely seen "+
			"the status just written, so the first compare mostly fails and the delete is sent again: 1.8 a pod (measured 1.65 to 1.9) (real kube-apiserver reads the pod from "+
			"etcd first: a get and one delete)")
	m.failed[[2]string{"delete", "pods"}] += (deletesPerPod - 1) * c
}

// deployments: each churned Deployment's (and Service's) requests.
func (m *modeller) deployments() {
	d, ds := m.churnedDeployments()
	r := m.replicas()
	slices := math.Ceil(r / float64(m.lim.EndpointsPerSlice))
	churn := "bench kube's steady mode deletes a Deployment and its Service and creates them again (kubectl, load/kube/run.go steady); " +
		"real churn is mostly rollouts and scaling, which keep the Service"
	m.rate("delete", "deployments", "churn: Deployment deleted", d, churn)
	m.rate("create", "deployments", "churn: Deployment created", d, churn)
	m.rate("delete", "services", "churn: Service deleted", ds, churn)
	m.rate("create", "services", "churn: Service created", ds, churn)
	m.rate("delete", "replicasets", "garbage collector deletes the ReplicaSet", d, m.src.GarbageCollector)
	m.rate("create", "replicasets", "deployment controller creates the ReplicaSet", d,
		"the deployment controller creates a new Deployment's ReplicaSet (pkg/controller/deployment); real Kubernetes keeps up to "+
			"revisionHistoryLimit 10 old ReplicaSets of a Deployment's rollouts, bench kube none")
	statusN := 2 + r
	m.failed[[2]string{"update", "replicasets"}] += rsStatusRetries * d
	m.rate("update", "replicasets", "ReplicaSet status", (statusN+rsStatusRetries)*d,
		fmt.Sprintf("%.1f writes a ReplicaSet and %d retried compares: its observedGeneration after the creates, its replicas once they are observed, then readyReplicas "+
			"as each pod turns Ready (each status change is one write unless the workqueue merges them: at the controller's QPS limit, or when pods "+
			"turn Ready together, as a hollow kubelet's do with their first status; bench kube measured 11.5 for 10 real-kubelet replicas, 7.5 "+
			"hollow); the syncs right after the creates work from a watch cache that has not seen their own last status write yet, so about "+
			"two compares fail and are retried (bench kube unthrottled: 14.25 and 24.7 a ReplicaSet of 10 and 20 replicas)", statusN, rsStatusRetries))
	m.failed[[2]string{"update", "deployments"}] += deploymentStatusRetries * d
	m.rate("update", "deployments", "Deployment status", (statusN+deploymentStatusRetries)*d,
		fmt.Sprintf("%.1f writes a Deployment and %d retried compare: the deployment controller writes its status after each change of its ReplicaSet's "+
			"(pkg/controller/deployment); bench kube measured 12.75 to 13.5 for 10 replicas unthrottled, 23 for 20 (11.25 at the default 20 QPS, 5.5 hollow)",
			statusN, deploymentStatusRetries))
	epSrc := fmt.Sprintf("%.1f writes a churned Service's pod: one as each new pod turns Ready, and (fitted to bench kube: 16.25 and 32.7 a churn at 10 and 20 replicas) "+
		"0.6 for its predecessor's pods, which the Service created again under the same name selects until the garbage collector marks them; "+
		"%s, %s", endpointsPerPod, m.src.ControllerManager, m.src.EndpointSlice)
	m.rate("create", "endpoints", "churn: the Service's Endpoints", ds, "the endpoints controller creates a new Service's Endpoints (pkg/controller/endpoint)")
	m.rate("update", "endpoints", "Endpoints per pod change", endpointsPerPod*r*ds, epSrc)
	m.rate("delete", "endpoints", "churn: the deleted Service's Endpoints", ds, "the endpoints controller deletes a deleted Service's Endpoints")
	m.rate("create", "endpointslices", "churn: the Service's EndpointSlices", slices*ds,
		fmt.Sprintf("the EndpointSlice controller creates a Service's slices of at most %d endpoints (%s)", m.lim.EndpointsPerSlice, m.src.EndpointSlice))
	m.rate("update", "endpointslices", "EndpointSlices per pod change", endpointsPerPod*r*ds, epSrc)
	m.rate("delete", "endpointslices", "churn: the garbage collector deletes the slices", slices*ds, m.src.GarbageCollector)
}

// events: each component's events per lifecycle, through client-go's
// correlator (spam filter and aggregation per involved object).
func (m *modeller) events() {
	c := m.c.Churn
	d, _ := m.churnedDeployments()
	r := m.replicas()
	m.rate("create", "events", "Scheduled (kube-scheduler)", c, "one event a bound pod: "+m.src.Scheduler)
	if !m.c.HollowKubelets {
		m.rate("create", "events", "Pulled, Created, Started, Killing (kubelet)", 4*c,
			"a real kubelet's events about each pod: image present, container created, started, and Killing when deleted: "+m.src.Kubelet)
	}
	// SuccessfulCreate about the ReplicaSet: the spam filter lets
	// EventSpamBurst through; the first EventAggregate are created, the
	// next is created aggregated, the rest patch it (a get and an update).
	let := math.Min(r, float64(m.tm.EventSpamBurst))
	agg := float64(m.tm.EventAggregate)
	creates := math.Min(let, agg)
	patches := 0.0
	if let > agg {
		creates++
		patches = let - agg - 1
	}
	corr := fmt.Sprintf("client-go's event correlator (tools/record/events_cache.go): of a ReplicaSet's %.1f SuccessfulCreate events, %d pass the spam "+
		"filter (refilled at one per %s), %d are created, the next one created aggregated and the rest patch it (a get and an update)",
		r, m.tm.EventSpamBurst, m.tm.EventSpamRefill, m.tm.EventAggregate)
	m.rate("create", "events", "SuccessfulCreate (replicaset controller)", creates*d, corr)
	m.rate("get", "events", "SuccessfulCreate aggregated: read", patches*d, corr)
	m.rate("update", "events", "SuccessfulCreate aggregated: patch", patches*d, corr)
	m.rate("create", "events", "ScalingReplicaSet (deployment controller)", d, "one event a new Deployment's ReplicaSet (pkg/controller/deployment)")
}

// apiservers: count polls, health checks, compaction, watches, leases.
func (m *modeller) apiservers() {
	a := float64(m.c.APIServers)
	for _, r := range kube.Resources() {
		m.rate("listWithCount", r.Name, "object count poll", a/m.lim.CountPollPeriod.Seconds(),
			fmt.Sprintf("each apiserver counts every resource's objects every %s: %s; a real apiserver counts every resource it serves (dozens), bench kube its %d",
				m.lim.CountPollPeriod, m.src.APIServer, len(kube.Resources())))
	}
	m.other("get", "health", "etcd health checks", a/m.lim.HealthCheckInterval.Seconds(),
		"each apiserver's readiness probe gets the key /registry/health, which does not exist: "+m.src.APIServer)
	comp := m.lim.CompactionInterval.Seconds()
	m.other("txn", "compact_rev_key", "compaction election", 1/comp,
		"kube-apiserver's compactor's txn on compact_rev_key every 5 min (pkg/storage/etcd3/compact.go); bench kube runs it on one apiserver, "+
			"a real control plane on each (one wins)")
	m.other("compact", "", "compaction", 1/comp, m.src.APIServer)
	for _, r := range kube.Resources() {
		if r.Watched {
			m.l.WatchedResources = append(m.l.WatchedResources, r.Name)
		}
	}
	m.l.EtcdWatches = m.c.APIServers * len(m.l.WatchedResources)
}

// eventShares are the events per second each apiserver writes:
// kube-controller-manager's on the first, kube-scheduler's on the second,
// each kubelet's on the one it talks to (node i on i mod APIServers), as
// bench kube spreads them.
func (m *modeller) eventShares() []float64 {
	a := m.c.APIServers
	out := make([]float64, a)
	for _, r := range m.l.Rates {
		if r.Resource != "events" || r.Verb == "get" {
			continue
		}
		switch r.What {
		case "Scheduled (kube-scheduler)":
			out[1%a] += r.PerSecond
		case "Pulled, Created, Started, Killing (kubelet)":
			for i := range a {
				nodes := m.c.Nodes/a + b2i(i < m.c.Nodes%a)
				out[i] += r.PerSecond * float64(nodes) / float64(m.c.Nodes)
			}
		default:
			out[0] += r.PerSecond
		}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// resourcePrefix is where kube-apiserver keeps r's objects.
func resourcePrefix(r kube.Resource) string { return "/registry/" + r.Segment + "/" }

// nameBytes are typical object names' lengths: generated pod names
// (deployment, template hash, 5 characters), node host names, event names
// (the object's name and a 16-digit hex suffix).
func nameBytes(resource string) int {
	return map[string]int{"pods": 30, "events": 47, "replicasets": 24, "endpointslices": 19, "nodes": 28, "leases": 28}[resource]
}

// objects: what is stored, and the event leases.
func (m *modeller) objects() {
	c, b := m.c, m.c.Bytes
	r := m.replicas()
	slices := int64(math.Ceil(r / float64(m.lim.EndpointsPerSlice)))
	svc := int64(min(c.Services, c.Deployments))
	var eventWrites float64
	for _, x := range m.l.Rates {
		if x.Resource == "events" && x.Verb == "create" {
			eventWrites += x.PerSecond
		}
	}
	ttl := m.lim.EventTTL + m.lim.EventLeaseReuse
	events := int64(math.Round(eventWrites * ttl.Seconds()))
	counts := map[string]struct {
		n     int64
		bytes int
		src   string
	}{
		"namespaces":      {int64(c.Namespaces), b.Namespace, "Namespaces"},
		"serviceaccounts": {int64(c.Namespaces), b.ServiceAccount, "the serviceaccount controller's \"default\" in each namespace"},
		"nodes":           {int64(c.Nodes), b.Node, "Nodes"},
		"leases": {int64(c.Nodes + 2 + c.APIServers), b.Lease,
			"one per node (kube-node-lease), two leaders', one per apiserver"},
		"pods":           {int64(c.Pods), b.Pod, "Pods"},
		"services":       {int64(c.Services), b.Service, "Services"},
		"endpoints":      {int64(c.Services), b.Endpoints, "one per Service"},
		"endpointslices": {svc * slices, b.EndpointSlice, fmt.Sprintf("per Service with pods, one per %d endpoints", m.lim.EndpointsPerSlice)},
		"deployments":    {int64(c.Deployments), b.Deployment, "Deployments"},
		"replicasets":    {int64(c.Deployments), b.ReplicaSet, "one per Deployment (no rollout history kept)"},
		"events": {events, b.Event, fmt.Sprintf("events written in the last %s (the event TTL and the lease's reuse window), each removed when its lease expires",
			ttl)},
	}
	for _, r := range kube.Resources() {
		o := counts[r.Name]
		key := len(resourcePrefix(r)) + nameBytes(r.Name)
		if nameBytes(r.Name) == 0 {
			key += 12
		}
		if r.Namespaced {
			key += len("default/")
		}
		m.l.Objects = append(m.l.Objects, Objects{Resource: r.Name, Prefix: resourcePrefix(r), Count: o.n, Bytes: o.bytes, KeyBytes: key, Source: o.src})
	}
	var grants float64
	for _, e := range m.eventShares() {
		if e > 0 {
			// A lease is reused for EventLeaseReuse, then the next
			// event (1/e later) grants one; or every 1,000 events.
			grants += math.Max(1/(m.lim.EventLeaseReuse.Seconds()+1/e), e/float64(m.lim.EventLeaseMaxObjects))
		}
	}
	m.l.Leases = EventLeases{GrantsPerSecond: grants, TTL: ttl, Alive: int64(math.Round(grants * ttl.Seconds())),
		Source: fmt.Sprintf("each apiserver's lease manager grants a lease of the event TTL plus its reuse window and reuses it for %s or %d events: %s",
			m.lim.EventLeaseReuse, m.lim.EventLeaseMaxObjects, m.src.APIServer)}
	if m.l.Leases.Alive > 0 {
		m.l.Leases.ObjectsPerLease = float64(events) / float64(m.l.Leases.Alive)
	}
	m.other("lease-grant", "events", "event leases", grants, m.l.Leases.Source)
	m.other("delete", "events", "events expiring with their lease", eventWrites,
		"in steady state as many events expire (their lease's TTL) as are created: a delete each, outside etcd_requests_total")
}

// totals: revisions, watch events, the database's size.
func (m *modeller) totals() {
	obj := map[string]Objects{}
	for _, o := range m.l.Objects {
		obj[o.Resource] = o
	}
	watched := map[string]bool{}
	for _, r := range m.l.WatchedResources {
		watched[r] = true
	}
	var revs, watchEvents, writeBytes float64
	perRes := map[string]float64{}
	for _, r := range m.l.Rates {
		if r.Verb != "create" && r.Verb != "update" && r.Verb != "delete" {
			continue
		}
		n := r.PerSecond
		if f := m.failed[[2]string{r.Verb, r.Resource}]; f > 0 {
			n -= f
			delete(m.failed, [2]string{r.Verb, r.Resource}) // taken off once, from the first row
		}
		revs += n
		perRes[r.Resource] += n
		o := obj[r.Resource]
		switch r.Verb {
		case "create":
			writeBytes += n * float64(o.KeyBytes+createBytes(m.c, r.Resource, o.Bytes))
		case "update":
			writeBytes += n * float64(o.KeyBytes+o.Bytes)
		default:
			writeBytes += n * float64(o.KeyBytes)
		}
	}
	for _, r := range m.l.Other {
		if r.Verb == "delete" && r.Resource == "events" {
			revs += r.PerSecond
			writeBytes += r.PerSecond * float64(obj["events"].KeyBytes)
		}
	}
	names := make([]string, 0, len(perRes))
	for r := range perRes {
		names = append(names, r)
	}
	sort.Strings(names)
	for _, r := range names {
		if watched[r] {
			e := perRes[r] * float64(m.c.APIServers)
			watchEvents += e
			m.other("watch-event", r, "watch events to the apiservers' watch caches", e,
				"every write of a watched resource is an event to each apiserver's watch cache of it (prev_kv): writes × apiservers")
		}
	}
	m.l.RevisionsPerSecond, m.l.WatchEventsPerSecond = revs, watchEvents
	var live float64
	for _, o := range m.l.Objects {
		live += float64(o.Count) * float64(o.KeyBytes+o.Bytes)
	}
	history := writeBytes * 2 * m.lim.CompactionInterval.Seconds()
	m.l.DBBytes = int64((live + history) / 0.9)
	c := m.c
	m.l.Notes = append(m.l.Notes,
		fmt.Sprintf("etcd serves %d watches (%d apiservers × %d watched resources, prev_kv); the %d client watches per apiserver are served from its watch cache, not etcd",
			m.l.EtcdWatches, c.APIServers, len(m.l.WatchedResources), c.WatchersPerAPIServer),
		fmt.Sprintf("churn %.3g pods/s is %.3g Deployments (of %.1f pods) deleted and created again a second, with their Services, as bench kube churns",
			c.Churn, c.Churn/m.replicas(), m.replicas()),
		"database: "+DBMethod,
		"not modelled: ConfigMaps and Secrets, CRDs, DaemonSets, Jobs, the node lifecycle controller's and other controllers' writes, "+
			"re-lists after watch failures, and the coalescing of status writes when a controller runs at its client's QPS limit")
	if c.HollowKubelets {
		m.l.Notes = append(m.l.Notes, "hollow kubelets: no kubelet events; their pods turn Ready with their first status, so ReplicaSet and "+
			"Deployment status writes coalesce more than the model counts (bench kube: 7.5 and 5.5 a churn of 10 replicas against 14 and 13)")
	}
}

// createBytes is a resource's object size when created: a pod before its
// node and status, every other kind at its stored size.
func createBytes(c Cluster, res string, stored int) int {
	if res == "pods" {
		return c.Bytes.PodCreate
	}
	return stored
}

// Total returns the storage layer's requests per second of verb on
// resource, over every mechanism.
func (l Load) Total(verb, resource string) float64 {
	var s float64
	for _, r := range l.Rates {
		if r.Verb == verb && r.Resource == resource {
			s += r.PerSecond
		}
	}
	return s
}

// Writes and Reads are the storage layer's creates, updates and deletes,
// and its gets, lists and counts, per second.
func (l Load) Writes() float64 {
	return l.sum(func(v string) bool { return v == "create" || v == "update" || v == "delete" })
}
func (l Load) Reads() float64 {
	return l.sum(func(v string) bool { return v == "get" || v == "list" || v == "listWithCount" })
}

func (l Load) sum(ok func(string) bool) float64 {
	var s float64
	for _, r := range l.Rates {
		if ok(r.Verb) {
			s += r.PerSecond
		}
	}
	return s
}
