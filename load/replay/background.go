package replay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/etcdlab/etcdlab/load"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"
)

// Lease keys and keep-alives.
const (
	// leaseValueBytes is the value of a key attached to a lease.
	leaseValueBytes = 64
	// defaultKeepaliveLeases: keep-alive rows without a leases section
	// renew this many leases' worth per second of rate, at most
	// maxDefaultLeases.
	maxDefaultLeases = 1000
	// keepaliveRetry spaces attempts to reopen a broken keep-alive stream.
	keepaliveRetry = 200 * time.Millisecond
	// grantWorkers is how many grants Start has in flight.
	grantWorkers = 8
)

// backgroundPlan is what Start opens: leases, their keys, the keep-alive
// rate and where each watcher watches. Immutable.
type backgroundPlan struct {
	leases    int
	ttl       int64
	leaseKeys int
	// leaseGroup, when set, is the preloaded group whose first keys the
	// leases hold (the source's lease keys were keys of its keyspace, and
	// the census counted them there), as many as it has; the rest, or all
	// without a group, are keys of the replay's own under "leases/".
	leaseGroup *group
	keepRate   float64     // keep-alives per second, Scale applied
	watches    []watchSpec // one per watcher
	streams    int
}

// watchSpec is one watcher: its prefix and whether it asks for the
// previous key-value.
type watchSpec struct {
	prefix string
	prevKV bool
}

