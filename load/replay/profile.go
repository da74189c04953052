// Package replay is a production cluster's load shape and its replay: the
// profile (a versioned YAML document that `etcdlab profile` writes from a
// live cluster's metrics and a person may edit) and the load that plays it
// open loop on any cluster (`etcdlab bench replay`): a preload that builds
// the keyspace to the census's shape, then the operations at their rates
// and sizes, the watchers with their fan-out and the leases with their
// TTLs, compressed in time (Speed) and scaled in rate (Scale).
//
// A Profile is a plain value; nothing here is shared between goroutines
// unless its doc says so.
package replay

import (
	"github.com/etcdlab/etcdlab/result"
)

// Kind and Version identify a profile document. A document of a later
// version is refused (a newer etcdlab wrote it), never read by guesswork.
const (
	Kind    = "etcdlab-profile"
	Version = 1
)

// The operations a profile rates. Each is one request as etcd counts it
// (grpc_server_handled_total's grpc_method, or the mvcc counters for the
// operations inside transactions).
const (
	// OpPut is a Put request.
	OpPut = "put"
	// OpRange is a Range request (a get or a list).
	OpRange = "range"
	// OpDelete is a DeleteRange request.
	OpDelete = "delete"
	// OpTxn is a Txn request; its shape (compares, puts, ranges, deletes
	// per txn) is the row's Txn.
	OpTxn = "txn"
	// OpLeaseGrant and OpLeaseRevoke are LeaseGrant and LeaseRevoke.
	OpLeaseGrant  = "lease-grant"
	OpLeaseRevoke = "lease-revoke"
	// OpKeepalive is one LeaseKeepAlive message (a lease renewed).
	OpKeepalive = "lease-keepalive"
)

// Ops lists every operation a profile may name, in the order reports show
// them.
func Ops() []string {
	return []string{OpPut, OpRange, OpDelete, OpTxn, OpLeaseGrant, OpLeaseRevoke, OpKeepalive}
}

// Profile is a cluster's load shape: what reached etcd, per operation and
// prefix, over a window or a span of history, with where each number came
// from. Fields a source could not fill stay empty and Unattributed says
// why; nothing is invented.
type Profile struct {
	// Kind is always "etcdlab-profile"; Version the schema's (1).
	Kind    string `json:"kind"`
	Version int    `json:"version"`
	// Source is where and when the profile was taken.
	Source Source `json:"source"`
	// Operations is the request mix: one row per operation and prefix.
	// Rates are per second, summed over the members (the cluster's).
	Operations []Operation `json:"operations"`
	// Keyspace is the data's shape (from the census, or from kube-apiserver
	// object counts), for the preload.
	Keyspace *Keyspace `json:"keyspace,omitempty"`
	// Watches is the watch load: watchers, streams, events sent.
	Watches *Watches `json:"watches,omitempty"`
	// Leases is the lease load: how many, their TTL, how often renewed.
	Leases *Leases `json:"leases,omitempty"`
	// Totals are the cluster-wide figures the operations cause.
	Totals Totals `json:"totals"`
	// Series is the load over time (from Prometheus history), for a
	// replay that follows the curve.
	Series *Series `json:"series,omitempty"`
	// Unattributed says, one line each, what the sources could not tell
	// (reads per resource without kube-apiserver metrics, for example).
	Unattributed []string `json:"unattributed,omitempty"`
}

// Source is where and when a profile was taken. It never holds a secret:
// no credentials, no token, no URL's user information.
type Source struct {
	// Taken is when the profile was written (RFC 3339).
	Taken string `json:"taken"`
	// Members is how many members were scraped; EtcdVersion their
	// version (the metric names a profile relied on differ by version).
	Members     int    `json:"members,omitempty"`
	EtcdVersion string `json:"etcdVersion,omitempty"`
	// Window is how long the members' metrics were watched.
	Window result.Duration `json:"window,omitempty"`
	// Since is the span of Prometheus history read, when one was, and
	// Until its end (RFC 3339).
	Since result.Duration `json:"since,omitempty"`
	Until string          `json:"until,omitempty"`
	// Sources names what was read: "metrics", "prometheus",
	// "apiserver-metrics", "census".
	Sources []string `json:"sources"`
}

// Operation is one operation's rate under one prefix.
type Operation struct {
	// Op is one of Ops().
	Op string `json:"op"`
	// Prefix is the keys' prefix ("/registry/pods/"); "" when the
	// operation could not be attributed to a prefix (the whole keyspace).
	Prefix string `json:"prefix,omitempty"`
	// Resource is the Kubernetes resource the prefix holds, when known.
	Resource string `json:"resource,omitempty"`
	// Rate is requests per second.
	Rate float64 `json:"rate"`
	// ValueBytes is a write's mean value size (put, txn).
	ValueBytes float64 `json:"valueBytes,omitempty"`
	// CreateValueBytes, when set, is a create's value size, smaller than
	// an update's (Kubernetes objects grow after they are created: a pod
	// gains its node and its status): a txn row's puts that re-create a
	// deleted key write it, the others (updates) what keeps the row's mean
	// at ValueBytes. 0: every write is ValueBytes.
	CreateValueBytes float64 `json:"createValueBytes,omitempty"`
	// RangeKeys is a range's mean number of keys returned; RangeBytes
	// its mean response size in bytes; Serializable the share of ranges
	// that were serializable (0 to 1).
	RangeKeys    float64 `json:"rangeKeys,omitempty"`
	RangeBytes   float64 `json:"rangeBytes,omitempty"`
	Serializable float64 `json:"serializable,omitempty"`
	// Txn is a transaction's shape (op txn).
	Txn *TxnShape `json:"txn,omitempty"`
	// From says which metric and window the row came from.
	From string `json:"from,omitempty"`
}

