package jobs

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/result"
)

// MaintenanceJob is a maintenance policy applied to a fresh local cluster
// under a steady background load, in rounds: the database filled to DB
// bytes and fragmented, then each round the operation run on the members
// the order names, Pause apart, each when the trigger says so, and what
// the clients (every request of the load, exactly) and the members
// (leader changes, heartbeat failures, slow applies) saw meanwhile.
type MaintenanceJob struct {
	// Op is the operation: defragment (default), compact, snapshot or
	// catch-up (result's Op constants).
	Op string `yaml:"op"`
	// Order is which members and in what order: leader-last (followers
	// in name order, then the leader; default), leader-first, leader (the
	// leader alone), follower (one follower).
	Order string `yaml:"order"`
	// Pause is the wait between two members' operations (OpenShift's
	// defrag controller: 36 s).
	Pause job.Duration `yaml:"pause"`
	// Trigger is when a member's operation runs: always (default), or
	// openshift (a defragmentation when the member's database is over
	// 100 MB and at least 45% fragmented, as OpenShift's controller).
	Trigger string `yaml:"trigger"`
	// Base marks the policy the others are compared with.
	Base bool `yaml:"base"`
	// Leader moves the leadership here first ("" leaves it).
	Leader string `yaml:"leader"`
	// DB is the database's size before each round ("256MiB"), of values
	// of ValueBytes (default 16 KiB, a Kubernetes object's order), of
	// which Fragmentation (0 to 0.9) is deleted and compacted away
	// before each round (a fresh set each round).
	DB            string  `yaml:"db"`
	ValueBytes    int     `yaml:"value_bytes"`
	Fragmentation float64 `yaml:"fragmentation"`
	// Load are bench command lines run in the background for the whole
	// cell (the Kubernetes-shaped `replay sample:kube`, for example), each
	// once per member and pinned to it (a stacked control plane's
	// apiserver); their --duration is set to cover it.
	Load []string `yaml:"load"`
	// Rounds is how many times the policy runs (default 1); two or more
	// give the spread the policy table tests differences against.
	Rounds int `yaml:"rounds"`
	// Settle is the wait before each round's first operation, and the
	// "before" window's length (default 5s); Tail the wait after its
	// last (default 3s).
	Settle job.Duration `yaml:"settle"`
	Tail   job.Duration `yaml:"tail"`
	// Keep is a compaction's window: the revisions kept (compact to the
	// current revision − Keep); Versions is how many versions of a few
	// keys are written before each round's compaction (default 100,000),
	// 16 to a transaction: a compaction's work is the versions it
	// removes (etcd's batch limit counts them), the revisions are fewer.
	Keep     int64 `yaml:"keep"`
	Versions int64 `yaml:"versions"`
	// Entries is a catch-up's distance: what is written while the member
	// is down (default: the fault's, past the leader's snapshot).
	Entries int64 `yaml:"entries"`
}

// Orders and triggers.
const (
	OrderLeaderLast  = result.OrderLeaderLast
	OrderLeaderFirst = result.OrderLeaderFirst
	OrderLeader      = result.OrderLeader
	OrderFollower    = result.OrderFollower
	TriggerAlways    = "always"
	TriggerOpenShift = "openshift"
)

// maintOps, maintOrders and maintTriggers are what the fields take, in
// the order messages list them.
func maintOps() []string {
	return []string{result.OpDefragment, result.OpCompact, result.OpSnapshot, result.OpCatchUp}
}
func maintOrders() []string {
	return []string{OrderLeaderLast, OrderLeaderFirst, OrderLeader, OrderFollower}
}
func maintTriggers() []string { return []string{TriggerAlways, TriggerOpenShift} }

// OpenShift's defrag controller's trigger (openshift/cluster-etcd-operator
// pkg/operator/defragcontroller: minDefragBytes 100 MB,
// maxFragmentedPercentage 45).
const (
	openShiftMinBytes      = 100_000_000
	openShiftFragmentation = 0.45
)

// Defaults.
const (
	defaultMaintValue    = 16 << 10
	defaultMaintSettle   = 5 * time.Second
	defaultMaintTail     = 3 * time.Second
	defaultMaintVersions = 100_000
	maxMaintRounds       = 20
)

func (m *MaintenanceJob) op() string      { return cmp.Or(m.Op, result.OpDefragment) }
func (m *MaintenanceJob) order() string   { return cmp.Or(m.Order, OrderLeaderLast) }
func (m *MaintenanceJob) trigger() string { return cmp.Or(m.Trigger, TriggerAlways) }
func (m *MaintenanceJob) rounds() int     { return max(m.Rounds, 1) }
func (m *MaintenanceJob) valueBytes() int { return cmp.Or(m.ValueBytes, defaultMaintValue) }
func (m *MaintenanceJob) versions() int64 { return cmp.Or(m.Versions, defaultMaintVersions) }
func (m *MaintenanceJob) settle() time.Duration {
	return cmp.Or(m.Settle.D(), defaultMaintSettle)
}
func (m *MaintenanceJob) tail() time.Duration { return cmp.Or(m.Tail.D(), defaultMaintTail) }

