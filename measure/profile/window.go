package profile

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// NoMetricsError is FromWindow's error when no member has both scrapes.
type NoMetricsError struct {
	// Members is how many members were to be scraped.
	Members int
}

func (e *NoMetricsError) Error() string {
	return fmt.Sprintf("none of %d members' metrics were scraped at both ends of the window", e.Members)
}

// pair is one member's two scrapes and the seconds between them.
type pair struct {
	b, a *metrics.Snapshot
	secs float64
}

// rate is a counter's increase per second on this member.
func (p pair) rate(name metrics.Name) (float64, bool) {
	v, ok := metrics.Increase(p.b, p.a, name)
	return v / p.secs, ok
}

// FromWindow derives a profile from every member's metrics scraped at the
// start (before[i]) and the end (after[i]) of a window; before[i] and
// after[i] are the same member, and a nil entry is a member whose scrape
// failed (left out, and said in Unattributed). window is recorded as the
// profile's Source.Window; each member's rates are its increase over the
// time between its own two scrapes. The error is a *NoMetricsError when no
// member has both; everything else a member's metrics cannot tell is said
// in Unattributed, never guessed.
//
// Members are peers, and etcd counts a request where it runs:
//   - request rates come from grpc_server_handled_total{grpc_type="unary"}
//     by grpc_method, summed over members (each request is handled by the
//     one member the client sent it to), every status code included;
//     lease-keepalive from grpc_server_msg_received_total{grpc_method=
//     "LeaseKeepAlive"}, summed;
//   - writes are applied on every member, so their sizes come from one
//     member, the leader (etcd_server_is_leader; the first member when no
//     scrape says): a put's size is increase(total_put_size_in_bytes) /
//     increase(etcd_mvcc_put_total), which counts key AND value bytes of
//     puts in Put requests and in transactions alike;
//   - a txn's puts and deletes are the leader's mvcc put and delete
//     increases less the cluster's Put and DeleteRange requests, per Txn
//     request (0 when the difference is not positive);
//   - a range's response size is etcd_network_client_grpc_sent_bytes_total
//     summed over members, less the watch events sent (each at the mean
//     put size plus its wire overhead, and each watch message's own bytes)
//     and what every other response takes (see unaryResponse), per Range
//     request: an estimate, said in the row's From;
//   - watchers and streams are the members' gauges at the end, summed;
//     events per second etcd_debugging_mvcc_events_total's increase,
//     summed; fan-out events per revision the leader's store moved;
//   - leases: renewals per second from the leader's renewed_total; the
//     count alive is the leader's granted_total less revoked_total since it
//     started (exact only if it started with no lease: the census's
//     LeaseLeases replaces it); the TTL is the median of the leader's
//     lease_ttl_total histogram since it started;
//   - totals: the leader's revision, database size and compaction count
//     (its db_compaction_total_duration histogram's count) over the window.
//
// FromWindow reads only what Families lists. It is a pure function: safe
// to call from any goroutine.
func FromWindow(before, after []*metrics.Snapshot, window time.Duration) (*replay.Profile, error) {
	return FromWindowKnown(before, after, window, Known{})
}

// Known is what a caller knows of a window beyond the members' metrics:
// a replay knows what its own watchers and keep-alives received. Zero
// fields are unknown. A plain value.
type Known struct {
	// WatchBytesPerSecond is the bytes of every watch response the
	// cluster sent, as its clients counted them (each message's protobuf
	// size, as etcd counts its sent bytes): it replaces the estimate of
	// watch events and messages in the range size.
	WatchBytesPerSecond float64
	// PrevKVEventsPerSecond is the watch events that carried the previous
	// key-value (each about a put's bytes more), when the watch bytes are
	// not known.
	PrevKVEventsPerSecond float64
	// KeepaliveBytesPerSecond is the LeaseKeepAlive responses' bytes.
	KeepaliveBytesPerSecond float64
}

