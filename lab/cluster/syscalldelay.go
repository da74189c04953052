package cluster

import (
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/emulate/syscalldelay"
)

// listenerTimeout bounds the wait for a member's shim to hand over its
// seccomp listener (it does so before execve'ing the member).
const listenerTimeout = 10 * time.Second

// seccompLead is taken off each drawn delay (syscalldelay.Options.Lead):
// the mechanism's own mean cost per delayed WAL fsync of an embedded etcd
// 3.7 member, measured here by perf/fsyncdelay.sh (its seccomp column at a
// 0 s delay against the tmpfs baseline, and the added delay at 250 µs
// without a lead: 0.36 ms, 1.43x).
const seccompLead = 60 * time.Microsecond

// syscallDelays are the supervisors of the members whose syncs go
// through seccomp (Options.FsyncBy), one per member process: a restarted
// member gets a new one. Each ends by itself when its member exits.
// Safe for concurrent use.
type syscallDelays struct {
	mu   sync.Mutex
	sups map[string]*syscalldelay.Supervisor
}

// wrap makes member name's command start through the shim when its
// syncs are delayed by seccomp: exe is the program that runs the shim
// (etcdlab or a test binary that calls member.RunIfChild). It returns
// nil when they are not.
func (c *Cluster) wrapMember(name, exe string, cmd *exec.Cmd) (*syscalldelay.Pending, error) {
	if c.opts.syscallDelay(name) == nil {
		return nil, nil
	}
	p, err := syscalldelay.Wrap(cmd, exe)
	if err != nil {
		return nil, fmt.Errorf("member %s: %w", name, err)
	}
	return p, nil
}

// supervise receives member name's listener from its shim and starts
// answering its syncs, replacing (closing) a previous process's
// supervisor.
func (c *Cluster) supervise(name string, p *syscalldelay.Pending) error {
	l, err := p.Listener(listenerTimeout)
	if err != nil {
		return fmt.Errorf("member %s: %w", name, err)
	}
	o := syscalldelay.Options{Delay: c.opts.syscallDelay(name), Lead: seccompLead}
	if c.opts.FsyncWALOnly {
		o.Only = slowfs.WALOnly
	}
	s, err := syscalldelay.Supervise(l, o)
	if err != nil {
		return fmt.Errorf("member %s: %w", name, err)
	}
	d := &c.delays
	d.mu.Lock()
	old := d.sups[name]
	if d.sups == nil {
		d.sups = map[string]*syscalldelay.Supervisor{}
	}
	d.sups[name] = s
	d.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
	return nil
}

// closeDelays ends every supervisor; call once the members are stopped
// (a supervisor whose member exited has ended already).
func (c *Cluster) closeDelays() {
	d := &c.delays
	d.mu.Lock()
	sups := d.sups
	d.sups = nil
	d.mu.Unlock()
	for _, s := range sups {
		_ = s.Close()
	}
}