// dbBytes is DB in bytes (0 for none; check has refused what does not
// parse).
func (m *MaintenanceJob) dbBytes() int64 {
	if m.DB == "" {
		return 0
	}
	b, _ := humanize.ParseBytes(m.DB)
	return int64(b)
}

// check returns the path and text of the first thing wrong with m's
// fields.
func (m *MaintenanceJob) check() ([]any, error) {
	if !slices.Contains(maintOps(), m.op()) {
		return []any{"op"}, fmt.Errorf("%q: want one of %s", m.Op, strings.Join(maintOps(), ", "))
	}
	if !slices.Contains(maintOrders(), m.order()) {
		return []any{"order"}, fmt.Errorf("%q: want one of %s", m.Order, strings.Join(maintOrders(), ", "))
	}
	if !slices.Contains(maintTriggers(), m.trigger()) {
		return []any{"trigger"}, fmt.Errorf("%q: want one of %s", m.Trigger, strings.Join(maintTriggers(), ", "))
	}
	if m.trigger() == TriggerOpenShift && m.op() != result.OpDefragment {
		return []any{"trigger"}, fmt.Errorf("openshift's trigger is a defragmentation's")
	}
	if m.op() == result.OpCompact && m.Order != "" {
		return []any{"order"}, fmt.Errorf("a compaction is the cluster's, not a member's: give no order")
	}
	if m.DB != "" {
		b, err := humanize.ParseBytes(m.DB)
		if err != nil || b == 0 || b > 64<<30 {
			return []any{"db"}, fmt.Errorf("%q: want a size such as 256MiB, up to 64GiB", m.DB)
		}
	}
	if m.ValueBytes < 0 || m.ValueBytes > maxFillValue {
		return []any{"value_bytes"}, fmt.Errorf("%d: want 1 to %d", m.ValueBytes, maxFillValue)
	}
	if m.Fragmentation < 0 || m.Fragmentation > 0.9 || (m.Fragmentation > 0 && m.DB == "") {
		return []any{"fragmentation"}, fmt.Errorf("%g: want 0 to 0.9 of a db given", m.Fragmentation)
	}
	if m.Rounds < 0 || m.Rounds > maxMaintRounds {
		return []any{"rounds"}, fmt.Errorf("%d: want 1 to %d", m.Rounds, maxMaintRounds)
	}
	if m.Pause < 0 || m.Settle < 0 || m.Tail < 0 || m.Keep < 0 || m.Versions < 0 || m.Entries < 0 {
		return nil, fmt.Errorf("pause, settle, tail, keep, versions and entries must not be negative")
	}
	return nil, nil
}

// checkMembers returns what is wrong with m on a setup of members.
func (m *MaintenanceJob) checkMembers(members int) ([]any, error) {
	if m.Leader != "" && !isMember(m.Leader, members) {
		return []any{"leader"}, fmt.Errorf("%q is not a member (m1 to m%d)", m.Leader, members)
	}
	if members < 2 && (m.order() == OrderFollower || m.op() == result.OpCatchUp) {
		return []any{"order"}, fmt.Errorf("a follower's operation needs two members or more")
	}
	return nil, nil
}

// policy says the job's policy in words.
func (m *MaintenanceJob) policy() string {
	var b strings.Builder
	b.WriteString(m.op())
	switch m.order() {
	case OrderLeaderLast:
		b.WriteString(", followers first and the leader last")
	case OrderLeaderFirst:
		b.WriteString(", the leader first")
	case OrderLeader:
		b.WriteString(", the leader alone")
	case OrderFollower:
		b.WriteString(", one follower")
	}
	if m.op() == result.OpCompact {
		b.Reset()
		b.WriteString("compact to the current revision")
		if m.Keep > 0 {
			fmt.Fprintf(&b, " − %d", m.Keep)
		}
		return b.String()
	}
	if m.Pause > 0 {
		fmt.Fprintf(&b, ", %s apart", m.Pause.D())
	} else if m.order() == OrderLeaderLast || m.order() == OrderLeaderFirst {
		b.WriteString(", back to back")
	}
	if m.trigger() == TriggerOpenShift {
		b.WriteString(", when ≥ 45% fragmented and > 100 MB (OpenShift)")
	}
	return b.String()
}