// TxnShape is a transaction's mean content: compares, and operations in
// its success branch.
type TxnShape struct {
	Compares float64 `json:"compares,omitempty"`
	Puts     float64 `json:"puts,omitempty"`
	Ranges   float64 `json:"ranges,omitempty"`
	Deletes  float64 `json:"deletes,omitempty"`
}

// Keyspace is the data's shape.
type Keyspace struct {
	// Keys and Bytes are the totals (keys and their key+value bytes).
	Keys  int64 `json:"keys"`
	Bytes int64 `json:"bytes,omitempty"`
	// Revision is the store's revision when read; CompactRevision the
	// oldest one kept (revisions the replay's preload compacts away).
	Revision        int64 `json:"revision,omitempty"`
	CompactRevision int64 `json:"compactRevision,omitempty"`
	// DBSize and DBSizeInUse are the backend file's size and the part
	// in use, in bytes.
	DBSize      int64 `json:"dbSize,omitempty"`
	DBSizeInUse int64 `json:"dbSizeInUse,omitempty"`
	// Prefixes is the shape per prefix.
	Prefixes []PrefixShape `json:"prefixes,omitempty"`
	// From says where the figures came from.
	From string `json:"from,omitempty"`
}

// PrefixShape is one prefix's keys: how many and how large.
type PrefixShape struct {
	Prefix   string `json:"prefix"`
	Resource string `json:"resource,omitempty"`
	Keys     int64  `json:"keys"`
	// KeyBytes and ValueBytes are the mean key and value sizes.
	KeyBytes   float64 `json:"keyBytes,omitempty"`
	ValueBytes float64 `json:"valueBytes,omitempty"`
}

// Watches is the watch load.
type Watches struct {
	// Watchers and Streams are the open watchers and watch streams
	// (summed over members).
	Watchers int `json:"watchers"`
	Streams  int `json:"streams,omitempty"`
	// EventsPerSecond is watch events sent to clients per second.
	EventsPerSecond float64 `json:"eventsPerSecond,omitempty"`
	// FanOut is events sent per revision written: how many watchers see
	// a write, on average.
	FanOut float64 `json:"fanOut,omitempty"`
	// Prefixes is where the watchers watch, when known.
	Prefixes []WatchPrefix `json:"prefixes,omitempty"`
	From     string        `json:"from,omitempty"`
}

// WatchPrefix is the watchers on one prefix: a replay opens Watchers
// watchers on it (the rest of Watches.Watchers are placed by FanOut).
type WatchPrefix struct {
	Prefix   string `json:"prefix"`
	Watchers int    `json:"watchers"`
	// PrevKV says the watchers ask for each event's previous key-value
	// (kube-apiserver's watch caches do): their events carry the old
	// value too, about twice a put's bytes on the wire.
	PrevKV bool `json:"prevKV,omitempty"`
}

// Leases is the lease load.
type Leases struct {
	// Count is the leases alive; TTL their median granted TTL.
	Count int             `json:"count"`
	TTL   result.Duration `json:"ttl,omitempty"`
	// KeysPerLease is the mean number of keys attached to a lease;
	// Prefix the prefix most of them are under (they are keys of the
	// keyspace too: a replay attaches its leases to that prefix's
	// preloaded keys rather than add keys of its own).
	KeysPerLease float64 `json:"keysPerLease,omitempty"`
	Prefix       string  `json:"prefix,omitempty"`
	// KeepalivesPerSecond is leases renewed per second.
	KeepalivesPerSecond float64 `json:"keepalivesPerSecond,omitempty"`
	From                string  `json:"from,omitempty"`
}

// Totals are cluster-wide figures: what the operations cost etcd.
type Totals struct {
	// RequestsPerSecond is every rated operation's sum.
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	// RevisionsPerSecond is how fast the store's revision moved.
	RevisionsPerSecond float64 `json:"revisionsPerSecond,omitempty"`
	// DBGrowthPerSecond is the backend file's growth in bytes per second
	// over the window (negative after a defragmentation).
	DBGrowthPerSecond float64 `json:"dbGrowthPerSecond,omitempty"`
	// CompactionsPerHour is how often the store was compacted.
	CompactionsPerHour float64 `json:"compactionsPerHour,omitempty"`
	From               string  `json:"from,omitempty"`
}

// Series is the load over time: the request rate per operation at each
// step. A replay follows the total's curve with the mix of Operations.
type Series struct {
	// Step is the time between points.
	Step result.Duration `json:"step"`
	// Points are in time order, Step apart.
	Points []Point `json:"points"`
	From   string  `json:"from,omitempty"`
}

// Point is the load at one step.
type Point struct {
	// At is the step's end (RFC 3339): Rate is over the step before it,
	// as PromQL's rate() looks back, so a replay plays the steps between
	// the first point and the last.
	At string `json:"at"`
	// Rate is every operation's requests per second, summed.
	Rate float64 `json:"rate"`
	// Ops is the rate per operation, when known.
	Ops map[string]float64 `json:"ops,omitempty"`
}
