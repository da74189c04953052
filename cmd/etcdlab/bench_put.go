package main

import (
	"time"

	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/spf13/pflag"
)

// putOptions are the flags of `etcdlab bench put` (etcd benchmark's
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

func (o *putOptions) apply(cfg *bench.Config) {
	o.keys.apply(cfg)
	o.requests.apply(cfg)
	cfg.SequentialKeys = o.sequentialKeys
	cfg.CompactInterval, cfg.CompactIndexDelta, cfg.CheckHashKV = o.compactInterval, o.compactIndexDelta, o.checkHashKV
}
