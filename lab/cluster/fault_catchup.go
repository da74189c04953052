package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdbuild"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
	"sigs.k8s.io/yaml"
)

// FaultCatchUp is one catch-up, as Counts names it.
const FaultCatchUp = result.OpCatchUp

const (
	// catchUpPrefix is where a catch-up writes its entries (deleted
	// after, with one range delete).
	catchUpPrefix = "etcdlab-catchup/"
	// snapshotCatchUpEntries is how many entries etcd's leader keeps in
	// its log after a snapshot for slow followers: 5000 in etcd 3.5 to 3.7
	// (DefaultSnapshotCatchUpEntries; fixed in 3.5, snapshot-catchup-entries
	// from 3.6, which lab clusters leave at its default).
	snapshotCatchUpEntries = 5000
	// snapshotCountMargin is what a catch-up writes beyond snapshot-count
	// and snapshotCatchUpEntries by default.
	snapshotCountMargin = 1000
	// catchUpWriters is how many clients write the entries at once.
	catchUpWriters = 8
)

// catchUp kills a member (SIGKILL, as kill), writes ENTRIES small puts to
// the rest of the cluster, restarts the member, and times how long it
// takes to catch up: from its start until its applied index reaches the
// leader's raft index as of the restart. By default ENTRIES is the
// cluster's snapshot-count + 5000 (the entries etcd's leader keeps after
// a snapshot for slow followers) + 1000: enough that the leader's log no
// longer holds what the member lacks, and it sends a snapshot.
//
// Distance is the leader's raft index at the restart less the member's at
// the kill. SnapshotSent says the sum of etcd_network_snapshot_send_success
// over the other members (only a leader sends) rose while the member was
// down and caught up: another member's snapshot sent meanwhile would count
// too, which a cluster with one member down does not have. Blocked is not
// set (the member answers nothing until it has started, which Seconds
// includes); Cluster is the cluster canary's windows from the restart.
type catchUp struct{}

func (catchUp) About() About {
	return About{Name: FaultCatchUp, Args: "one member name and optionally a number of entries", MinArgs: 1, MaxArgs: 2, Usage: "MEMBER [ENTRIES]",
		Help:        "kill the member, write ENTRIES puts (default snapshot-count + 6000: minutes on etcd 3.5's 100000), restart it and time its catch-up",
		CostsLeader: true, Timeout: maintenanceTimeout}
}

// CheckArgs takes a member and optionally a positive number of entries.
func (f catchUp) CheckArgs(args []string) error {
	switch {
	case len(args) == 0 || len(args) > 2:
		return invalid.Errorf("fault %s needs %s", f.About().Name, f.About().Args)
	case len(args) == 2:
		if n, err := strconv.ParseInt(args[1], 10, 64); err != nil || n <= 0 {
			return invalid.Errorf("catch-up %s %s: ENTRIES is a positive number of puts", args[0], args[1])
		}
	}
	return nil
}

func (f catchUp) Apply(c *Cluster, r Request) error { return applyLong(f, c, r) }

func (f catchUp) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	return injectLong(ctx, f, st, r)
}

// Run kills and restarts the member itself (counted as one catch-up, not
// as a kill and a restart) and reads the snapshot count from its options.
func (f catchUp) Run(ctx context.Context, c *Cluster, r Request) (Outcome, error) {
	name := r.arg(0)
	i, err := c.index(name)
	if err != nil {
		return Outcome{}, err
	}
	c.mu.Lock()
	count, version := c.cfgs[i].Tuning.SnapshotCount, c.etcd[i].version
	c.mu.Unlock()
	kill := func() error {
		p, err := c.proc(name)
		if err != nil {
			return err
		}
		return p.Kill()
	}
	out, err := runCatchUp(ctx, c.State(), r, snapshotCountOr(count, version), kill, func(context.Context) error { return c.restart(name) })
	return out, c.counted(FaultCatchUp, err)
}

// RunIn kills the member with a signal, has the controller restart it,
// and reads the snapshot count from the member's configuration file.
func (catchUp) RunIn(ctx context.Context, st State, r Request) (Outcome, error) {
	m, err := stateMember(st, r.arg(0))
	if err != nil {
		return Outcome{}, err
	}
	kill := func() error { return signalMember(st, m.Name, syscall.SIGKILL, true) }
	restart := func(ctx context.Context) error { return NewControl(st).Restart(ctx, m.Name) }
	return runCatchUp(ctx, st, r, snapshotCountOr(fileSnapshotCount(m), m.EtcdVersion), kill, restart)
}

// snapshotCountOr is count, or etcd's default for version when 0: 100000
// before 3.6, 10000 since ("" is the embedded etcd, 3.6 or newer).
func snapshotCountOr(count uint64, version string) uint64 {
	switch {
	case count > 0:
		return count
	case version == "" || etcdbuild.AtLeast(version, 3, 6):
		return 10000
	}
	return 100000
}

// fileSnapshotCount is the snapshot-count of member m's configuration
// file (member.yaml beside its log), 0 when it has none.
func fileSnapshotCount(m MemberState) uint64 {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(m.LogFile), "member.yaml"))
	if err != nil {
		return 0
	}
	var cfg struct {
		SnapshotCount uint64 `json:"snapshot-count"`
	}
	if yaml.Unmarshal(b, &cfg) != nil {
		return 0
	}
	return cfg.SnapshotCount
}

