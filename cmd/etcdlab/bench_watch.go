package main

import (
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/spf13/pflag"
)

// watchLatencyOptions are the flags of `etcdlab bench watch-latency` (etcd
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
func (o *watchLatencyOptions) apply(cfg *bench.Config) {
	cfg.Streams, cfg.WatchersPerStream, cfg.PrevKV = o.streams, o.watchersPerStream, o.prevKV
	cfg.PutTotal, cfg.PutRate = o.putTotal, o.putRate
	cfg.KeySize, cfg.ValSize = o.keySize, o.valSize
	cfg.Total = int64(o.putTotal)
}