// buildBackground plans the leases and the watchers.
//
// Watchers are placed so that a write is seen by about FanOut of them
// (FanOut, or EventsPerSecond over the profile's revisions per second).
// First Watches.Prefixes: their watchers watch Prefix + their prefix (with
// prev_kv when PrevKV is set), each seeing its group's share of the
// writes; the fan-out left for the others is FanOut less those shares.
// Of the others, floor(fan-out left) watch the whole Prefix and see every write; for the
// fraction left, one watcher each watches the groups whose shares of the
// mix's writes add up closest to it; the rest watch Prefix + "watch-idle/",
// where nothing is written (open, costing the server a watcher, sending
// nothing, as the many watchers of rarely written resources). So events
// per second ≈ FanOut × the replay's write rate, which follows Scale.
// Without a fan-out to follow, the watchers are spread over the groups
// round robin. Watchers are spread over Streams streams round robin.
func (pl *Plan) buildBackground() {
	b := &pl.bg
	if l := pl.p.Leases; l != nil {
		b.leases, b.ttl = l.Count, int64(l.TTL.D()/time.Second)
		b.leaseKeys = int(math.Round(l.KeysPerLease * float64(l.Count)))
		b.keepRate = l.KeepalivesPerSecond
		if g := pl.group(l.Prefix); l.Prefix != "" && g != nil {
			b.leaseGroup = g
		}
	}
	rows := 0.0
	for _, o := range pl.p.Operations {
		if o.Op == OpKeepalive {
			rows += o.Rate
		}
	}
	// The leases' renewals and the lease-keepalive rows are the same
	// renewals read from two metrics (renewed_total, and the keep-alive
	// messages sent): the larger, not their sum.
	b.keepRate = max(b.keepRate, rows) * pl.o.Scale
	if b.ttl <= 0 {
		b.ttl = int64(defaultLeaseTTL / time.Second)
	}
	if b.keepRate > 0 && b.leases == 0 {
		b.leases = min(maxDefaultLeases, max(1, int(math.Ceil(b.keepRate))))
		pl.notef("lease-keepalive: no leases in the profile; %d leases of %ds renewed", b.leases, b.ttl)
	}
	w := pl.p.Watches
	if w == nil || w.Watchers == 0 {
		return
	}
	b.streams = min(max(1, w.Streams), w.Watchers)
	fan := w.FanOut
	if fan == 0 && w.EventsPerSecond > 0 {
		rev := pl.p.Totals.RevisionsPerSecond
		if rev == 0 {
			for _, e := range pl.mix.entries {
				rev += e.rate * e.events()
			}
		}
		if rev > 0 {
			fan = w.EventsPerSecond / rev
		}
	}
	idle := pl.o.Prefix + "watch-idle/"
	for _, wp := range w.Prefixes {
		prefix, share := pl.groupPrefix(wp.Prefix), 0.0
		if g := pl.group(wp.Prefix); g != nil {
			prefix, share = g.keys.Prefix, g.writeShare
		}
		for range min(wp.Watchers, w.Watchers-len(b.watches)) {
			b.watches = append(b.watches, watchSpec{prefix: prefix, prevKV: wp.PrevKV})
			fan -= share
		}
	}
	fan = max(fan, 0)
	placed := len(b.watches)
	if fan == 0 {
		for i := range w.Watchers - placed {
			if len(pl.groups) == 0 || placed > 0 {
				b.watches = append(b.watches, watchSpec{prefix: idle})
				continue
			}
			b.watches = append(b.watches, watchSpec{prefix: pl.groups[i%len(pl.groups)].keys.Prefix})
		}
		pl.notef("watches: no fan-out in the profile; %d watchers spread over the prefixes", w.Watchers)
		return
	}
	root := min(w.Watchers-placed, int(math.Floor(fan)))
	for range root {
		b.watches = append(b.watches, watchSpec{prefix: pl.o.Prefix})
	}
	frac := fan - math.Floor(fan)
	gs := slices.Clone(pl.groups)
	slices.SortFunc(gs, func(x, y *group) int { return -cmpFloat(x.writeShare, y.writeShare) })
	cum := 0.0
	for _, g := range gs {
		if len(b.watches) == w.Watchers || g.writeShare == 0 {
			break
		}
		if math.Abs(cum+g.writeShare-frac) < math.Abs(cum-frac) {
			cum += g.writeShare
			b.watches = append(b.watches, watchSpec{prefix: g.keys.Prefix})
		}
	}
	if root < int(math.Floor(fan)) {
		pl.notef("watches: fan-out %.3g needs more than the profile's %d watchers", fan, w.Watchers)
	}
	for len(b.watches) < w.Watchers {
		b.watches = append(b.watches, watchSpec{prefix: idle})
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Background is the replay's standing load: the watchers and the leases
// with their keep-alives. Start opens it, Stop closes it. Stats and Stop
// are safe for concurrent use.
type Background struct {
	pl       *Plan
	cli      *clientv3.Client
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	watchers []clientv3.Watcher
	leaseIDs []int64
	// leaseValue is the value of the replay's own lease keys (set by
	// attach, before any is written).
	leaseValue string

	events, sent, failed atomic.Int64
	// watchBytes and keepaliveBytes are the responses' protobuf sizes
	// received, as etcd counts the bytes it sends.
	watchBytes, keepaliveBytes atomic.Int64

	stop    sync.Once
	stopErr error
}

// BackgroundStats is what the Background did so far.
type BackgroundStats struct {
	// Watchers and Streams are the watchers open and their streams.
	Watchers, Streams int
	// Events is the watch events received.
	Events int64
	// Leases and LeaseKeys are the leases granted and the keys attached.
	Leases, LeaseKeys int
	// KeepalivesSent and KeepalivesFailed are the keep-alive messages
	// sent and those that failed (not sent, or answered "expired").
	KeepalivesSent, KeepalivesFailed int64
	// WatchBytes and KeepaliveBytes are the bytes of the watch and
	// keep-alive responses received: each message's protobuf size, as
	// etcd_network_client_grpc_sent_bytes_total counts it (a watch
	// response's watch ID, which clientv3 does not show, counted as 2
	// bytes).
	WatchBytes, KeepaliveBytes int64
}

// Stats returns what the Background did so far.
func (b *Background) Stats() BackgroundStats {
	return BackgroundStats{Watchers: len(b.pl.bg.watches), Streams: len(b.watchers), Events: b.events.Load(),
		Leases: len(b.leaseIDs), LeaseKeys: b.pl.bg.leaseKeys, KeepalivesSent: b.sent.Load(), KeepalivesFailed: b.failed.Load(),
		WatchBytes: b.watchBytes.Load(), KeepaliveBytes: b.keepaliveBytes.Load()}
}

// Start opens the standing load: it grants the leases (IDs of the plan's
// own, TTL from the profile), attaches their keys (under Prefix +
// "leases/", in txns of at most 128 puts), opens the watchers and waits
// until every one is created, then renews the leases round robin at the
// keep-alive rate (profile's keepalivesPerSecond plus its lease-keepalive
// rows, times Scale) over one LeaseKeepAlive stream: not clientv3's
// automatic keep-alive, whose rate (TTL/3 per lease) cannot be set. When
// the workload revokes leases, Start first grants it a few to revoke. A
// lease renewed too seldom for its TTL expires, as in the source; its
// later renewals are counted as failed. Every unary call has a deadline;
// the streams end with Stop. On error what was opened is closed.
func (pl *Plan) Start(ctx context.Context, cli *clientv3.Client) (*Background, error) {
	bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	b := &Background{pl: pl, cli: cli, cancel: cancel}
	fail := func(err error) (*Background, error) {
		if serr := b.Stop(ctx); serr != nil {
			err = errors.Join(err, serr)
		}
		return nil, err
	}
	if err := b.grant(ctx); err != nil {
		return fail(err)
	}
	if err := b.prime(ctx); err != nil {
		return fail(err)
	}
	if err := b.attach(ctx); err != nil {
		return fail(err)
	}
	if err := b.watch(ctx, bctx); err != nil {
		return fail(err)
	}
	if pl.bg.keepRate > 0 && len(b.leaseIDs) > 0 {
		b.wg.Go(func() { b.keepalive(bctx) })
	}
	return b, nil
}

// grant grants the leases, a few at a time.
func (b *Background) grant(ctx context.Context) error {
	n := b.pl.bg.leases
	if n == 0 {
		return nil
	}
	lc := pb.NewLeaseClient(b.cli.ActiveConnection())
	ids := make([]int64, n)
	errs := make([]error, n)
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(grantWorkers, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				id := b.pl.leases.base + backgroundOffset + int64(i)
				cctx, cancel := context.WithTimeout(ctx, callTimeout)
				_, err := lc.LeaseGrant(cctx, &pb.LeaseGrantRequest{ID: id, TTL: b.pl.bg.ttl})
				cancel()
				if err != nil {
					errs[i] = fmt.Errorf("grant lease %x: %w", id, err)
					continue
				}
				ids[i] = id
			}
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id != 0 {
			b.leaseIDs = append(b.leaseIDs, id)
		}
	}
	return errors.Join(errs...)
}

// prime grants the workload's first primedLeases leases when it revokes,
// before it runs, so that its revokes have leases to revoke from the
// start. Start must be called before the workload runs for this.
func (b *Background) prime(ctx context.Context) error {
	m := &b.pl.mix
	if !m.revokes || m.granted.Load() > 0 {
		return nil
	}
	lc := pb.NewLeaseClient(b.cli.ActiveConnection())
	for range primedLeases {
		id := m.nextGrant()
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		_, err := lc.LeaseGrant(cctx, &pb.LeaseGrantRequest{ID: id, TTL: m.ttl})
		cancel()
		if err != nil {
			return fmt.Errorf("grant lease %x: %w", id, err)
		}
	}
	return nil
}

// leaseKey is key i of the leases' keys and its value: key i of the lease
// group while it has one, else of the replay's own "leases/".
func (b *Background) leaseKey(i int) (string, string) {
	if g := b.pl.bg.leaseGroup; g != nil && int64(i) < g.n() {
		return string(g.keys.Append(nil, int64(i))), string(g.value)
	}
	k := load.Keys{Prefix: b.pl.o.Prefix + "leases/", KeySize: 8, KeySpaceSize: 1 << 32}
	return string(k.Append(nil, int64(i))), b.leaseValue
}

// attach puts the lease keys, key i on lease i mod leases.
func (b *Background) attach(ctx context.Context) error {
	n := b.pl.bg.leaseKeys
	if n == 0 || len(b.leaseIDs) == 0 {
		return nil
	}
	b.leaseValue = string(load.RandomValue(leaseValueBytes))
	for from := 0; from < n; from += maxTxnOps {
		var ops []clientv3.Op
		for i := from; i < min(n, from+maxTxnOps); i++ {
			key, value := b.leaseKey(i)
			ops = append(ops, clientv3.OpPut(key, value, clientv3.WithLease(clientv3.LeaseID(b.leaseIDs[i%len(b.leaseIDs)]))))
		}
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		_, err := b.cli.Txn(cctx).Then(ops...).Commit()
		cancel()
		if err != nil {
			return fmt.Errorf("attach keys to leases: %w", err)
		}
	}
	return nil
}

// watch opens the watchers, watcher i on stream i mod Streams (a stream
// is a clientv3.Watcher of its own), and waits for each to be created.
func (b *Background) watch(ctx, bctx context.Context) error {
	bg := &b.pl.bg
	if len(bg.watches) == 0 {
		return nil
	}
	for range bg.streams {
		b.watchers = append(b.watchers, clientv3.NewWatcher(b.cli))
	}
	created := make(chan bool, len(bg.watches))
	for i, ws := range bg.watches {
		opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithCreatedNotify()}
		if ws.prevKV {
			opts = append(opts, clientv3.WithPrevKV())
		}
		ch := b.watchers[i%len(b.watchers)].Watch(bctx, ws.prefix, opts...)
		b.wg.Go(func() {
			first := true
			for resp := range ch {
				if first {
					created <- resp.Created
					first = false
				}
				b.events.Add(int64(len(resp.Events)))
				b.watchBytes.Add(int64(watchResponseSize(&resp)))
			}
			if first {
				created <- false
			}
		})
	}
	timer := time.NewTimer(callTimeout)
	defer timer.Stop()
	for range bg.watches {
		select {
		case ok := <-created:
			if !ok {
				return errors.New("open a watcher: the server refused it")
			}
		case <-timer.C:
			return fmt.Errorf("open %d watchers: not all created within %s", len(bg.watches), callTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// keepalive renews the leases round robin at the keep-alive rate until
// ctx ends, reopening the stream when it breaks.
func (b *Background) keepalive(ctx context.Context) {
	rate := b.pl.bg.keepRate
	start := time.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	var k int64
	for ctx.Err() == nil {
		sctx, cancel := context.WithCancel(ctx)
		stream, err := pb.NewLeaseClient(b.cli.ActiveConnection()).LeaseKeepAlive(sctx)
		if err != nil {
			cancel()
			b.failed.Add(1)
			timer.Reset(keepaliveRetry)
			select {
			case <-timer.C:
			case <-ctx.Done():
			}
			continue
		}
		var recv sync.WaitGroup
		recv.Go(func() {
			for {
				r, err := stream.Recv()
				if err != nil {
					return
				}
				b.keepaliveBytes.Add(int64(proto.Size(r)))
				if r.TTL <= 0 {
					b.failed.Add(1)
				}
			}
		})
		for {
			due := start.Add(time.Duration(float64(k) / rate * float64(time.Second)))
			if wait := time.Until(due); wait > 0 {
				timer.Reset(wait)
				select {
				case <-timer.C:
				case <-ctx.Done():
				}
			}
			if ctx.Err() != nil {
				break
			}
			id := b.leaseIDs[k%int64(len(b.leaseIDs))]
			k++
			b.sent.Add(1)
			if err := stream.Send(&pb.LeaseKeepAliveRequest{ID: id}); err != nil {
				b.failed.Add(1)
				break
			}
		}
		cancel()
		recv.Wait()
	}
}

// Stop closes the watchers, stops the keep-alives and revokes every lease
// of the replay (the Background's and those the Workload granted and did
// not revoke, found by their IDs), each call with its own deadline, even
// when ctx is cancelled. It is idempotent: later calls return the first's
// error.
func (b *Background) Stop(ctx context.Context) error {
	b.stop.Do(func() {
		b.cancel()
		for _, w := range b.watchers {
			_ = w.Close()
		}
		b.wg.Wait()
		b.stopErr = b.pl.revokeAll(context.WithoutCancel(ctx), b.cli)
	})
	return b.stopErr
}

// revokeAll revokes every lease the replay granted: the workload's
// (base up to its grants so far) and the Background's (its count from
// base + backgroundOffset). Only those IDs: etcd's own IDs can fall in the
// replay's 2^41-wide range, so a lease of someone else's that is in it but
// was not granted here is left alone.
func (pl *Plan) revokeAll(ctx context.Context, cli *clientv3.Client) error {
	granted := pl.mix.granted.Load()
	ours := func(id int64) bool {
		return id >= pl.leases.base && id < pl.leases.base+granted ||
			id >= pl.leases.base+backgroundOffset && id < pl.leases.base+backgroundOffset+int64(pl.bg.leases)
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	l, err := cli.Leases(cctx)
	cancel()
	if err != nil {
		return fmt.Errorf("list leases: %w", err)
	}
	var errs []error
	for _, s := range l.Leases {
		if !ours(int64(s.ID)) {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		_, err := cli.Revoke(cctx, s.ID)
		cancel()
		if err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
			errs = append(errs, fmt.Errorf("revoke lease %x: %w", int64(s.ID), err))
		}
	}
	return errors.Join(errs...)
}

// watchIDBytes is a watch response's watch ID field as counted: clientv3
// does not show the ID; a stream's IDs are small, a tag and one byte.
const watchIDBytes = 2

// watchResponseSize is the protobuf size of the WatchResponse etcd sent
// for resp (etcd counts each message's marshalled size as sent bytes).
func watchResponseSize(resp *clientv3.WatchResponse) int {
	m := &pb.WatchResponse{Header: resp.Header, Created: resp.Created, Canceled: resp.Canceled, CompactRevision: resp.CompactRevision, Events: resp.Events}
	return proto.Size(m) + watchIDBytes
}