// FromWindowKnown is FromWindow with what the caller knows (Known): the
// range size is then the bytes sent less the known ones, and is trusted
// with less of the watch load's uncertainty.
func FromWindowKnown(before, after []*metrics.Snapshot, window time.Duration, known Known) (*replay.Profile, error) {
	if len(before) != len(after) {
		return nil, fmt.Errorf("profile: %d scrapes before the window and %d after: one each per member", len(before), len(after))
	}
	p := &replay.Profile{Kind: replay.Kind, Version: replay.Version,
		Source: replay.Source{Taken: time.Now().UTC().Format(time.RFC3339), Window: result.Duration(window), Sources: []string{"metrics"}}}
	var members []pair
	leader := -1
	for i := range before {
		b, a := before[i], after[i]
		if b == nil || a == nil {
			p.Unattributed = append(p.Unattributed, fmt.Sprintf("member %d: not scraped at both ends of the window: its requests are not counted", i+1))
			continue
		}
		secs := a.At.Sub(b.At).Seconds()
		if secs <= 0 {
			return nil, fmt.Errorf("profile: %s scraped at %s, then at %s: the window must move forward", a.URL, b.At.Format(time.RFC3339Nano), a.At.Format(time.RFC3339Nano))
		}
		if v, ok := a.Gauge(metrics.IsLeader); ok && v == 1 && leader < 0 {
			leader = len(members)
		}
		members = append(members, pair{b: b, a: a, secs: secs})
	}
	if len(members) == 0 {
		return nil, &NoMetricsError{Members: len(before)}
	}
	if leader < 0 {
		leader = 0
		p.Unattributed = append(p.Unattributed, "no scrape says which member leads (etcd_server_is_leader): write sizes, leases and totals are read from "+members[0].a.URL)
	}
	p.Source.Members = len(members)
	p.Source.EtcdVersion = versions(members)
	d := deriver{p: p, members: members, lead: members[leader], known: known}
	d.operations()
	d.watches()
	d.leases()
	d.totals()
	return p, nil
}

// versions is the members' etcd versions, distinct, joined by commas.
func versions(ms []pair) string {
	var vs []string
	for _, m := range ms {
		for _, v := range m.a.LabelValues(metrics.ServerVersion, metrics.ServerVersionLabel) {
			if !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
		}
	}
	return strings.Join(vs, ",")
}

// deriver fills one profile from one window's scrapes.
type deriver struct {
	p       *replay.Profile
	members []pair
	lead    pair
	// byMethod is the cluster's unary requests per second by method.
	byMethod map[string]float64
	known    Known
}

// unary is the cluster's rate of unary requests by gRPC method.
func (d *deriver) unary() map[string]float64 {
	if d.byMethod == nil {
		d.byMethod = map[string]float64{}
		for _, m := range d.members {
			for method, v := range metrics.IncreaseBy(m.b, m.a, metrics.GRPCHandled, metrics.GRPCMethodLabel, map[string]string{metrics.GRPCTypeLabel: "unary"}) {
				d.byMethod[method] += v / m.secs
			}
		}
	}
	return d.byMethod
}

// sum is a counter's rate summed over members, and whether any has it.
func (d *deriver) sum(name metrics.Name) (float64, bool) {
	var s float64
	any := false
	for _, m := range d.members {
		if v, ok := m.rate(name); ok {
			s, any = s+v, true
		}
	}
	return s, any
}

// gauges is a gauge at the window's end summed over members.
func (d *deriver) gauges(name metrics.Name) (float64, bool) {
	var s float64
	any := false
	for _, m := range d.members {
		if v, ok := m.a.Gauge(name); ok {
			s, any = s+v, true
		}
	}
	return s, any
}

// leadPuts is the leader's mvcc puts per second (3.3's name if need be).
func (d *deriver) leadPuts() (float64, metrics.Name, bool) {
	for _, n := range []metrics.Name{MVCCPut, OldMVCCPut} {
		if v, ok := d.lead.rate(n); ok {
			return v, n, true
		}
	}
	return 0, "", false
}

const fromHandled = `grpc_server_handled_total{grpc_type="unary",grpc_method=%q}, summed over members`

