package result

// KindSize is the kind of `etcdlab size`'s document.
const KindSize = "size"

// Size is `etcdlab size`'s answer: for a Kubernetes cluster to plan for
// (Target), the etcd load it implies (Load), and per candidate cluster
// whether etcd holds that load within the SLOs (with the knee found by a
// search in the lab), its headroom, and the round-trip budget measured;
// then the smallest candidate that holds with headroom, beside etcd's
// hardware guide and OpenShift's sizing for the same node count.
type Size struct {
	Target SizeTarget `json:"target"`
	Load   SizeLoad   `json:"load"`
	// SLOs are what every probe was judged by, each with its source.
	SLOs       []SizeSLO       `json:"slos"`
	Candidates []SizeCandidate `json:"candidates"`
	// Choice names the smallest candidate (fewest cores in all, then
	// fewest members) that holds at the target with headroom; "" when
	// none does, and ChoiceWhy says why.
	Choice    string `json:"choice,omitempty"`
	ChoiceWhy string `json:"choice_why"`
	// RTT is the round-trip budget measured on one candidate (Choice, or
	// the first that held), beside OpenShift's rule; nil when not searched.
	RTT *SizeRTT `json:"rtt,omitempty"`
	// Guide is the published sizing for the same node count: etcd's
	// hardware guide tier and OpenShift's control-plane sizing, each with
	// where and why etcdlab's answer differs.
	Guide []SizeGuide `json:"guide,omitempty"`
	// Method states how the lab's figures stand for the candidates': the
	// search, and the scaling where a candidate did not fit this machine.
	Method []string `json:"method"`
	// Quick says the search was the quick one (shorter probes, coarser
	// bisection).
	Quick bool `json:"quick,omitempty"`
	// Machine is this machine's cores, and LabCores the budget the lab gave
	// all members of one probe together.
	MachineCores int     `json:"machine_cores"`
	LabCores     float64 `json:"lab_cores"`
	// IdleMemberCores is a member's CPU with no load (heartbeats, the
	// metrics scrapes), measured here: the part of a budget the scaling
	// does not scale.
	IdleMemberCores float64  `json:"idle_member_cores"`
	Seconds         float64  `json:"seconds"`
	Notes           []string `json:"notes,omitempty"`
}

// SizeTarget is the Kubernetes cluster planned for, or the profile of a
// live one and the scale it was played at.
type SizeTarget struct {
	Nodes       int     `json:"nodes,omitempty"`
	Pods        int     `json:"pods,omitempty"`
	Namespaces  int     `json:"namespaces,omitempty"`
	Services    int     `json:"services,omitempty"`
	Deployments int     `json:"deployments,omitempty"`
	APIServers  int     `json:"apiservers,omitempty"`
	Watchers    int     `json:"watchers_per_apiserver,omitempty"`
	Churn       float64 `json:"churn_pods_per_second,omitempty"`
	// ObjectBytes is the stored size per kind ("Pod": 15000).
	ObjectBytes map[string]int `json:"object_bytes,omitempty"`
	// Profile is the profile file the load came from instead, and Scale
	// what its rates and keys were multiplied by.
	Profile string  `json:"profile,omitempty"`
	Scale   float64 `json:"scale,omitempty"`
	// Sources say where each default came from.
	Sources []string `json:"sources,omitempty"`
}

// SizeLoad is the etcd load the target implies, at the target (the
// multiplier 1).
type SizeLoad struct {
	WritesPerSecond float64 `json:"writes_per_second"`
	ReadsPerSecond  float64 `json:"reads_per_second"`
	// WatchEventsPerSecond is what etcd sends its watchers; Watches how
	// many it serves.
	WatchEventsPerSecond float64 `json:"watch_events_per_second"`
	Watches              int     `json:"watches"`
	Keys                 int64   `json:"keys"`
	// DBBytes is the projected database size, DBMethod how it was
	// projected, QuotaBytes the quota it is judged against (80%).
	DBBytes    int64  `json:"db_bytes"`
	DBMethod   string `json:"db_method"`
	QuotaBytes int64  `json:"quota_bytes"`
	// Rates are the largest requests per verb and resource, with sources.
	Rates []SizeRate `json:"rates,omitempty"`
	// Model names the model or the profile the load came from.
	Model string `json:"model"`
}

// SizeRate is one kind of request in the load.
type SizeRate struct {
	Verb      string  `json:"verb"`
	Resource  string  `json:"resource,omitempty"`
	PerSecond float64 `json:"per_second"`
	Source    string  `json:"source,omitempty"`
}

// SizeSLO is one objective a probe is judged by: Limit in Unit, where
// higher is worse.
type SizeSLO struct {
	Name   string  `json:"name"`
	Limit  float64 `json:"limit"`
	Unit   string  `json:"unit"`
	Source string  `json:"source"`
}

// Names of the SLOs (SizeSLO.Name, SizeProbe.Broke).
const (
	SLOMutatingP99 = "mutating p99"
	SLOWALFsyncP99 = "WAL fsync p99"
	SLOCommitP99   = "backend commit p99"
	SLOLeader      = "leader changes"
	SLOSlowApplies = "slow applies"
	SLODBQuota     = "database vs quota"
	SLORate        = "load carried"
	SLOMemberCPU   = "member CPU"
)

