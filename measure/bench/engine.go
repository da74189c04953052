package bench

import (
	"context"

	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
)

// Engines that send the load.
const (
	// EngineWire is etcdlab's own asynchronous unary-gRPC transport: a
	// client is a record, not a goroutine (see package wire).
	EngineWire = "wire"
	// EngineGRPC is gRPC-go with one goroutine per client, as etcd
	// benchmark; used for streaming workloads and --user (token refresh).
	EngineGRPC = "grpc"
)

// engine runs measurements over one set of connections.
type engine interface {
	run(ctx context.Context, spec load.Spec) (result.Run, error)
	prepare(ctx context.Context, clients int) error
	clean(ctx context.Context)
	close()
}

// newEngine dials conns connections for the workload.
func (cfg *Config) newEngine(ctx context.Context, t *target, wl load.Workload, conns int) (engine, error) {
	if uw, ok := wl.(load.UnaryWorkload); ok && cfg.Engine != EngineGRPC && cfg.Conn.User == "" {
		p, err := load.DialWire(ctx, t.conn, t.endpoints, conns, uw, cfg.RequestTimeout)
		if err != nil {
			return nil, err
		}
		return &wireEngine{pool: p, wl: uw}, nil
	}
	p, err := load.Dial(ctx, t.conn, t.endpoints, conns)
	if err != nil {
		return nil, err
	}
	return &grpcEngine{pool: p, wl: wl}, nil
}

type wireEngine struct {
	pool *load.WirePool
	wl   load.UnaryWorkload
}

func (e *wireEngine) run(ctx context.Context, spec load.Spec) (result.Run, error) {
	return load.RunWire(ctx, e.pool, e.wl, spec)
}
func (e *wireEngine) prepare(context.Context, int) error { return nil }
func (e *wireEngine) clean(context.Context)              {}
func (e *wireEngine) close()                             { e.pool.Close() }

type grpcEngine struct {
	pool load.Pool
	wl   load.Workload
}

func (e *grpcEngine) run(ctx context.Context, spec load.Spec) (result.Run, error) {
	return load.Run(ctx, e.pool, e.wl, spec)
}

func (e *grpcEngine) prepare(ctx context.Context, clients int) error {
	if p, ok := e.wl.(load.Preparer); ok {
		return p.Prepare(ctx, e.pool, clients)
	}
	return nil
}

func (e *grpcEngine) clean(ctx context.Context) {
	if c, ok := e.wl.(load.Cleaner); ok {
		_ = c.Clean(context.WithoutCancel(ctx), e.pool)
	}
}
func (e *grpcEngine) close() { e.pool.Close() }