func (d *deriver) operations() {
	by := d.unary()
	if len(by) == 0 {
		d.note("requests per operation: no unary grpc_server_handled_total counts in the window (no requests, or a member without gRPC metrics)")
	}
	putRate, putName, havePuts := d.leadPuts()
	putBytes, havePutBytes := d.lead.rate(PutBytes)
	meanPut := 0.0
	if havePuts && havePutBytes && putRate > 0 {
		meanPut = putBytes / putRate
	}
	for _, g := range grpcOps() {
		r := by[g.method]
		if r <= 0 {
			continue
		}
		o := replay.Operation{Op: g.op, Rate: r, From: fmt.Sprintf(fromHandled, g.method)}
		switch g.op {
		case replay.OpPut:
			if meanPut > 0 {
				o.ValueBytes = meanPut
				o.From += fmt.Sprintf("; valueBytes: the leader's increase(%s)/increase(%s), key and value bytes", PutBytes, putName)
			}
		case replay.OpTxn:
			o.Txn = d.txnShape(r, putRate)
			if meanPut > 0 && o.Txn != nil && o.Txn.Puts > 0 {
				o.ValueBytes = meanPut
			}
			o.From += fmt.Sprintf("; shape: the leader's %s and %s less Put and DeleteRange requests, per Txn", putName, MVCCDelete)
		case replay.OpRange:
			if rb, how, ok := d.rangeBytes(r, meanPut); ok {
				o.RangeBytes = rb
				o.From += "; rangeBytes: " + how
			} else if how != "" {
				d.note(how)
			}
		}
		d.p.Operations = append(d.p.Operations, o)
	}
	if len(by) > 0 {
		d.note("range keys per request and the serializable share: etcd's metrics do not count them")
	}
	if ka := d.keepalives(); ka > 0 {
		d.p.Operations = append(d.p.Operations, replay.Operation{Op: replay.OpKeepalive, Rate: ka,
			From: fmt.Sprintf(`%s{grpc_method=%q}, summed over members`, GRPCMsgSent, keepaliveMethod)})
	}
	for _, o := range d.p.Operations {
		d.p.Totals.RequestsPerSecond += o.Rate
	}
}

// txnShape is a Txn's mean puts and deletes: what the leader's store
// applied beyond the Put and DeleteRange requests, per Txn request.
func (d *deriver) txnShape(txns, leadPuts float64) *replay.TxnShape {
	by := d.unary()
	s := &replay.TxnShape{}
	if p := leadPuts - by["Put"]; p > 0 {
		s.Puts = p / txns
	}
	if del, ok := d.lead.rate(MVCCDelete); ok {
		if x := del - by["DeleteRange"]; x > 0 {
			s.Deletes = x / txns
		}
	}
	if s.Puts == 0 && s.Deletes == 0 {
		return nil
	}
	return s
}

// Wire sizes the derivation of a Range's response size takes off the
// bytes etcd sent its clients (etcd_network_client_grpc_sent_bytes_total
// counts every response message's protobuf size), measured on a 3.7
// member by TestWireSizes, which holds them within a quarter:
//   - unaryResponse: a response other than a Range's carries a
//     ResponseHeader (cluster and member IDs, revision, term) and little
//     else: 28 bytes for a Put's;
//   - keepaliveResponse: a LeaseKeepAliveResponse, the header, the lease's
//     ID and TTL: about 42;
//   - watchMessage: a WatchResponse's own bytes (header, watch ID), about
//     30, once per message (grpc_server_msg_sent_total{grpc_method=
//     "Watch"}), however many events it carries;
//   - watchEvent: an event's bytes beyond its key and value (revisions,
//     version, the wrappers), about 18, once per event sent.
//
// Without the per-message and per-event terms, a watch-heavy cluster's
// events (48 bytes each beyond the put at one event per message) pass for
// range responses: at 940 events/s and 6 ranges/s that is 7 KB a range.
const (
	unaryResponse     = 28
	keepaliveResponse = 42
	watchMessage      = 30
	watchEvent        = 18
)

// Trust of the range size estimate: the figure is given only when what
// is uncertain in the bytes taken off is at most trustShare of what is
// left; the uncertain part is a quarter of every wire overhead
// (TestWireSizes holds them within a quarter), eventSpread of the watch
// events' bytes (events are not all the mean put: a delete's carries no
// value) and, when prev_kv is unknown, every event's put bytes (a prev_kv
// watcher's event carries the old value too, and etcd's metrics cannot
// tell such watchers from others).
const (
	trustShare  = 0.15
	eventSpread = 0.10
)