// runCatchUp is a catch-up of r's member with kill and restart; count is
// the cluster's snapshot count.
func runCatchUp(ctx context.Context, st State, r Request, count uint64, kill func() error, restart func(context.Context) error) (Outcome, error) {
	m, err := stateMember(st, r.arg(0))
	if err != nil {
		return Outcome{}, err
	}
	entries := int64(count) + snapshotCatchUpEntries + snapshotCountMargin
	if r.arg(1) != "" {
		if entries, err = strconv.ParseInt(r.arg(1), 10, 64); err != nil || entries <= 0 {
			return Outcome{}, invalid.Errorf("catch-up %s %s: ENTRIES is a positive number of puts", m.Name, r.arg(1))
		}
	}
	rec := &result.MaintenanceOp{Op: result.OpCatchUp, Member: m.Name}
	var others []MemberState
	rest := st.Client()
	rest.Endpoints = nil
	for _, o := range st.Members {
		if o.Name != m.Name {
			others = append(others, o)
			rest.Endpoints = append(rest.Endpoints, o.ClientURL)
		}
	}
	if len(others) == 0 {
		return Outcome{}, invalid.Errorf("catch-up %s: the cluster has no other member to write to", m.Name)
	}
	mcli, err := memberClient(ctx, st.Client(), m.ClientURL)
	if err != nil {
		return maintained(rec, "", err)
	}
	defer mcli.Close()
	before, err := mcli.Status(ctx, m.ClientURL)
	if err != nil {
		return maintained(rec, "", err)
	}
	sent := func() (float64, bool) {
		var sum float64
		for _, o := range others {
			v, ok := metricSum(ctx, o.MetricsURL, "etcd_network_snapshot_send_success", true)
			if !ok {
				return 0, false
			}
			sum += v
		}
		return sum, true
	}
	sentBefore, sentKnown := sent()
	if err := kill(); err != nil {
		return maintained(rec, "", err)
	}
	rest.DialTimeout = etcdclient.DefaultDialTimeout
	cli, err := etcdclient.NewChecked(ctx, rest)
	if err != nil {
		return maintained(rec, "", err)
	}
	defer cli.Close()
	if err := writeEntries(ctx, cli, entries); err != nil {
		_ = restart(context.WithoutCancel(ctx))
		return maintained(rec, "", fmt.Errorf("writing %d entries: %w", entries, err))
	}
	st2 := st
	st2.Members = others
	leader, err := leadingMember(ctx, st2)
	var target uint64
	if err == nil {
		var ls *clientv3.StatusResponse
		if ls, err = cli.Status(ctx, leader.ClientURL); err == nil {
			target = ls.RaftIndex
		}
	}
	if err != nil {
		_ = restart(context.WithoutCancel(ctx))
		return maintained(rec, "", err)
	}
	rec.Distance = int64(target) - int64(before.RaftIndex)
	err = watched(ctx, st.Client(), "", rec, func(ctx context.Context) error {
		if err := restart(ctx); err != nil {
			return err
		}
		return waitApplied(ctx, mcli, m.ClientURL, target)
	})
	if err != nil {
		return maintained(rec, "", err)
	}
	if after, ok := sent(); ok && sentKnown {
		rec.SnapshotSent = after > sentBefore
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	_, derr := cli.Delete(dctx, catchUpPrefix, clientv3.WithPrefix())
	cancel()
	how := "from the leader's log"
	if rec.SnapshotSent {
		how = "from a snapshot the leader sent"
	}
	out, _ := maintained(rec, fmt.Sprintf("%s caught up %d entries (%d puts) in %.2fs, %s", m.Name, rec.Distance, entries, rec.Seconds, how)+
		blockedLine("", rec), nil)
	if derr != nil {
		return out, fmt.Errorf("catch-up %s: deleting %s: %s", m.Name, catchUpPrefix, etcdclient.Describe(derr))
	}
	return out, nil
}

// writeEntries puts n small values under catchUpPrefix (1000 keys, written
// over and over), catchUpWriters at a time.
func writeEntries(ctx context.Context, cli *clientv3.Client, n int64) error {
	var next int64
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range catchUpWriters {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= n || first != nil
				mu.Unlock()
				if stop {
					return
				}
				pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				_, err := cli.Put(pctx, fmt.Sprintf("%s%03d", catchUpPrefix, i%1000), "x")
				cancel()
				if err != nil {
					mu.Lock()
					first = errors.Join(first, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// waitApplied waits until the member at url (through cli, a client of it
// alone) says its applied index is target or more; it is starting, so
// errors are waited through until ctx ends.
func waitApplied(ctx context.Context, cli *clientv3.Client, url string, target uint64) error {
	var last error
	for {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		s, err := cli.Status(sctx, url)
		cancel()
		if err == nil && s.RaftAppliedIndex >= target {
			return nil
		}
		if err != nil {
			last = err
		} else {
			last = fmt.Errorf("applied index %d of %d", s.RaftAppliedIndex, target)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not caught up (%s): %w", strings.TrimSpace(etcdclient.Describe(last)), ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
