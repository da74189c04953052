package cluster

import (
	"context"
	"time"

	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/member"
)

// errNotEmulated is returned by link operations on a cluster started
// without Options.Links.
func errNotEmulated() error {
	return invalid.Errorf("the cluster was started without network emulation ({Links})")
}

// Emulated reports whether the cluster runs in an emulated network.
func (c *Cluster) Emulated() bool { return c.net != nil }

// Links returns every directed link the cluster knows, configured and
// observed; nil without emulation.
func (c *Cluster) Links() []wan.LinkStatus {
	if c.net == nil {
		return nil
	}
	return c.net.links.Status()
}

// checkDir returns a one-line invalid-input error unless d joins two known
// ends.
func (c *Cluster) checkDir(d wan.Dir) error {
	return validateLinks(map[wan.Dir]wan.Link{d: {}}, len(c.names))
}

// SetLink gives a directed link new parameters; open connections see them
// with their next chunk.
func (c *Cluster) SetLink(d wan.Dir, l wan.Link) error {
	if c.net == nil {
		return errNotEmulated()
	}
	if err := c.checkDir(d); err != nil {
		return err
	}
	if err := l.Validate(); err != nil {
		return invalid.Errorf("link %s: %v", d, err)
	}
	return c.counted(FaultLink, c.net.links.Set(d, l))
}

// Partition stalls both directions between a and b; with b empty, between
// a and every other member (clients still reach a). Heal undoes it.
func (c *Cluster) Partition(a, b string) error { return c.partition(a, b, true) }

// Heal restores the links Partition stalled.
func (c *Cluster) Heal(a, b string) error { return c.partition(a, b, false) }

func (c *Cluster) partition(a, b string, on bool) error {
	if c.net == nil {
		return errNotEmulated()
	}
	others := []string{b}
	if b == "" {
		others = nil
		for _, n := range c.names {
			if n != a {
				others = append(others, n)
			}
		}
	}
	for _, o := range others {
		for _, d := range []wan.Dir{{From: a, To: o}, {From: o, To: a}} {
			if err := c.checkDir(d); err != nil {
				return err
			}
			if err := c.net.links.Update(d, func(l *wan.Link) { l.Partitioned = on }); err != nil {
				return err
			}
		}
	}
	if on {
		return c.counted(FaultPartition, nil)
	}
	return c.counted(FaultHeal, nil)
}

// ProbeRTT times a request from member from's address to member to's peer
// port through both directions of the emulated path (etcd answers it on
// /raft/probing, the endpoint its own RTT prober uses).
func (c *Cluster) ProbeRTT(ctx context.Context, from, to string) (time.Duration, error) {
	if c.net == nil {
		return 0, errNotEmulated()
	}
	i, err := c.index(from)
	if err != nil {
		return 0, err
	}
	j, err := c.index(to)
	if err != nil {
		return 0, err
	}
	if i == j {
		return 0, invalid.Errorf("probe from %s to itself", from)
	}
	tc, err := c.Client().TLS() // nil for plaintext
	if err != nil {
		return 0, err
	}
	return c.net.probeRTT(ctx, i, j, tc)
}

// Tuning returns the etcd tuning the members run with.
func (c *Cluster) Tuning() member.Tuning { return c.opts.Tuning }
