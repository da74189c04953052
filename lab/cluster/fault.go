package cluster

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/result"
)

// Fault is one kind of fault a local cluster can be given: killing a
// member, pausing it, cutting its links, and what undoes each, or moving
// every member to another etcd (upgrade, downgrade). Every user
// of faults (`etcdlab cluster fault`, the control socket, experiment
// timelines) finds them in one registry (LookupFault, ParseFault), so that
// a new kind of fault is one file that implements Fault plus one line in
// registry. A fault may have capabilities beyond it, each an interface
// its users ask for: LongFault (it lasts: About.Timeout), Preparer (work
// before the run), ArgsChecker (arguments checked beyond their number).
//
// Implementations are stateless values: safe for concurrent use.
type Fault interface {
	// About says what the fault is: its name, arguments, undo, and what
	// it may cost the cluster.
	About() About
	// Apply injects the fault into c, a cluster this process runs
	// (experiment timelines; the control socket on behalf of another
	// process). r.Args have passed Check.
	Apply(c *Cluster, r Request) error
	// Inject injects the fault into the cluster st describes, which
	// another etcdlab process runs (`etcdlab cluster fault`): through its
	// control socket, or by signalling the member's process. It returns
	// what it changed as lines for a person, those made before an error
	// too.
	Inject(ctx context.Context, st State, r Request) ([]string, error)
}

// About describes a kind of fault. It is a plain value.
type About struct {
	// Name is how the CLI, experiment files, result events and Counts
	// spell the fault ("kill").
	Name string
	// Args is what the fault takes after its name, for messages ("one
	// member name"); it takes from MinArgs to MaxArgs of them. Faults with
	// MinArgs 1 take a member first (an etcd when Etcd), and may be given
	// one alone (as experiment timelines do).
	Args             string
	MinArgs, MaxArgs int
	// Usage is the arguments' synopsis ("MEMBER", "A [B]") and Help what
	// the fault does, in one line, for a command's help.
	Usage, Help string
	// Undo names the fault that undoes this one (restart for kill), ""
	// when nothing does or when it is an undo itself; Undoes names the
	// fault this one undoes.
	Undo, Undoes string
	// UndoBeforeStop says a member left with this fault must be undone
	// even when its cluster is stopped next (a paused process would not
	// stop).
	UndoBeforeStop bool
	// CostsLeader says the fault may cost the cluster its leader, when it
	// hits the leader: the new one can be waited for (Election).
	CostsLeader bool
	// Emulated says the fault needs the cluster's emulated network
	// (Options.Links).
	Emulated bool
	// Etcd says the fault's one argument is an etcd (a version, a
	// binary's path, or "embedded"), not a member: an experiment file
	// gives a path relative to its directory, and a timeline resolves no
	// leader or follower for it.
	Etcd bool
	// Timeout marks a fault that lasts (upgrade: tens of seconds, members
	// replaced one at a time), which implements LongFault. Its users run
	// it in a goroutine of its own so that what comes next keeps its
	// time, and when they have nothing else to wait for (an experiment
	// cell's end) wait up to Timeout for it, then cancel its context. 0:
	// the fault is done when Apply returns.
	Timeout time.Duration
	// linkOp is the operation of the control socket's /v1/links that
	// applies the fault (LinkChange.Op), if any.
	linkOp string
}

// TakesMember reports whether the fault can be given one member alone.
func (a About) TakesMember() bool { return a.MinArgs == 1 && !a.Etcd }

// OnCluster reports whether the fault is the cluster's, not a member's
// (compact, alarm-disarm: no argument needed). Experiment timelines name
// its target ClusterTarget: `compact: cluster keep=100000`.
func (a About) OnCluster() bool { return a.MinArgs == 0 && !a.Etcd }

// ClusterTarget is how a timeline step names the cluster as a fault's
// target (About.OnCluster).
const ClusterTarget = "cluster"

// LongRunning reports whether the fault lasts (Timeout, LongFault).
func (a About) LongRunning() bool { return a.Timeout > 0 }

