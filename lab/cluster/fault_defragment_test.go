package cluster

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// limited runs functions 4 at a time and keeps their first error.
type limited struct {
	wg   sync.WaitGroup
	sem  chan struct{}
	once sync.Once
	err  error
	mu   sync.Mutex
}

func (l *limited) Go(f func() error) {
	l.once.Do(func() { l.sem = make(chan struct{}, 4) })
	l.sem <- struct{}{}
	l.wg.Go(func() {
		defer func() { <-l.sem }()
		if err := f(); err != nil {
			l.mu.Lock()
			l.err = cmp.Or(l.err, err)
			l.mu.Unlock()
		}
	})
}

func (l *limited) Wait() error {
	l.wg.Wait()
	return l.err
}

// fillFragmented writes n keys of size bytes under prefix, in
// transactions of 16 from 4 writers, then deletes every other one and
// compacts physically: a database whose file is about twice what it uses.
func fillFragmented(t *testing.T, cli *clientv3.Client, prefix string, n, size int) {
	t.Helper()
	ctx := context.Background()
	value := strings.Repeat("x", size)
	var g limited
	for i := 0; i < n; i += 16 {
		g.Go(func() error {
			ops := make([]clientv3.Op, 0, 16)
			for k := i; k < min(i+16, n); k++ {
				ops = append(ops, clientv3.OpPut(fmt.Sprintf("%s%07d", prefix, k), value))
			}
			_, err := cli.Txn(ctx).Then(ops...).Commit()
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 2 * 16 {
		g.Go(func() error {
			ops := make([]clientv3.Op, 0, 16)
			for k := i; k < min(i+2*16, n); k += 2 {
				ops = append(ops, clientv3.OpDelete(fmt.Sprintf("%s%07d", prefix, k)))
			}
			_, err := cli.Txn(ctx).Then(ops...).Commit()
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	resp, err := cli.Get(ctx, "etcdlab-fill-end")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
}

// TestDefragmentBlockedWindowMatchesWriter: a defragmentation of a member
// of a 3-member cluster holding a large fragmented database, under a
// light load, with a writer of that member alone beside it (sequential
// puts, each timed): the fault's longest blocked window (its member
// canary's) is the writer's longest put during the defragmentation,
// within 0.5 s or 10 %, whichever is larger.
func TestDefragmentBlockedWindowMatchesWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a 3-member cluster with hundreds of MiB")
	}
	c := start(t, Options{Members: 3, BaseDir: tmpfsBase(t)})
	cli := client(t, c.Client())
	began := time.Now()
	fillFragmented(t, cli, "/defrag/", defragTestKeys, 16<<10)
	t.Logf("filled and fragmented in %s", time.Since(began).Round(time.Millisecond))
	const target = "m2"
	st := c.State()
	m, err := stateMember(st, target)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	// The light load: a put to the cluster every 20 ms.
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			pctx, pcancel := context.WithTimeout(ctx, 30*time.Second)
			_, _ = cli.Put(pctx, fmt.Sprintf("/load/%d", i%100), "v")
			pcancel()
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	// The writer: sequential puts through the member alone.
	conn := c.Client()
	conn.Endpoints = []string{m.ClientURL}
	wcli := client(t, conn)
	type put struct {
		start, end time.Time
		err        error
	}
	var puts []put
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			s := time.Now()
			pctx, pcancel := context.WithTimeout(ctx, 30*time.Second)
			_, err := wcli.Put(pctx, fmt.Sprintf("/writer/%d", i%100), "v")
			pcancel()
			puts = append(puts, put{s, time.Now(), err})
		}
	})
	time.Sleep(500 * time.Millisecond)
	f, err := ParseFault(FaultDefragment, []string{target})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.(LongFault).Run(context.Background(), c, Request{Args: []string{target}})
	time.Sleep(500 * time.Millisecond)
	cancel()
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	rec := out.Maintenance
	if rec == nil || rec.Op != result.OpDefragment || rec.Member != target {
		t.Fatalf("outcome %+v", out)
	}
	t.Logf("%s", out.Detail)
	if rec.Seconds < 1 {
		t.Errorf("the defragmentation took %.2fs, under the second the test needs to tell a window from noise", rec.Seconds)
	}
	if rec.DBBytesAfter >= rec.DBBytesBefore || rec.DBInUseBefore == 0 {
		t.Errorf("database %d bytes (%d in use) before, %d after", rec.DBBytesBefore, rec.DBInUseBefore, rec.DBBytesAfter)
	}
	// The writer's blocked window: its longest put during the
	// defragmentation, a failed one (etcd's request timeout) followed by
	// the puts after it until one succeeds, as the member canary counts
	// failures as no answers.
	var longest, put1 time.Duration
	var lastOK time.Time
	failed := 0
	for i, p := range puts {
		if i == 0 {
			lastOK = p.start
		}
		during := p.end.After(rec.Began) && p.start.Before(rec.Ended)
		if during {
			put1 = max(put1, p.end.Sub(p.start))
		}
		if p.err != nil {
			if during {
				failed++
				t.Logf("writer's put failed after %s: %v", p.end.Sub(p.start).Round(time.Millisecond), p.err)
			}
			continue
		}
		if during {
			longest = max(longest, p.end.Sub(lastOK))
		}
		lastOK = p.end
	}
	blocked := rec.BlockedSeconds()
	tol := math.Max(0.5, 0.1*longest.Seconds())
	t.Logf("defragmentation %.3fs; member canary's longest blocked window %.3fs; writer's longest wait for a put %.3fs (longest single put %.3fs, %d puts, %d failed during it); tolerance %.2fs",
		rec.Seconds, blocked, longest.Seconds(), put1.Seconds(), len(puts), failed, tol)
	if math.Abs(blocked-longest.Seconds()) > tol {
		t.Errorf("blocked %.3fs, the writer's longest wait %.3fs: more than %.2fs apart", blocked, longest.Seconds(), tol)
	}
	if rec.Cluster != nil && rec.Cluster.LongestSeconds > 0.5 {
		t.Errorf("the cluster was unavailable %.2fs while one member defragmented", rec.Cluster.LongestSeconds)
	}
	if n := c.Counts().Faults[FaultDefragment]; n != 1 {
		t.Errorf("counted %d defragmentations", n)
	}
}

// defragTestKeys is how many 16 KiB keys TestDefragmentBlockedWindowMatchesWriter
// writes (half of them deleted): enough for a defragmentation of over a
// second on tmpfs.
const defragTestKeys = 12000
