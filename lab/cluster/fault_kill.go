package cluster

import (
	"context"
	"syscall"
)

// kill is SIGKILL to a member: the cluster keeps running without it until
// restart starts it again on its data.
type kill struct{}

func (kill) About() About {
	return About{Name: FaultKill, Args: "one member name", MinArgs: 1, MaxArgs: 1,
		Usage: "MEMBER", Help: "SIGKILL; the cluster keeps running without it", Undo: FaultRestart, CostsLeader: true}
}

func (kill) Apply(c *Cluster, r Request) error { return c.Kill(r.arg(0)) }

func (kill) Inject(_ context.Context, st State, r Request) ([]string, error) {
	if err := signalMember(st, r.arg(0), syscall.SIGKILL, true); err != nil {
		return nil, err
	}
	return []string{"killed " + r.arg(0)}, nil
}

// restart starts a killed (or crashed) member again on its data.
type restart struct{}

func (restart) About() About {
	return About{Name: FaultRestart, Args: "one member name", MinArgs: 1, MaxArgs: 1,
		Usage: "MEMBER", Help: "start a killed member again on its data", Undoes: FaultKill}
}

func (restart) Apply(c *Cluster, r Request) error { return c.Restart(r.arg(0)) }

func (restart) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	if err := NewControl(st).Restart(ctx, r.arg(0)); err != nil {
		return nil, err
	}
	return []string{"restarted " + r.arg(0)}, nil
}
