package cluster

import (
	"fmt"
	"os"

	"github.com/etcdlab/etcdlab/lab/child"
	"github.com/etcdlab/etcdlab/lab/member"
)

// StartError says which member kept the cluster from starting, and why
// (lab/child's, as every child's: its Name is "member m1"). Its Error is
// one line; Detail has the tail of the member's log.
type StartError = child.StartError

// startTailLines is how many lines of a member's log a StartError
// carries.
const startTailLines = 8

// startMember launches the process of member name for the configuration
// at configPath from the cluster's spawning thread (so in its namespaces):
// exe's embedded etcd, or the etcd binary etcd when set. Its stdout and
// stderr are appended to logPath. The member reads fd 3, a pipe whose
// write end this process holds until the member is reaped: it sees EOF
// when etcdlab exits. c.exited runs once it is reaped. A member whose
// syncs are delayed through seccomp starts through the shim, exe, and has
// its supervisor before startMember returns.
func (c *Cluster) startMember(exe, etcd, name, configPath, logPath string) (*child.Process, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("member %s: %w", name, err)
	}
	defer pr.Close()
	cmd := memberCommand(exe, etcd, configPath)
	cmd.Env = append(os.Environ(), member.EnvConfig+"="+configPath, member.EnvParentFD+"=3")
	cmd.ExtraFiles = []*os.File{pr}
	pend, err := c.wrapMember(name, exe, cmd)
	if err != nil {
		pw.Close()
		return nil, err
	}
	p, err := c.sp.Start(child.Spec{Name: "member " + name, Cmd: cmd, LogFile: logPath, OnExit: func(p *child.Process) {
		pw.Close()
		c.exited(name, p)
	}})
	if pend != nil {
		pend.Started()
	}
	if err != nil {
		if pend != nil {
			pend.Close()
		}
		pw.Close()
		return nil, err
	}
	if pend != nil {
		if err := c.supervise(name, pend); err != nil {
			_ = p.Kill()
			return nil, err
		}
	}
	return p, nil
}

// StartChild starts a process of the caller's from the cluster's spawning
// thread, so in the cluster's namespaces: it sees each slow disk mounted
// over its member's dir (from any other thread that dir holds the real
// files, unslowed) and is in the emulated network. The caller ends it and
// waits for it (child.Process.Stop, Wait) before Stop, which ends that
// thread: a child still running then gets its parent-death signal. Safe
// for concurrent use.
func (c *Cluster) StartChild(spec child.Spec) (*child.Process, error) {
	if c.stopping.Load() {
		return nil, fmt.Errorf("%s: the cluster is stopping", spec.Name)
	}
	return c.sp.Start(spec)
}
