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
}

// BlockedSeconds is the longest window the member could not serve, 0
// when it always could.
func (m MaintenanceOp) BlockedSeconds() float64 {
	if m.Blocked == nil {
		return 0
	}
	return m.Blocked.LongestSeconds
}
