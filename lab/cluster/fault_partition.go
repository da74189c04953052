package cluster

import "context"

// partition stalls both directions of the links between member A and B,
// or between A and every other member (clients still reach A), until
// heal. It needs an emulated network.
type partition struct{}

func (partition) About() About {
	return About{Name: FaultPartition, Args: "one or two member names", MinArgs: 1, MaxArgs: 2, Usage: "A [B]",
		Help: "stall both directions between A and B (without B: A and every other member)", Undo: FaultHeal, CostsLeader: true, Emulated: true, linkOp: FaultPartition}
}

func (partition) Apply(c *Cluster, r Request) error { return c.Partition(r.arg(0), r.arg(1)) }

func (partition) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	return changePartition(ctx, st, FaultPartition, "partitioned", r)
}

// heal restores the links partition stalled.
type heal struct{}

func (heal) About() About {
	return About{Name: FaultHeal, Args: "one or two member names", MinArgs: 1, MaxArgs: 2, Usage: "A [B]",
		Help: "undo a partition", Undoes: FaultPartition, Emulated: true, linkOp: FaultHeal}
}

func (heal) Apply(c *Cluster, r Request) error { return c.Heal(r.arg(0), r.arg(1)) }

func (heal) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	return changePartition(ctx, st, FaultHeal, "healed", r)
}

// changePartition asks the control socket to partition or heal (op) as r
// says, and says so ("partitioned: m1 <-> every other member").
func changePartition(ctx context.Context, st State, op, done string, r Request) ([]string, error) {
	ch := LinkChange{Op: op, A: r.arg(0), B: r.arg(1)}
	if err := NewControl(st).Change(ctx, ch); err != nil {
		return nil, err
	}
	who := ch.B
	if who == "" {
		who = "every other member"
	}
	return []string{done + ": " + ch.A + " <-> " + who}, nil
}
