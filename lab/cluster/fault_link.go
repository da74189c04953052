package cluster

import (
	"context"
	"fmt"

	"github.com/etcdlab/etcdlab/emulate/wan"
)

// link gives the directed link FROM->TO (with Request.Both, TO->FROM too)
// new parameters: delay, jitter, rate, loss. FROM and TO are member names
// or ClientNode. It needs an emulated network.
type link struct{}

func (link) About() About {
	return About{Name: FaultLink, Args: "FROM and TO (member names or client)", MinArgs: 2, MaxArgs: 2,
		Usage: "FROM TO", Help: "set the link FROM->TO", Emulated: true, linkOp: "set"}
}

// dirs are the directions r sets.
func (link) dirs(r Request) []wan.Dir {
	dirs := []wan.Dir{{From: r.arg(0), To: r.arg(1)}}
	if r.Both {
		dirs = append(dirs, wan.Dir{From: r.arg(1), To: r.arg(0)})
	}
	return dirs
}

func (l link) Apply(c *Cluster, r Request) error {
	for _, d := range l.dirs(r) {
		if err := c.SetLink(d, r.Link); err != nil {
			return err
		}
	}
	return nil
}

func (l link) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	ctl := NewControl(st)
	var done []string
	for _, d := range l.dirs(r) {
		if err := ctl.Change(ctx, LinkChange{Op: "set", Dir: d, Link: r.Link}); err != nil {
			return done, err
		}
		done = append(done, fmt.Sprintf("link %s: %s", d, r.Link))
	}
	return done, nil
}
