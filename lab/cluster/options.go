// Package cluster runs a real local etcd cluster: N members, each a child
// process of the calling program, on loopback with ports it finds itself,
// optionally over TLS. It is what `etcdlab cluster up` and every test that
// needs etcd stand on.
package cluster

import (
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"time"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/member"
)

// Limits on the number of members.
const (
	MinMembers = 1
	MaxMembers = 7
)

// DefaultStartTimeout bounds how long Start waits for a healthy cluster.
const DefaultStartTimeout = 30 * time.Second

// Options configure a cluster. The zero value (plus Members) is a plaintext
// cluster in a new directory under ./.etcdlab on free loopback ports.
type Options struct {
	// Members is the number of members, 1 to 7.
	Members int
	// DataDir is the cluster's directory. Empty means a new temporary
	// directory under BaseDir, removed at Stop. An existing directory that
	// holds an etcdlab cluster is restarted with that cluster's data.
	DataDir string
	// BaseDir is where a temporary DataDir is made; empty means
	// ./.etcdlab, on the current directory's filesystem (the disk the user
	// means to test).
	BaseDir string
	// KeepData keeps the data directory at Stop.
	KeepData bool
	// Host is the loopback address members listen on; default 127.0.0.1.
	Host string
	// PortBase, if non-zero, gives member i (from 0) the client port
	// PortBase+3i, the peer port PortBase+3i+1 and the metrics port
	// PortBase+3i+2. Zero means free ports are found.
	PortBase int
	// TLS serves clients and peers over TLS with a throw-away CA.
	TLS bool
	// ClientTLSDir is where ca.crt, client.crt and client.key are written
	// when TLS is set; empty means DataDir/tls.
	ClientTLSDir string
	// Tuning is passed to every member.
	Tuning member.Tuning
	// FsyncDelay, if set, mounts a slow file system (FUSE, root only) over
	// every member's data dir that adds this delay to each fsync and
	// fdatasync; FsyncWALOnly limits it to the WAL. The mounts exist only
	// in a mount namespace of the members' and end with it.
	FsyncDelay   *slowfs.Delay
	FsyncWALOnly bool
	// MemberFsyncDelay overrides FsyncDelay for the members it names.
	MemberFsyncDelay map[string]*slowfs.Delay
	// FsyncBy is how FsyncDelay is added: FsyncByFUSE (empty: the slow
	// file system above) or FsyncBySeccomp (emulate/syscalldelay: each
	// member starts through a shim whose seccomp filter hands its fsync and
	// fdatasync calls to a supervisor in this process, which sleeps the
	// delay, then lets the kernel run the call; no mount, no FUSE, a few
	// microseconds of its own per sync, so delays well under FUSE's
	// 1.4-2.8 ms floor mean what they say). With FsyncBySeccomp only the
	// member's own syncs are slowed: another process syncing in its data
	// dir (the disk job's fio) is not, so SlowedOps leaves out "fsync".
	FsyncBy string
	// ReadDelay and WriteDelay, if set, slow every member's disk further
	// (the same mount): each read that misses the page cache waits
	// ReadDelay, each O_DIRECT write WriteDelay (slowfs.Options).
	ReadDelay, WriteDelay *slowfs.Delay
	// CPUs, if positive, is each member's CPU budget in cores (0.5, 4): its
	// process runs in a cgroup whose CPU quota is that many cores per
	// 100 ms period (cgroup v2 cpu.max, v1 cpu.cfs_quota_us), so one
	// machine behaves like members with their own cores. MemberCPUs
	// overrides it for the members it names. Without a cgroup the lab can
	// write, Start fails with the reason (BudgetError). No cgroup is made
	// without a budget.
	CPUs       float64
	MemberCPUs map[string]float64
	// Memory, if positive, is each member's memory limit in bytes, in the
	// same cgroup (v2 memory.max, v1 memory.limit_in_bytes): past it the
	// kernel reclaims the member's page cache, then kills it.
	Memory int64
	// Leader, if set, is the member Start hands the leadership to once the
	// cluster is ready (MoveLeader), so that a write path does not depend
	// on who won the election.
	Leader string
	// Links, if not nil (even empty), emulates a network: the members run
	// in a network namespace of their own (root only) and every connection
	// between them, or from a client, goes through the directed link of
	// its endpoints (member names, or ClientNode). Links not listed pass
	// bytes straight through; all can be changed while the cluster runs.
	Links map[wan.Dir]wan.Link
	// StartTimeout bounds the wait for a healthy cluster.
	StartTimeout time.Duration
	// Executable is the program run for each member, with the arguments
	// "member --config FILE". Empty means the running executable, which must
	// be etcdlab or a test binary whose TestMain calls member.RunIfChild.
	Executable string
	// Etcd, if set, is the etcd every member runs instead of the one
	// embedded in Executable: the path of an etcd binary (`ETCD
	// --config-file FILE`: 3.4 and newer), or a version (3.5.35, 3.7)
	// built once from etcd's modules (package etcdbuild). Its version is
	// read with --version and recorded in the state. MemberEtcd overrides
	// it for the members it names (a mixed cluster).
	Etcd       string
	MemberEtcd map[string]string
	// Log receives progress and warnings for a person; nil discards them.
	Log io.Writer
	// OnExit, if set, is called when a member process exits while the
	// cluster is running (not during Stop). It is called from a goroutine
	// of the cluster and must not block.
	OnExit func(name string, err error)
}

// fsyncDelay is member name's slow-disk delay, or nil.
func (o *Options) fsyncDelay(name string) *slowfs.Delay {
	if d, ok := o.MemberFsyncDelay[name]; ok {
		return d
	}
	return o.FsyncDelay
}

// The values of Options.FsyncBy.
const (
	FsyncByFUSE    = "fuse"
	FsyncBySeccomp = "seccomp"
)

