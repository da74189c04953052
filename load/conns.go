// Package load generates load on an etcd cluster and measures it honestly:
// bounded-memory HDR histograms, closed loop by default, open loop with
// latency from the intended send time, per-request deadlines, errors counted
// by gRPC code. It is the engine behind `etcdlab bench` and the load phases
// of `etcdlab check`.
package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// Conn is one gRPC connection to one etcd endpoint, as etcd benchmark's
// --conns counts them. Its methods are safe for concurrent use.
type Conn struct {
	Endpoint string
	KV       pb.KVClient
	Lease    pb.LeaseClient
	Maint    pb.MaintenanceClient
	cc       *grpc.ClientConn
	auth     *tokenCreds
}

// Close closes the connection.
func (c *Conn) Close() error { return c.cc.Close() }

// Pool is a set of connections; worker i uses connection i mod len.
type Pool []*Conn

// For returns the connection worker i uses.
func (p Pool) For(i int) *Conn { return p[i%len(p)] }

// Close closes every connection.
func (p Pool) Close() {
	for _, c := range p {
		c.Close()
	}
}

// Dial opens n connections, connection i to endpoints[i mod len], as etcd
// benchmark v3.6 does. Connections are made lazily; the first request
// reports an unreachable endpoint.
func Dial(ctx context.Context, cfg etcdclient.Config, endpoints []string, n int) (Pool, error) {
	if n < 1 {
		return nil, errors.New("--conns must be at least 1")
	}
	if len(endpoints) == 0 {
		return nil, errors.New("no endpoints")
	}
	tlsCfg, err := cfg.TLS()
	if err != nil {
		return nil, err
	}
	var creds *tokenCreds
	if cfg.User != "" {
		name, pw, _ := strings.Cut(cfg.User, ":")
		creds = &tokenCreds{name: name, password: pw}
	}
	codec := newGogoCodec()
	pool := make(Pool, 0, n)
	for i := range n {
		ep := endpoints[i%len(endpoints)]
		target, secure := grpcTarget(ep, tlsCfg != nil)
		opts := []grpc.DialOption{
			grpc.WithDefaultCallOptions(grpc.ForceCodecV2(codec), grpc.MaxCallRecvMsgSize(math.MaxInt32)),
			grpc.WithSharedWriteBuffer(true),
		}
		if secure {
			opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(tlsCfg.Clone())))
		} else {
			opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
		}
		if creds != nil {
			opts = append(opts, grpc.WithPerRPCCredentials(creds))
		}
		cc, err := grpc.NewClient(target, opts...)
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("connect to %s: %w", ep, err)
		}
		pool = append(pool, &Conn{Endpoint: ep, KV: pb.NewKVClient(cc), Lease: pb.NewLeaseClient(cc), Maint: pb.NewMaintenanceClient(cc), cc: cc, auth: creds})
	}
	if creds != nil {
		if err := creds.refresh(ctx, pool[0].cc, cfg.DialTimeout); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return pool, nil
}

// grpcTarget turns an etcd endpoint (host:port or http(s)://host:port) into
// a gRPC target, and says whether to use TLS.
func grpcTarget(ep string, haveTLS bool) (target string, secure bool) {
	secure = haveTLS
	host := ep
	if u, err := url.Parse(ep); err == nil && u.Host != "" {
		host = u.Host
		secure = u.Scheme == "https" || (haveTLS && u.Scheme != "http")
	}
	return "passthrough:///" + host, secure
}

// tokenCreds attaches an etcd auth token to every request and fetches a new
// one when the server says it is invalid. Safe for concurrent use.
type tokenCreds struct {
	name, password string
	mu             sync.RWMutex
	token          string
}

func (t *tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.token == "" {
		return nil, nil
	}
	return map[string]string{"token": t.token}, nil
}

func (t *tokenCreds) RequireTransportSecurity() bool { return false }

// refresh authenticates and stores a new token.
func (t *tokenCreds) refresh(ctx context.Context, cc *grpc.ClientConn, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = etcdclient.DefaultDialTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := pb.NewAuthClient(cc).Authenticate(ctx, &pb.AuthenticateRequest{Name: t.name, Password: t.password})
	if err != nil {
		return fmt.Errorf("authenticate as %s: %s", t.name, etcdclient.Describe(err))
	}
	t.mu.Lock()
	t.token = r.Token
	t.mu.Unlock()
	return nil
}
