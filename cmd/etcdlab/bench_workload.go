package main

import (
	"github.com/etcdlab/etcdlab/measure/bench"
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

func (o *keyOptions) apply(cfg *bench.Config) {
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

func (o *requestOptions) apply(cfg *bench.Config) { cfg.Total, cfg.Rate = o.total, o.rate }
