package cluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// MemberCanaryEvery is how often a member canary sends its member a read.
const MemberCanaryEvery = 20 * time.Millisecond

const (
	// memberCanaryInFlight bounds the probes a member canary has
	// outstanding: 4 s of probes; a member blocked longer gets the next
	// one when one of them is answered (or times out).
	memberCanaryInFlight = 200
	// memberCanaryProbeTimeout is each probe's deadline: long enough that
	// a probe sent at the start of a long defragmentation is answered at
	// its end, not failed meanwhile.
	memberCanaryProbeTimeout = 30 * time.Second
	// memberCanaryGap is the longest time between two answers that is not
	// a blocked window: 5 intervals.
	memberCanaryGap = 5 * MemberCanaryEvery
	// memberCanaryTail is how long a maintenance operation's canaries go
	// on after its answer, so that a window that ends with it closes.
	memberCanaryTail = 200 * time.Millisecond
)

// memberCanary times the windows in which ONE member answered nothing:
// every MemberCanaryEvery it sends the member a linearizable read of
// "etcdlab-canary" through a client of that member alone, without waiting
// for the reads before it (each in a goroutine of its own, with a
// deadline of memberCanaryProbeTimeout, at most memberCanaryInFlight at a
// time). A blocked window is a gap between two successive successful
// answers (their completions) longer than memberCanaryGap: it runs from
// the last answer before to the first answer after, what a client of the
// member alone saw. Failed reads are no answers. A window still open when
// the canary stops ends at the stop.
//
// Concurrency: startMemberCanary starts the sender; probes report to the
// canary under mu; stop cancels every probe, waits for the sender and the
// probes, closes the client, and returns the windows. stop is called
// once, by the goroutine that started the canary.
type memberCanary struct {
	cli    *clientv3.Client
	cancel context.CancelFunc
	done   chan struct{}  // closed when the sender has returned
	probes sync.WaitGroup // the probes in flight

	mu     sync.Mutex
	lastOK time.Time // the latest successful answer
	out    result.Unavailability
}

// startMemberCanary starts a canary of the member at url (conn says how to
// reach the cluster) after one read it answered, so that a window is never
// the client's dial.
func startMemberCanary(ctx context.Context, conn etcdclient.Config, url string) (*memberCanary, error) {
	conn.Endpoints = []string{url}
	conn.DialTimeout = etcdclient.DefaultDialTimeout
	cli, err := etcdclient.NewChecked(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("member canary of %s: %w", url, err)
	}
	first, cancel := context.WithTimeout(ctx, 5*time.Second)
	_, err = cli.Get(first, "etcdlab-canary")
	cancel()
	if err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("member canary of %s: %s", url, etcdclient.Describe(err))
	}
	ctx, cancel = context.WithCancel(ctx)
	k := &memberCanary{cli: cli, cancel: cancel, done: make(chan struct{}), lastOK: time.Now()}
	go k.send(ctx)
	return k, nil
}

// send sends a probe every MemberCanaryEvery until ctx ends, waiting for a
// free slot when memberCanaryInFlight are outstanding.
func (k *memberCanary) send(ctx context.Context) {
	defer close(k.done)
	slots := make(chan struct{}, memberCanaryInFlight)
	tick := time.NewTicker(MemberCanaryEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case slots <- struct{}{}:
		}
		k.probes.Add(1)
		go func() {
			defer k.probes.Done()
			defer func() { <-slots }()
			pctx, cancel := context.WithTimeout(ctx, memberCanaryProbeTimeout)
			defer cancel()
			if _, err := k.cli.Get(pctx, "etcdlab-canary"); err == nil {
				k.answered(time.Now())
			}
		}()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// answered records a successful answer at now, and the window it closes.
func (k *memberCanary) answered(now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !now.After(k.lastOK) {
		return
	}
	if d := now.Sub(k.lastOK); d > memberCanaryGap {
		k.out.Add(k.lastOK, d)
	}
	k.lastOK = now
}

// stop ends the canary and returns the windows it saw, nil for none.
func (k *memberCanary) stop() *result.Unavailability {
	now := time.Now()
	k.cancel()
	<-k.done
	k.probes.Wait()
	_ = k.cli.Close()
	k.mu.Lock()
	defer k.mu.Unlock()
	if d := now.Sub(k.lastOK); d > memberCanaryGap {
		k.out.Add(k.lastOK, d)
	}
	if len(k.out.Windows) == 0 {
		return nil
	}
	out := k.out
	return &out
}

// watched runs do while a member canary watches the member at url and a
// cluster canary every member of conn, and fills rec's Began, Ended and
// Seconds (do's call) and Blocked and Cluster (the canaries', which go on
// memberCanaryTail after do returns). url "" watches no member. It
// returns do's error, or the member canary's when it could not start (do
// is not run then).
func watched(ctx context.Context, conn etcdclient.Config, url string, rec *result.MaintenanceOp, do func(ctx context.Context) error) error {
	var mc *memberCanary
	if url != "" {
		var err error
		if mc, err = startMemberCanary(ctx, conn, url); err != nil {
			return err
		}
	}
	cc := startCanaryOf(context.WithoutCancel(ctx), conn)
	rec.Began = time.Now()
	err := do(ctx)
	rec.Ended = time.Now()
	rec.Seconds = rec.Ended.Sub(rec.Began).Seconds()
	select {
	case <-ctx.Done():
	case <-time.After(memberCanaryTail):
	}
	if mc != nil {
		rec.Blocked = mc.stop()
	}
	rec.Cluster = cc.stop()
	return err
}
