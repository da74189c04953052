package main

import (
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/spf13/pflag"
)

// leaseOptions are the flags of `etcdlab bench lease-keepalive` (etcd
// benchmark's tools/benchmark/cmd/lease.go).
type leaseOptions struct {
	total int64
}

func (o *leaseOptions) register(fl *pflag.FlagSet) {
	fl.Int64Var(&o.total, "total", 10000, "total number of lease keepalive requests")
}

func (o *leaseOptions) apply(cfg *bench.Config) { cfg.Total = o.total }
