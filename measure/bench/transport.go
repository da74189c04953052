package bench

import (
	"context"

	"github.com/etcdlab/etcdlab/load"
)

// Transports that send the load (Config.Engine, a name older than the
// Engine interface): Config.Engine asks load for a transport.
// load.Choose has the last word (lease-keepalive and --user need gRPC-go).
const (
	// EngineWire is etcdlab's own asynchronous unary-gRPC transport: a
	// client is a record, not a goroutine (see package load/wire).
	EngineWire = string(load.Wire)
	// EngineGRPC is gRPC-go with one goroutine per client, as etcd
	// benchmark.
	EngineGRPC = string(load.GRPC)
)

// open connects conns connections for the workload.
func (cfg *Config) open(ctx context.Context, t *target, wl load.Workload, conns int) (*load.Session, error) {
	return load.Open(ctx, load.Options{Conn: t.conn, Endpoints: t.endpoints, Conns: conns, Transport: load.TransportKind(cfg.Engine), Pin: cfg.PinEndpoints}, wl)
}