// bySeccomp reports whether the fsync delay goes through seccomp.
func (o *Options) bySeccomp() bool { return o.FsyncBy == FsyncBySeccomp }

// syscallDelay is member name's fsync delay when it is added through
// seccomp, or nil.
func (o *Options) syscallDelay(name string) *slowfs.Delay {
	if !o.bySeccomp() {
		return nil
	}
	return o.fsyncDelay(name)
}

// SlowedOps lists what member name's slow disk delays, of "fsync",
// "read" and "write" (O_DIRECT writes), in that order; nil when its data
// dir is no slow file system.
func (o *Options) SlowedOps(name string) []string {
	var ops []string
	for _, op := range []struct {
		name string
		d    *slowfs.Delay
	}{{"fsync", o.fuseFsyncDelay(name)}, {"read", o.ReadDelay}, {"write", o.WriteDelay}} {
		if op.d != nil {
			ops = append(ops, op.name)
		}
	}
	return ops
}

// fuseFsyncDelay is member name's fsync delay when the slow file system
// adds it, or nil.
func (o *Options) fuseFsyncDelay(name string) *slowfs.Delay {
	if o.bySeccomp() {
		return nil
	}
	return o.fsyncDelay(name)
}

// slowDisk reports whether any member gets a slow file system (FUSE).
func (o *Options) slowDisk() bool {
	return o.ReadDelay != nil || o.WriteDelay != nil || (!o.bySeccomp() && o.anyFsyncDelay())
}

// seccompDelays reports whether any member's syncs go through seccomp.
func (o *Options) seccompDelays() bool {
	return o.bySeccomp() && o.anyFsyncDelay()
}

// anyFsyncDelay reports whether any member's syncs are delayed, by
// whichever mechanism.
func (o *Options) anyFsyncDelay() bool {
	if o.FsyncDelay != nil {
		return true
	}
	for _, d := range o.MemberFsyncDelay {
		if d != nil {
			return true
		}
	}
	return false
}

func (o *Options) setDefaults() error {
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find own executable: %w", err)
		}
		o.Executable = exe
	}
	return nil
}

// Validate checks the options a person typed and returns a one-line
// invalid-input error (package invalid) for the first bad one.
func (o Options) Validate() error {
	if o.FsyncBy != "" && o.FsyncBy != FsyncByFUSE && o.FsyncBy != FsyncBySeccomp {
		return invalid.Errorf("{FsyncBy} must be %q or %q, not %q", FsyncByFUSE, FsyncBySeccomp, o.FsyncBy)
	}
	if o.Members < MinMembers || o.Members > MaxMembers {
		return invalid.Errorf("{Members} must be between %d and %d, not %d", MinMembers, MaxMembers, o.Members)
	}
	if o.PortBase < 0 || (o.PortBase > 0 && o.PortBase+3*o.Members-1 > 65535) {
		return invalid.Errorf("{PortBase} %d leaves no room for %d members (each takes 3 ports)", o.PortBase, o.Members)
	}
	if o.Host != "" {
		ip := net.ParseIP(o.Host)
		if ip == nil || !ip.IsLoopback() {
			return invalid.Errorf("{Host} must be a loopback address (127.0.0.0/8 or ::1), not %q", o.Host)
		}
	}
	if err := validateLinks(o.Links, o.Members); err != nil {
		return err
	}
	if err := validateCPUs(o.CPUs, o.MemberCPUs, o.Members); err != nil {
		return err
	}
	if o.Memory != 0 && o.Memory < MinMemory {
		return invalid.Errorf("{Memory} must be at least %d MiB (etcd needs room for its database's pages), not %d bytes", MinMemory>>20, o.Memory)
	}
	for n := range o.MemberEtcd {
		if !isMemberName(n, o.Members) {
			return invalid.Errorf("{MemberEtcd}: no member %q in a %d-member cluster", n, o.Members)
		}
	}
	if o.Leader != "" && !isMemberName(o.Leader, o.Members) {
		return invalid.Errorf("{Leader} must be a member, m1 to m%d, not %q", o.Members, o.Leader)
	}
	return o.Tuning.Validate()
}

// validateLinks checks that every link joins two different known ends:
// members m1..mN (a kept cluster's names follow the same scheme) or
// ClientNode, and that no link joins two clients.
func validateLinks(links map[wan.Dir]wan.Link, members int) error {
	known := func(n string) bool {
		if n == ClientNode {
			return true
		}
		for i := range members {
			if n == memberName(i+1) {
				return true
			}
		}
		return false
	}
	dirs := make([]wan.Dir, 0, len(links))
	for d := range links {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool { return dirs[i].String() < dirs[j].String() }) // the same error every time
	for _, d := range dirs {
		l := links[d]
		switch {
		case !known(d.From):
			return invalid.Errorf("link %s: no member %q in a %d-member cluster", d, d.From, members)
		case !known(d.To):
			return invalid.Errorf("link %s: no member %q in a %d-member cluster", d, d.To, members)
		case d.From == d.To:
			return invalid.Errorf("link %s: a link joins two different members", d)
		case d.From == ClientNode && d.To == ClientNode:
			return invalid.Errorf("link %s: a link joins two different members", d)
		}
		if err := l.Validate(); err != nil {
			return invalid.Errorf("link %s: %v", d, err)
		}
	}
	return nil
}

// Warnings returns advice about valid but questionable options.
func (o Options) Warnings() []string {
	var w []string
	if o.Members > 1 && o.Members%2 == 0 {
		w = append(w, fmt.Sprintf("warning: %d members tolerate no more failures than %d and need a larger quorum (%d); odd sizes are usual",
			o.Members, o.Members-1, o.Members/2+1))
	}
	return w
}
