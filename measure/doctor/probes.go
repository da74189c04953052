package doctor

import (
	"context"
	"errors"
	"net"
	"net/url"
	"slices"
	"time"

	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// probeKey is what the read probes read: a key nobody writes. Reading a
// missing key costs the member the same round as reading a small one.
const probeKey = "\x00etcdlab-doctor-probe"

// probes are one member's probe results over the window.
type probes struct {
	serial, linear, connect []time.Duration
	serialErr, linearErr    int
}

// figures summarises the probes; nil figures for reads never tried.
func (p probes) figures() (serial, linear *result.ReadFigure, connect float64) {
	if len(p.connect) > 0 {
		connect = median(p.connect).Seconds()
	}
	return readFigure(p.serial, p.serialErr), readFigure(p.linear, p.linearErr), connect
}

func readFigure(ds []time.Duration, errs int) *result.ReadFigure {
	if len(ds) == 0 && errs == 0 {
		return nil
	}
	f := &result.ReadFigure{Samples: len(ds), Errors: errs}
	for _, d := range ds {
		if d.Seconds() >= result.StallSeconds {
			f.Stalled++
		}
	}
	if len(ds) > 0 {
		f.P50, f.Max = median(ds).Seconds(), slices.Max(ds).Seconds()
	}
	return f
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// probeAll probes every reachable member every ProbeInterval until the
// window ends: a TCP connect to its client port, then a serializable and a
// linearizable read of probeKey on its own endpoint. A read that fails or
// times out (requestTimeout) counts as an error.
func probeAll(ctx context.Context, o Options, members []result.DoctorMember) []probes {
	out := make([]probes, len(members))
	wctx, cancel := context.WithTimeout(ctx, o.Window)
	defer cancel()
	parallel(len(members), func(i int) {
		m := members[i]
		cli, err := one(o.Conn, m.Endpoint)
		if err != nil {
			return
		}
		defer cli.Close()
		host := hostPort(m.Endpoint)
		t := time.NewTicker(o.ProbeInterval)
		defer t.Stop()
		for {
			if host != "" {
				if d, err := connect(wctx, host); err == nil {
					out[i].connect = append(out[i].connect, d)
				}
			}
			if m.Reachable {
				if d, err := read(wctx, cli, clientv3.WithSerializable()); err == nil {
					out[i].serial = append(out[i].serial, d)
				} else if wctx.Err() == nil {
					out[i].serialErr++
				}
				if d, err := read(wctx, cli); err == nil {
					out[i].linear = append(out[i].linear, d)
				} else if wctx.Err() == nil {
					out[i].linearErr++
				}
			}
			select {
			case <-wctx.Done():
				return
			case <-t.C:
			}
		}
	})
	return out
}

// read times one Get of probeKey.
func read(ctx context.Context, cli *clientv3.Client, opts ...clientv3.OpOption) (time.Duration, error) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	t0 := time.Now()
	_, err := cli.Get(rctx, probeKey, opts...)
	return time.Since(t0), err
}

// connect times one TCP handshake to host (the kernel answers it, so it
// is the network's round trip, whatever the process is doing). Its error
// is the dial's reason ("connect: connection refused").
func connect(ctx context.Context, host string) (time.Duration, error) {
	d := net.Dialer{Timeout: requestTimeout}
	t0 := time.Now()
	c, err := d.DialContext(ctx, "tcp", host)
	took := time.Since(t0)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Err != nil {
			return 0, op.Err
		}
		return 0, err
	}
	return took, c.Close()
}

// hostPort is an endpoint's host:port.
func hostPort(ep string) string {
	if u, err := url.Parse(ep); err == nil && u.Host != "" {
		return u.Host
	}
	return ep
}
