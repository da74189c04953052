package cluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

// The defragmentation's faults, as Counts names them.
const (
	FaultDefrag     = "defrag"
	FaultDefragStop = "defrag-stop"
)

// defragTimeout bounds one defragmentation: a large database takes
// seconds to rewrite.
const defragTimeout = 2 * time.Minute

// defrag defragments a member's backend again and again until
// defrag-stop (or the cluster stops), as an operator's `etcdctl defrag`
// run against a member under load: while it rewrites the database file,
// the member serves nothing that needs its backend. Given to another
// process's cluster (`etcdlab cluster fault defrag m1`), it defragments
// once and says how long that took.
type defrag struct{}

func (defrag) About() About {
	return About{Name: FaultDefrag, Args: "one member name", MinArgs: 1, MaxArgs: 1, Usage: "MEMBER",
		Help: "defragment the member's database, again and again until defrag-stop (once from another process)", Undo: FaultDefragStop, UndoBeforeStop: true}
}

func (defrag) Apply(c *Cluster, r Request) error {
	return c.counted(FaultDefrag, c.startDefrag(r.arg(0)))
}

func (defrag) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	m, err := stateMember(st, r.arg(0))
	if err != nil {
		return nil, err
	}
	line, err := defragOnce(ctx, st.Client(), m.Name, m.ClientURL)
	if err != nil {
		return nil, err
	}
	return []string{line}, nil
}

// defragStop stops a member's defragmentations and waits for the one in
// flight.
type defragStop struct{}

func (defragStop) About() About {
	return About{Name: FaultDefragStop, Args: "one member name", MinArgs: 1, MaxArgs: 1, Usage: "MEMBER",
		Help: "stop defragmenting the member (after the defragmentation in flight)", Undoes: FaultDefrag}
}

func (defragStop) Apply(c *Cluster, r Request) error {
	return c.counted(FaultDefragStop, c.stopDefrag(r.arg(0)))
}

func (defragStop) Inject(_ context.Context, st State, r Request) ([]string, error) {
	if _, err := stateMember(st, r.arg(0)); err != nil {
		return nil, err
	}
	return []string{"nothing to stop: a defrag given from another process runs once"}, nil
}

// defragLoops are the members being defragmented by this process, each
// with what stops its loop and waits for it. Safe for concurrent use.
type defragLoops struct {
	mu    sync.Mutex
	loops map[string]func()
}

// startDefrag starts defragmenting member name in a loop; a member already
// in one is left as it is.
func (c *Cluster) startDefrag(name string) error {
	i, err := c.index(name)
	if err != nil {
		return err
	}
	conn := c.Client()
	url := c.cfgs[i].ClientURL
	c.defrags.mu.Lock()
	defer c.defrags.mu.Unlock()
	if c.defrags.loops == nil {
		c.defrags.loops = map[string]func(){}
	}
	if _, ok := c.defrags.loops[name]; ok {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			if _, err := defragOnce(ctx, conn, name, url); err != nil && ctx.Err() == nil {
				select { // a member down or busy: try again shortly
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
		}
	})
	c.defrags.loops[name] = func() { cancel(); wg.Wait() }
	return nil
}

// stopDefrag stops member name's defragmentation loop, if any, and waits
// for the defragmentation in flight (etcd finishes it even when the
// client gives up).
func (c *Cluster) stopDefrag(name string) error {
	if _, err := c.index(name); err != nil {
		return err
	}
	c.defrags.mu.Lock()
	stop := c.defrags.loops[name]
	delete(c.defrags.loops, name)
	c.defrags.mu.Unlock()
	if stop != nil {
		stop()
	}
	return nil
}

// stopDefrags stops every defragmentation loop (Stop).
func (c *Cluster) stopDefrags() {
	c.defrags.mu.Lock()
	loops := c.defrags.loops
	c.defrags.loops = nil
	c.defrags.mu.Unlock()
	for _, stop := range loops {
		stop()
	}
}

// defragOnce defragments the member at url once and says what it did.
func defragOnce(ctx context.Context, conn etcdclient.Config, name, url string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, defragTimeout)
	defer cancel()
	conn.Endpoints = []string{url}
	conn.DialTimeout = etcdclient.DefaultDialTimeout
	cli, err := etcdclient.NewChecked(ctx, conn)
	if err != nil {
		return "", fmt.Errorf("defrag %s: %w", name, err)
	}
	defer cli.Close()
	before, err := cli.Status(ctx, url)
	if err != nil {
		return "", fmt.Errorf("defrag %s: %s", name, etcdclient.Describe(err))
	}
	began := time.Now()
	if _, err := cli.Defragment(ctx, url); err != nil {
		return "", fmt.Errorf("defrag %s: %s", name, etcdclient.Describe(err))
	}
	took := time.Since(began)
	line := fmt.Sprintf("defragmented %s in %s: database %s", name, took.Round(time.Millisecond), humanize.IBytes(uint64(max(before.DbSize, 0))))
	if after, err := cli.Status(ctx, url); err == nil {
		line += " -> " + humanize.IBytes(uint64(max(after.DbSize, 0)))
	}
	return line, nil
}