// rangeBytes is a Range response's mean size: the bytes sent to clients
// less what other responses took, per Range. When the figure cannot be
// trusted (see trustShare) it returns false and, in how, why.
func (d *deriver) rangeBytes(ranges, meanPut float64) (float64, string, bool) {
	sent, ok := d.sum(metrics.ClientGRPCSent)
	if !ok || ranges <= 0 {
		return 0, "", false
	}
	events, _ := d.sum(metrics.WatchEventsSent)
	var others float64
	for method, r := range d.unary() {
		if method != "Range" {
			others += r
		}
	}
	ka := d.keepalives()
	msgs := d.watchMessages()
	k := d.known
	var watch, kaBytes, unsure float64
	var how string
	switch {
	case k.WatchBytesPerSecond > 0:
		watch = k.WatchBytesPerSecond
		how = fmt.Sprintf("%s summed over members, less the watch responses' bytes their clients counted", metrics.ClientGRPCSent)
	default:
		prev := min(k.PrevKVEventsPerSecond, events)
		watch = events*(meanPut+watchEvent) + prev*meanPut + msgs*watchMessage
		unsure = 0.25*(events*watchEvent+msgs*watchMessage) + eventSpread*(events+prev)*meanPut
		if k.PrevKVEventsPerSecond == 0 {
			unsure += events * meanPut
		}
		how = fmt.Sprintf("%s summed over members, less watch events at the mean put size plus %d bytes each (twice the put for the %.0f/s that carried the previous key-value) and %d bytes per watch message (%s)",
			metrics.ClientGRPCSent, watchEvent, prev, watchMessage, GRPCMsgSent)
	}
	if k.KeepaliveBytesPerSecond > 0 {
		kaBytes = k.KeepaliveBytesPerSecond
		how += ", the keep-alive responses' bytes counted"
	} else {
		kaBytes = ka * keepaliveResponse
		unsure += 0.25 * kaBytes
		how += fmt.Sprintf(", %d bytes per keep-alive answered", keepaliveResponse)
	}
	unsure += 0.25 * others * unaryResponse
	how += fmt.Sprintf(" and %d bytes per other unary response, per Range (an estimate)", unaryResponse)
	rest := sent - watch - others*unaryResponse - kaBytes
	if unsure > trustShare*rest {
		why := "etcd's metrics cannot tell watchers that ask for the previous key-value (their events carry it: kube-apiserver's) from others"
		if k.PrevKVEventsPerSecond > 0 || k.WatchBytesPerSecond > 0 {
			why = "the watch and other responses' bytes are too large beside the ranges'"
		}
		return 0, fmt.Sprintf("bytes per range: not estimated from %s: %.0f B/s left for %.2f ranges/s, give or take %.0f B/s of the watch events (%.0f/s) and other responses taken off; %s (--apiserver-metrics gives a Kubernetes cluster's from its resources)",
			metrics.ClientGRPCSent, rest, ranges, unsure, events, why), false
	}
	return max(rest/ranges, 0), how, true
}

// watchMessages is the cluster's watch response messages per second.
func (d *deriver) watchMessages() float64 {
	var s float64
	for _, m := range d.members {
		s += metrics.IncreaseBy(m.b, m.a, GRPCMsgSent, metrics.GRPCMethodLabel, nil)[watchMethod] / m.secs
	}
	return s
}

// keepalives is the cluster's keepalive messages per second.
func (d *deriver) keepalives() float64 {
	var s float64
	for _, m := range d.members {
		s += metrics.IncreaseBy(m.b, m.a, GRPCMsgSent, metrics.GRPCMethodLabel, nil)[keepaliveMethod] / m.secs
	}
	return s
}

