package result

import "time"

// The maintenance operations, as faults (lab/cluster) and records name
// them.
const (
	OpDefragment  = "defragment"
	OpCompact     = "compact"
	OpSnapshot    = "snapshot"
	OpCatchUp     = "catch-up"
	OpAlarmDisarm = "alarm-disarm"
)

// The orders of a maintenance policy (Maintenance.Order): followers in
// name order then the leader, the leader then the followers, the leader
// alone, one follower.
const (
	OrderLeaderLast  = "leader-last"
	OrderLeaderFirst = "leader-first"
	OrderLeader      = "leader"
	OrderFollower    = "follower"
)

// MaintenanceOp is one maintenance operation as it happened on a lab
// cluster: what was done to which member, when it began and ended, what
// the member and the cluster could not serve meanwhile, and the figures
// of its kind (database sizes for a defragmentation, the revision for a
// compaction, the file for a snapshot, the distance for a catch-up). It
// is a plain value.
type MaintenanceOp struct {
	Op     string `json:"op"`               // one of the Op constants
	Member string `json:"member,omitempty"` // "" for the cluster's own (compact)
	// Began and Ended bracket the operation as its client saw it (the
	// request sent, its answer received; a catch-up: the member started,
	// its applied index at the leader's).
	Began   time.Time `json:"began"`
	Ended   time.Time `json:"ended"`
	Seconds float64   `json:"seconds"`
	// Blocked are the windows in which the member answered none of a
	// canary's requests sent to it alone (a linearizable read every
	// MemberCanaryEvery): what a client of that member saw. nil: none.
	Blocked *Unavailability `json:"blocked,omitempty"`
	// Cluster are the windows in which no member answered: the cluster's
	// unavailability. nil: none.
	Cluster *Unavailability `json:"cluster,omitempty"`

	// DBBytesBefore and DBBytesAfter are the member's database file
	// before and after; DBInUseBefore the bytes in use before (a
	// defragmentation's fragmentation is 1 − in use / size).
	DBBytesBefore int64 `json:"db_bytes_before,omitempty"`
	DBBytesAfter  int64 `json:"db_bytes_after,omitempty"`
	DBInUseBefore int64 `json:"db_in_use_before,omitempty"`
	// Revision is what a compaction compacted to, Revisions how many it
	// removed from the history (revision − the previous compaction's).
	Revision  int64 `json:"revision,omitempty"`
	Revisions int64 `json:"revisions,omitempty"`
	// Bytes is a snapshot's file size.
	Bytes int64 `json:"bytes,omitempty"`
	// Distance is how many raft entries a catch-up's member was behind
	// when it came back; SnapshotSent says the leader sent it a snapshot
	// (its log no longer held them).
	Distance     int64 `json:"distance,omitempty"`
	SnapshotSent bool  `json:"snapshot_sent,omitempty"`
	// Alarms are the alarms an alarm-disarm found (and disarmed), as
	// "m1: NOSPACE".
	Alarms []string `json:"alarms,omitempty"`
	Detail string   `json:"detail,omitempty"`
	Error  string   `json:"error,omitempty"`
	// Clients is what a background load's clients saw during the
	// operation (the maintenance job fills it), per operation of the load.
	Clients []OpWindow `json:"clients,omitempty"`
}

// BlockedSeconds is the longest window the member could not serve, 0
// when it always could.
func (m MaintenanceOp) BlockedSeconds() float64 {
	if m.Blocked == nil {
		return 0
	}
	return m.Blocked.LongestSeconds
}