// SizeCandidate is one candidate cluster and what the lab found for it.
type SizeCandidate struct {
	Name    string  `json:"name"`
	Members int     `json:"members"`
	CPUs    float64 `json:"cpus"`
	Disk    string  `json:"disk"`
	RTTMs   float64 `json:"rtt_ms,omitempty"`
	Version string  `json:"version,omitempty"`
	// Scale is the factor the lab ran the candidate at: its load and
	// (beyond the idle share) its members' CPU budgets times Scale; 1 is
	// the candidate itself. LabCPUs is each member's budget in the lab.
	Scale   float64 `json:"scale"`
	LabCPUs float64 `json:"lab_cpus"`
	// Holds says every SLO held at the target (multiplier 1).
	Holds bool `json:"holds"`
	// Knee is the largest multiplier of the target at which every SLO
	// held (KneeNodes its nodes); Above says it held at the largest
	// multiplier probed (the knee is at least that), Below that it broke
	// at the smallest (at most that).
	Knee      float64 `json:"knee"`
	KneeNodes int     `json:"knee_nodes"`
	Above     bool    `json:"above,omitempty"`
	Below     bool    `json:"below,omitempty"`
	// BrokeFirst is the SLO that broke at the smallest multiplier that
	// broke, and Why the bottleneck statement there.
	BrokeFirst string `json:"broke_first,omitempty"`
	Why        string `json:"why,omitempty"`
	// Headroom is the busiest member's CPU at the target as a share of
	// its budget (projected to the candidate); HeadroomOK that it is at
	// most OpenShift's 60%.
	Headroom   float64 `json:"headroom"`
	HeadroomOK bool    `json:"headroom_ok"`
	// DBBytes is the database projected at the target, DBShare its share
	// of the quota.
	DBBytes int64   `json:"db_bytes"`
	DBShare float64 `json:"db_share"`
	// Error says why the candidate could not be measured.
	Error  string      `json:"error,omitempty"`
	Probes []SizeProbe `json:"probes,omitempty"`
}

// SizeProbe is one run of the search: the target's load times
// Multiplier (and the candidate's Scale) on a fresh cluster.
type SizeProbe struct {
	Multiplier float64 `json:"multiplier"`
	Nodes      int     `json:"nodes"`
	Pods       int     `json:"pods"`
	Churn      float64 `json:"churn"`
	RTTMs      float64 `json:"rtt_ms,omitempty"`
	Holds      bool    `json:"holds"`
	// Broke lists the SLOs that did not hold, worst first.
	Broke []string `json:"broke,omitempty"`
	// NotRun says why the probe was judged without a run (the database
	// projected at its size already breaks the quota SLO); its figures
	// are then not measured.
	NotRun string `json:"not_run,omitempty"`
	// Inconclusive says why the probe could not judge the cluster (the
	// load generator was the limit); such a probe neither holds nor
	// breaks.
	Inconclusive string `json:"inconclusive,omitempty"`
	// The figures judged (seconds, counts, bytes; the busiest member).
	MutatingP99   float64 `json:"mutating_p99_seconds"`
	WALFsyncP99   float64 `json:"wal_fsync_p99_seconds"`
	CommitP99     float64 `json:"backend_commit_p99_seconds"`
	LeaderChanges float64 `json:"leader_changes"`
	SlowApplies   float64 `json:"slow_applies"`
	// RateWant and RateGot are the requests per second asked and done.
	RateWant float64 `json:"rate_want"`
	RateGot  float64 `json:"rate_got"`
	// MemberCPU is the busiest member's CPU in the lab, in cores;
	// CPUShare that CPU as the candidate's member would use it (the idle
	// share as it is, the rest over the candidate's Scale) as a share of
	// the candidate's cores: the figure the member-CPU SLO judges.
	MemberCPU float64 `json:"member_cpu_cores"`
	CPUShare  float64 `json:"cpu_share"`
	DBBytes   float64 `json:"db_bytes"`
	// PreloadShare is the share of the load's keyspace the probe stored
	// before its load (1: all; less when it was capped to keep probes
	// short: the database is then projected, not measured).
	PreloadShare float64 `json:"preload_share,omitempty"`
	Bottleneck   string  `json:"bottleneck,omitempty"`
	Error        string  `json:"error,omitempty"`
	Seconds      float64 `json:"seconds"`
}

// SizeRTT is the round-trip budget: the largest round trip between
// members at which every SLO held at the target, found by a search.
type SizeRTT struct {
	Candidate string `json:"candidate"`
	// BudgetMs held; BrokeMs is the smallest that broke (0: none did up to
	// the largest probed, and Above is set).
	BudgetMs float64 `json:"budget_ms"`
	BrokeMs  float64 `json:"broke_ms,omitempty"`
	Above    bool    `json:"above,omitempty"`
	// BrokeFirst is the SLO that broke at BrokeMs.
	BrokeFirst string `json:"broke_first,omitempty"`
	// OpenShift's rule for etcd's default 100 ms heartbeat: the average
	// round trip under 33 ms, the maximum under 66 ms.
	OpenShiftAvgMs float64     `json:"openshift_avg_ms"`
	OpenShiftMaxMs float64     `json:"openshift_max_ms"`
	OpenShiftRule  string      `json:"openshift_rule"`
	Probes         []SizeProbe `json:"probes,omitempty"`
}

// SizeGuide is one published sizing for the target's node count.
type SizeGuide struct {
	// Source is "etcd hardware guide" or "OpenShift"; Tier its row
	// ("large", "100 workers").
	Source   string  `json:"source"`
	Tier     string  `json:"tier"`
	Nodes    int     `json:"nodes"`
	CPUs     float64 `json:"cpus"`
	MemoryGB float64 `json:"memory_gb,omitempty"`
	IOPS     int     `json:"iops,omitempty"`
	// Differs says where and why etcdlab's answer differs ("" when it
	// agrees).
	Differs string `json:"differs"`
	Ref     string `json:"ref"`
}