func (d *deriver) watches() {
	watchers, ok := d.gauges(Watchers)
	if !ok {
		d.note("watches: no " + string(Watchers) + " gauge")
		return
	}
	streams, _ := d.gauges(WatchStreams)
	events, _ := d.sum(metrics.WatchEventsSent)
	w := &replay.Watches{Watchers: int(watchers), Streams: int(streams), EventsPerSecond: events,
		From: fmt.Sprintf("%s and %s at the window's end and increase(%s), summed over members", Watchers, WatchStreams, metrics.WatchEventsSent)}
	if revs, ok := d.lead.rate(CurrentRevision); ok && revs > 0 {
		w.FanOut = events / revs
		w.From += fmt.Sprintf("; fanOut: events per revision (the leader's %s)", CurrentRevision)
	}
	if w.Watchers == 0 && w.Streams == 0 && w.EventsPerSecond == 0 {
		return
	}
	d.p.Watches = w
}

func (d *deriver) leases() {
	granted, ok1 := d.lead.a.Gauge(LeaseGranted)
	revoked, ok2 := d.lead.a.Gauge(LeaseRevoked)
	renewed, ok3 := d.lead.rate(LeaseRenewed)
	if !ok1 || !ok2 {
		d.note("leases: no " + string(LeaseGranted) + " counters")
		return
	}
	l := &replay.Leases{Count: max(int(granted-revoked), 0),
		From: fmt.Sprintf("count: the leader's %s less %s since it started", LeaseGranted, LeaseRevoked)}
	if ok3 {
		l.KeepalivesPerSecond = renewed
		l.From += fmt.Sprintf("; keepalives: increase(%s) on the leader", LeaseRenewed)
	}
	if cum, ok := metrics.Deltas(nil, d.lead.a, LeaseTTL); ok && cum[math.Inf(1)] > 0 {
		ttl := metrics.HistogramQuantile(0.5, cum)
		if !math.IsNaN(ttl) && ttl > 0 {
			l.TTL = result.Duration(time.Duration(ttl * float64(time.Second)).Round(time.Second))
			l.From += fmt.Sprintf("; ttl: the median of the leader's %s since it started", LeaseTTL)
		}
	}
	if l.Count == 0 && l.KeepalivesPerSecond == 0 {
		return
	}
	if l.Count > 0 && l.TTL.D() <= 0 {
		l.TTL = result.Duration(time.Minute)
		l.From += "; ttl: none observed, 1m assumed"
	}
	d.p.Leases = l
}

func (d *deriver) totals() {
	t := &d.p.Totals
	var from []string
	if revs, ok := d.lead.rate(CurrentRevision); ok {
		t.RevisionsPerSecond = revs
		from = append(from, "revisions: "+string(CurrentRevision))
	}
	sb, okb := d.lead.b.FirstGauge(metrics.DBTotalSize, metrics.OldDBTotalSize)
	sa, oka := d.lead.a.FirstGauge(metrics.DBTotalSize, metrics.OldDBTotalSize)
	if okb && oka {
		t.DBGrowthPerSecond = (sa - sb) / d.lead.secs
		from = append(from, "db growth: "+string(metrics.DBTotalSize))
	}
	if c, ok := metrics.Deltas(d.lead.b, d.lead.a, CompactionDuration); ok {
		t.CompactionsPerHour = c[math.Inf(1)] / d.lead.secs * 3600
		from = append(from, "compactions: "+string(CompactionDuration)+"_count")
	}
	from = append(from, "the leader's, over the window")
	t.From = strings.Join(from, "; ")

	k := &replay.Keyspace{From: "the leader's metrics at the window's end"}
	keys, ok := d.lead.a.Gauge(Keys)
	if !ok {
		return
	}
	k.Keys = int64(keys)
	rev, _ := d.lead.a.Gauge(CurrentRevision)
	crev, _ := d.lead.a.Gauge(CompactRevision)
	k.Revision, k.CompactRevision = int64(rev), max(int64(crev), 0) // -1: never compacted
	k.DBSize = int64(sa)
	inUse, _ := d.lead.a.FirstGauge(metrics.DBInUse, metrics.OldDBInUse)
	k.DBSizeInUse = int64(inUse)
	d.p.Keyspace = k
}

func (d *deriver) note(s string) { d.p.Unattributed = append(d.p.Unattributed, s) }