// OpWindow is what one operation's requests saw in a window (load's
// Samples.Window): latencies from when each request was due (open loop)
// or sent (closed loop) to its answer, in seconds, percentiles exact
// (nearest rank) over the requests in flight at some time in the window.
// It is a plain value.
type OpWindow struct {
	Op       string  `json:"op"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	P50      float64 `json:"p50_seconds"`
	P99      float64 `json:"p99_seconds"`
	P999     float64 `json:"p999_seconds"`
	Max      float64 `json:"max_seconds"`
}

// Maintenance is a maintenance cell: a policy (which operation, on which
// members in which order, how far apart, when triggered) applied to a
// cluster under a steady load, in rounds, and what each round cost the
// clients and the members. It is a plain value.
type Maintenance struct {
	// Policy says it in words ("defragment, followers first and the
	// leader last, 36 s apart, when fragmentation ≥ 45% and the database
	// > 100 MB"); Op, Order, PauseSeconds and Trigger say it in fields.
	Policy       string  `json:"policy"`
	Op           string  `json:"op"`
	Order        string  `json:"order"`
	PauseSeconds float64 `json:"pause_seconds,omitempty"`
	Trigger      string  `json:"trigger"`
	// Base marks the policy the file compares the others with.
	Base bool `json:"base,omitempty"`
	// Load names the background load ("" none).
	Load   string             `json:"load,omitempty"`
	Rounds []MaintenanceRound `json:"rounds"`
}

// MaintenanceRound is one application of a policy: the database it met,
// the operations (skipped members say why), and what the clients and the
// members saw from the first operation's start to the last one's end
// (During) beside the same length of time just before it (Before).
type MaintenanceRound struct {
	// DBBytes and Fragmentation are the leader's database file and its
	// free share (1 − in use / size) when the round began.
	DBBytes       int64   `json:"db_bytes"`
	Fragmentation float64 `json:"fragmentation"`
	// Ops are the operations run, in order; Skipped the members the
	// trigger left, each "m2: 12% fragmented, below 45%".
	Ops     []MaintenanceOp `json:"ops,omitempty"`
	Skipped []string        `json:"skipped,omitempty"`
	// Began and Ended bracket the operations (the first's start, the
	// last's end); equal when none ran.
	Began time.Time `json:"began"`
	Ended time.Time `json:"ended"`
	// Before and During are the clients' view per operation of the load;
	// DroppedSamples says the request log was full (the figures then
	// miss requests).
	Before         []OpWindow `json:"before,omitempty"`
	During         []OpWindow `json:"during,omitempty"`
	DroppedSamples int64      `json:"dropped_samples,omitempty"`
	// Leader changes, heartbeat send failures and slow applies over every
	// member during the operations (counter increases; -1: not read).
	LeaderChanges     int64 `json:"leader_changes"`
	HeartbeatFailures int64 `json:"heartbeat_failures"`
	SlowApplies       int64 `json:"slow_applies"`
}

// WorstP99 is the highest p99 of any of the load's operations during
// the round's maintenance, and the operation; 0 and "" when none ran.
func (r MaintenanceRound) WorstP99() (float64, string) {
	return worst(r.During, func(w OpWindow) float64 { return w.P99 })
}

// WorstP999 is WorstP99 for p99.9.
func (r MaintenanceRound) WorstP999() (float64, string) {
	return worst(r.During, func(w OpWindow) float64 { return w.P999 })
}

// BeforeP99 is the highest p99 of the load's operations before the
// round's maintenance.
func (r MaintenanceRound) BeforeP99() float64 {
	v, _ := worst(r.Before, func(w OpWindow) float64 { return w.P99 })
	return v
}

// Errors are the load's failed requests during the maintenance.
func (r MaintenanceRound) Errors() int64 {
	var n int64
	for _, w := range r.During {
		n += w.Errors
	}
	return n
}

// Blocked is the longest window any member of the round could not
// serve.
func (r MaintenanceRound) Blocked() float64 {
	var b float64
	for _, o := range r.Ops {
		b = max(b, o.BlockedSeconds())
	}
	return b
}

func worst(ws []OpWindow, f func(OpWindow) float64) (float64, string) {
	var v float64
	var op string
	for _, w := range ws {
		if x := f(w); x > v {
			v, op = x, w.Op
		}
	}
	return v, op
}