// LongFault is the capability of a fault that lasts (About.Timeout): it
// is applied under a context, which its user cancels when the timeout
// has passed, and says what it did as an Outcome, also when it stopped on
// an error. Implementations are stateless values, as Fault's.
type LongFault interface {
	Fault
	// Run applies the fault to c, a cluster this process runs, until it
	// is done or ctx ends.
	Run(ctx context.Context, c *Cluster, r Request) (Outcome, error)
	// RunIn injects it into the cluster st describes, which another
	// etcdlab process runs, until it is done or ctx ends.
	RunIn(ctx context.Context, st State, r Request) (Outcome, error)
}

// Outcome is what a long-running fault did. It is a plain value.
type Outcome struct {
	// Detail is one line for a person and a result's event ("3 members
	// to 3.6.16 in 41.2s"); "" when it did nothing.
	Detail string
	// Upgrade is a move of the members' etcd (upgrade, downgrade), as
	// far as it went; nil for other faults.
	Upgrade *result.Upgrade
	// Maintenance is a maintenance operation's record (defragment,
	// compact, snapshot, catch-up, alarm-disarm); nil for other faults.
	Maintenance *result.MaintenanceOp
}

// Preparer is the capability of a fault whose arguments need work that
// must not fall inside what it is timed against (an etcd version built
// from its modules): its users call Prepare before the run, once per
// request, and then apply the request it returns instead of r. log, when
// not nil, gets a line for a person about long work. It is safe for
// concurrent use.
type Preparer interface {
	Prepare(ctx context.Context, r Request, log io.Writer) (Request, error)
}

// ArgsChecker is the capability of a fault whose arguments are checked
// beyond their number (CheckFault): CheckArgs returns an invalid-input
// error for args it cannot take, and replaces the count check.
type ArgsChecker interface {
	CheckArgs(args []string) error
}

// Request is what to apply a fault to. It is a plain value.
type Request struct {
	// Args are the fault's arguments as the CLI takes them after its
	// name: member names, or a link's FROM and TO.
	Args []string
	// Link is the link's new parameters (link).
	Link wan.Link
	// Both also sets the link in the other direction (link).
	Both bool
}

// arg returns r's argument i, "" when there is none.
func (r Request) arg(i int) string {
	if i < len(r.Args) {
		return r.Args[i]
	}
	return ""
}

// registry lists every fault, in the order messages name them. A new
// fault is one line here.
func registry() []Fault {
	return []Fault{
		kill{},
		pause{},
		resume{},
		restart{},
		partition{},
		heal{},
		link{},
		cpuLimit{}, cpuUnlimit{},
		defrag{}, defragStop{},
		defragment{}, compact{}, snapshot{}, catchUp{}, alarmDisarm{},
		upgrade{}, downgrade{},
	}
}

// Faults returns every kind of fault, in the order messages name them.
func Faults() []Fault { return registry() }

// FaultNames lists the faults for a message: "kill, pause, ... or link".
func FaultNames() string {
	var names []string
	for _, f := range registry() {
		names = append(names, f.About().Name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// LookupFault returns the fault called name; an invalid-input error names
// the faults there are.
func LookupFault(name string) (Fault, error) {
	for _, f := range registry() {
		if f.About().Name == name {
			return f, nil
		}
	}
	return nil, invalid.Errorf("unknown fault %q: %s", name, FaultNames())
}

// ParseFault returns the fault called name after checking it takes args;
// both errors are invalid-input errors.
func ParseFault(name string, args []string) (Fault, error) {
	f, err := LookupFault(name)
	if err != nil {
		return nil, err
	}
	if err := CheckFault(f, args); err != nil {
		return nil, err
	}
	return f, nil
}

// CheckFault returns an invalid-input error unless f takes args.
func CheckFault(f Fault, args []string) error {
	if c, ok := f.(ArgsChecker); ok {
		return c.CheckArgs(args)
	}
	a := f.About()
	if len(args) < a.MinArgs || len(args) > a.MaxArgs {
		return invalid.Errorf("fault %s needs %s", a.Name, a.Args)
	}
	return nil
}

// faultByLinkOp returns the fault the control socket's /v1/links
// operation op applies.
func faultByLinkOp(op string) (Fault, bool) {
	for _, f := range registry() {
		if a := f.About(); a.linkOp != "" && a.linkOp == op {
			return f, true
		}
	}
	return nil, false
}
