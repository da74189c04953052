package load

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// grpcTransport sends requests with gRPC-go, as etcd benchmark: each client
// has a goroutine that makes its blocking calls, started at its first
// request and ended by close. Connection i goes to endpoint i mod len, as
// etcd benchmark v3.6; connections are made lazily, so an unreachable
// endpoint shows as errors of the requests. A connection whose call failed
// because it could not reach its member is down until gRPC reconnects it;
// meanwhile its clients' requests go to a connection that is up (failover),
// unless the transport is pinned as etcd benchmark v3.6.
type grpcTransport struct {
	ccs  []*grpc.ClientConn
	down []atomic.Bool // by connection: its member could not be reached
	pin  bool
	rr   atomic.Uint32 // spreads failed-over requests
	auth *tokenCreds   // nil without a user

	mu      sync.Mutex
	workers []chan *client // by client id
	closed  chan struct{}
	once    sync.Once
}

// dialGRPC opens n connections.
func dialGRPC(ctx context.Context, cfg etcdclient.Config, endpoints []string, n int, pin bool) (*grpcTransport, error) {
	tlsCfg, err := cfg.TLS()
	if err != nil {
		return nil, err
	}
	t := &grpcTransport{closed: make(chan struct{}), pin: pin, down: make([]atomic.Bool, n)}
	if cfg.User != "" {
		name, pw, _ := strings.Cut(cfg.User, ":")
		t.auth = &tokenCreds{name: name, password: pw}
	}
	codec := newMessageCodec()
	for i := range n {
		ep := endpoints[i%len(endpoints)]
		addr, secure := endpointAddr(ep, tlsCfg != nil)
		opts := []grpc.DialOption{
			grpc.WithDefaultCallOptions(grpc.ForceCodecV2(codec), grpc.MaxCallRecvMsgSize(math.MaxInt32)),
			grpc.WithConnectParams(reconnect(cfg.DialTimeout)),
		}
		if secure {
			opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(tlsCfg.Clone())))
		} else {
			opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
		}
		if t.auth != nil {
			opts = append(opts, grpc.WithPerRPCCredentials(t.auth))
		}
		cc, err := grpc.NewClient("passthrough:///"+addr, opts...)
		if err != nil {
			t.close()
			return nil, fmt.Errorf("connect to %s: %w", ep, err)
		}
		t.ccs = append(t.ccs, cc)
	}
	if t.auth != nil {
		if err := t.auth.refresh(ctx, t.ccs[0], cfg.DialTimeout); err != nil {
			t.close()
			return nil, err
		}
	}
	return t, nil
}

// send hands c to its client's goroutine.
func (t *grpcTransport) send(c *client) { t.worker(c.id) <- c }

// worker returns the channel of client id's goroutine, starting it first.
// A client has one request in flight, so the channel never holds more.
func (t *grpcTransport) worker(id int) chan *client {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id >= len(t.workers) {
		t.workers = append(t.workers, make([]chan *client, id+1-len(t.workers))...)
	}
	w := t.workers[id]
	if w == nil {
		w = make(chan *client, 1)
		t.workers[id] = w
		go t.work(id%len(t.ccs), w)
	}
	return w
}

func (t *grpcTransport) work(home int, w chan *client) {
	for {
		select {
		case c := <-w:
			i := t.pick(home)
			err := t.call(t.ccs[i], c)
			t.observe(i, err)
			c.Done(err)
		case <-t.closed:
			return
		}
	}
}

// pick returns the connection a request of a client of connection home
// goes to: home, unless it is down and another is up (failover).
func (t *grpcTransport) pick(home int) int {
	if t.pin || !t.down[home].Load() {
		return home
	}
	cc := t.ccs[home]
	if cc.GetState() == connectivity.Ready {
		t.down[home].Store(false)
		return home
	}
	cc.Connect() // leave idle: try again to reach the member
	n := len(t.ccs)
	start := int(t.rr.Add(1) % uint32(n))
	for k := range n {
		if i := (start + k) % n; i != home && !t.down[i].Load() {
			return i
		}
	}
	return home
}

// observe marks connection i down when err says its member could not be
// reached: Unavailable while the connection is not ready. etcd's own
// Unavailable answers (no leader, request timed out) come over a ready
// connection and leave it up.
func (t *grpcTransport) observe(i int, err error) {
	if err != nil && !t.pin && status.Code(err) == codes.Unavailable && t.ccs[i].GetState() != connectivity.Ready {
		t.down[i].Store(true)
	}
}

// sendTo makes c's request on connection i only, on a goroutine of its
// own: a canary's, which asks that connection's member and no other.
func (t *grpcTransport) sendTo(c *client, i int) {
	go func() {
		err := t.call(t.ccs[i], c)
		t.observe(i, err)
		c.Done(err)
	}()
}

// reconnect is how gRPC-go reconnects a connection whose member went away:
// quickly, so that a restarted member takes its share back within a
// second or two (gRPC's default backoff grows to two minutes).
func reconnect(dialTimeout time.Duration) grpc.ConnectParams {
	if dialTimeout <= 0 {
		dialTimeout = etcdclient.DefaultDialTimeout
	}
	return grpc.ConnectParams{
		Backoff:           backoff.Config{BaseDelay: redialBackoff, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
		MinConnectTimeout: dialTimeout,
	}
}

// call makes c's request and waits for its answer.
func (t *grpcTransport) call(cc *grpc.ClientConn, c *client) error {
	m := &methods[c.req.Method]
	ctx, cancel := context.WithDeadline(c.r.ctx, c.deadline)
	defer cancel()
	reply := m.reply()
	var err error
	if m.streaming {
		err = streamOnce(ctx, cc, m.name, c.req.Msg, reply)
	} else {
		err = cc.Invoke(ctx, m.name, c.req.Msg, reply)
	}
	if err == nil && m.check != nil {
		err = m.check(reply)
	}
	return err
}

// streamOnce opens a bidirectional stream, sends req, receives one reply
// and closes its side.
func streamOnce(ctx context.Context, cc *grpc.ClientConn, method string, req, reply any) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method)
	if err != nil {
		return err
	}
	if err := s.SendMsg(req); err != nil {
		return err
	}
	if err := s.RecvMsg(reply); err != nil {
		return err
	}
	return s.CloseSend()
}

func (t *grpcTransport) invoke(ctx context.Context, conn int, m Method, req, reply any) error {
	return t.ccs[conn%len(t.ccs)].Invoke(ctx, methods[m].name, req, reply)
}

func (t *grpcTransport) authenticates() bool { return t.auth != nil }

func (t *grpcTransport) refreshAuth(ctx context.Context) error {
	if t.auth == nil {
		return errNoAuth
	}
	return t.auth.refresh(ctx, t.ccs[0], 0)
}

func (t *grpcTransport) conns() int { return len(t.ccs) }

func (t *grpcTransport) close() {
	t.once.Do(func() { close(t.closed) })
	for _, cc := range t.ccs {
		cc.Close()
	}
}

// authTimeout is the least time an Authenticate call is given.
const authTimeout = 5 * time.Second

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
	// Authenticate costs the server a bcrypt comparison (tens of ms of
	// CPU, seconds on a starved machine): the dial timeout bounds
	// connecting, not this.
	timeout = max(timeout, authTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := pb.NewAuthClient(cc).Authenticate(ctx, &pb.AuthenticateRequest{Name: t.name, Password: t.password})
	if err != nil {
		return fmt.Errorf("authenticate as %s: %w", t.name, described{err})
	}
	t.mu.Lock()
	t.token = r.Token
	t.mu.Unlock()
	return nil
}
