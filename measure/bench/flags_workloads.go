package bench

import (
	"time"

	"github.com/spf13/pflag"
)

// keyOptions are the key and value flags of the subcommands that write
// keys (put, txn-put, txn-mixed).
type keyOptions struct {
	keySize, valSize int
	keySpaceSize     int64
}

// register binds --key-size and --val-size with etcd benchmark v3.6's
// defaults (8 and 8 in put.go, txn_put.go and txn_mixed.go), and
// --key-space-size with etcdlab's: 0, "as many keys as --total" (etcd
// benchmark's 1 writes every request to one key).
func (o *keyOptions) register(fl *pflag.FlagSet) {
	fl.IntVar(&o.keySize, "key-size", 8, "key size (hex digits after --prefix)")
	fl.IntVar(&o.valSize, "val-size", 8, "value size in bytes")
	fl.Int64Var(&o.keySpaceSize, "key-space-size", 0, "number of distinct keys (default: --total; etcd benchmark's default is 1)")
}

func (o *keyOptions) apply(cfg *Config) {
	cfg.KeySize, cfg.ValSize, cfg.KeySpaceSize = o.keySize, o.valSize, o.keySpaceSize
}

// requestOptions are --total and --rate of the subcommands that send
// requests at a rate (put, range, txn-put, txn-mixed).
type requestOptions struct {
	total int64
	rate  float64
}

// register binds --total (etcd benchmark's 10000) and --rate (0). what
// names the requests in the help.
func (o *requestOptions) register(fl *pflag.FlagSet, what string) {
	fl.Int64Var(&o.total, "total", 10000, "total number of "+what)
	fl.Float64Var(&o.rate, "rate", 0, "open loop at this many "+what+" per second (0: closed loop, as fast as the clients go)")
}

func (o *requestOptions) apply(cfg *Config) { cfg.Total, cfg.Rate = o.total, o.rate }

// putOptions are the flags of bench put (etcd benchmark's
// tools/benchmark/cmd/put.go).
type putOptions struct {
	keys              keyOptions
	requests          requestOptions
	sequentialKeys    bool
	compactInterval   time.Duration
	compactIndexDelta int64
	checkHashKV       bool
}

func (o *putOptions) register(fl *pflag.FlagSet) {
	o.keys.register(fl)
	o.requests.register(fl, "put requests")
	fl.BoolVar(&o.sequentialKeys, "sequential-keys", false, "use sequential keys")
	fl.DurationVar(&o.compactInterval, "compact-interval", 0, "compact the database at this interval during the run")
	fl.Int64Var(&o.compactIndexDelta, "compact-index-delta", 1000, "delta between current revision and compact revision")
	fl.BoolVar(&o.checkHashKV, "check-hashkv", false, "report the KV hash of the first endpoint after the run")
}

func (o *putOptions) apply(cfg *Config) {
	o.keys.apply(cfg)
	o.requests.apply(cfg)
	cfg.SequentialKeys = o.sequentialKeys
	cfg.CompactInterval, cfg.CompactIndexDelta, cfg.CheckHashKV = o.compactInterval, o.compactIndexDelta, o.checkHashKV
}

// rangeOptions are the flags of bench range (etcd benchmark's
// tools/benchmark/cmd/range.go).
type rangeOptions struct {
	requests    requestOptions
	consistency string
	limit       int64
	countOnly   bool
}

func (o *rangeOptions) register(fl *pflag.FlagSet) {
	o.requests.register(fl, "range requests")
	fl.StringVar(&o.consistency, "consistency", "l", "Linearizable(l) or Serializable(s)")
	fl.Int64Var(&o.limit, "limit", 0, "maximum number of results per range request (0 is no limit)")
	fl.BoolVar(&o.countOnly, "count-only", false, "only return the count of keys")
}

