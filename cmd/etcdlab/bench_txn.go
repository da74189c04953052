package main

import (
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/spf13/pflag"
)

// txnPutOptions are the flags of `etcdlab bench txn-put` (etcd benchmark's
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

func (o *txnPutOptions) apply(cfg *bench.Config) {
	o.keys.apply(cfg)
	o.requests.apply(cfg)
	cfg.TxnOps = o.txnOps
}

// txnMixedOptions are the flags of `etcdlab bench txn-mixed` (etcd
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

func (o *txnMixedOptions) apply(cfg *bench.Config) {
	o.keys.apply(cfg)
	o.requests.apply(cfg)
	cfg.EndKey, cfg.Limit, cfg.Consistency, cfg.RWRatio = o.endKey, o.limit, o.consistency, o.rwRatio
}
