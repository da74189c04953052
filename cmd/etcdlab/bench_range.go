package main

import (
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/spf13/pflag"
)

// rangeOptions are the flags of `etcdlab bench range` (etcd benchmark's
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

func (o *rangeOptions) apply(cfg *bench.Config) {
	o.requests.apply(cfg)
	cfg.Consistency, cfg.Limit, cfg.CountOnly = o.consistency, o.limit, o.countOnly
}
