package cluster

import (
	"context"
	"syscall"
)

// pause is SIGSTOP to a member: it keeps its sockets but answers nothing,
// like a hung machine, until resume (SIGCONT).
type pause struct{}

func (pause) About() About {
	return About{Name: FaultPause, Args: "one member name", MinArgs: 1, MaxArgs: 1,
		Usage: "MEMBER", Help: "SIGSTOP: it keeps its sockets but answers nothing, like a hung machine", Undo: FaultResume, UndoBeforeStop: true, CostsLeader: true}
}

func (pause) Apply(c *Cluster, r Request) error { return c.Pause(r.arg(0)) }

func (pause) Inject(_ context.Context, st State, r Request) ([]string, error) {
	if err := signalMember(st, r.arg(0), syscall.SIGSTOP, false); err != nil {
		return nil, err
	}
	return []string{"paused " + r.arg(0)}, nil
}

// resume continues a paused member (SIGCONT).
type resume struct{}

func (resume) About() About {
	return About{Name: FaultResume, Args: "one member name", MinArgs: 1, MaxArgs: 1,
		Usage: "MEMBER", Help: "SIGCONT", Undoes: FaultPause}
}

func (resume) Apply(c *Cluster, r Request) error { return c.Resume(r.arg(0)) }

func (resume) Inject(_ context.Context, st State, r Request) ([]string, error) {
	if err := signalMember(st, r.arg(0), syscall.SIGCONT, false); err != nil {
		return nil, err
	}
	return []string{"resumed " + r.arg(0)}, nil
}