func (o *rangeOptions) apply(cfg *Config) {
	o.requests.apply(cfg)
	cfg.Consistency, cfg.Limit, cfg.CountOnly = o.consistency, o.limit, o.countOnly
}

// txnPutOptions are the flags of bench txn-put (etcd benchmark's
// tools/benchmark/cmd/txn_put.go).
type txnPutOptions struct {
	keys     keyOptions
	requests requestOptions
	txnOps   int
}

func (o *txnPutOptions) register(fl *pflag.FlagSet) {
	o.keys.register(fl)
	o.requests.register(fl, "txn requests")
	fl.IntVar(&o.txnOps, "txn-ops", 1, "number of puts per txn")
}

func (o *txnPutOptions) apply(cfg *Config) {
	o.keys.apply(cfg)
	o.requests.apply(cfg)
	cfg.TxnOps = o.txnOps
}

// txnMixedOptions are the flags of bench txn-mixed (etcd
// benchmark's tools/benchmark/cmd/txn_mixed.go).
type txnMixedOptions struct {
	keys        keyOptions
	requests    requestOptions
	endKey      string
	limit       int64
	consistency string
	rwRatio     float64
}

func (o *txnMixedOptions) register(fl *pflag.FlagSet) {
	o.keys.register(fl)
	o.requests.register(fl, "txn requests")
	fl.StringVar(&o.endKey, "end-key", "", "read operation range end key (default: the end of --prefix)")
	fl.Int64Var(&o.limit, "limit", 1000, "read operation range result limit")
	fl.StringVar(&o.consistency, "consistency", "l", "Linearizable(l) or Serializable(s)")
	fl.Float64Var(&o.rwRatio, "rw-ratio", 1, "read/write ops ratio")
}

func (o *txnMixedOptions) apply(cfg *Config) {
	o.keys.apply(cfg)
	o.requests.apply(cfg)
	cfg.EndKey, cfg.Limit, cfg.Consistency, cfg.RWRatio = o.endKey, o.limit, o.consistency, o.rwRatio
}

// leaseOptions are the flags of bench lease-keepalive (etcd
// benchmark's tools/benchmark/cmd/lease.go).
type leaseOptions struct {
	total int64
}

func (o *leaseOptions) register(fl *pflag.FlagSet) {
	fl.Int64Var(&o.total, "total", 10000, "total number of lease keepalive requests")
}

func (o *leaseOptions) apply(cfg *Config) { cfg.Total = o.total }

// watchLatencyOptions are the flags of bench watch-latency (etcd
// benchmark's tools/benchmark/cmd/watch_latency.go).
type watchLatencyOptions struct {
	streams, watchersPerStream int
	prevKV                     bool
	putTotal, putRate          int
	keySize, valSize           int
}

func (o *watchLatencyOptions) register(fl *pflag.FlagSet) {
	fl.IntVar(&o.streams, "streams", 10, "total watch streams")
	fl.IntVar(&o.watchersPerStream, "watchers-per-stream", 10, "total watchers per stream")
	fl.BoolVar(&o.prevKV, "prevkv", false, "PrevKV enabled on watch requests")
	fl.IntVar(&o.putTotal, "put-total", 1000, "total number of put requests")
	fl.IntVar(&o.putRate, "put-rate", 100, "number of keys to put per second")
	fl.IntVar(&o.keySize, "key-size", 32, "accepted for compatibility (the watched key is --prefix + \"watch\")")
	fl.IntVar(&o.valSize, "val-size", 32, "value size of watch response")
}

// apply copies the options; the run's request count is --put-total.
func (o *watchLatencyOptions) apply(cfg *Config) {
	cfg.Watch = WatchOptions{Streams: o.streams, WatchersPerStream: o.watchersPerStream, PrevKV: o.prevKV, PutTotal: o.putTotal, PutRate: o.putRate}
	cfg.KeySize, cfg.ValSize = o.keySize, o.valSize
	cfg.Total = int64(o.putTotal)
}
