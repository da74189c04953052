package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// listenMetricsUsage is --listen-metrics' help, the same on every command.
const listenMetricsUsage = "serve etcdlab's own metrics (Prometheus text, /metrics) on this address while it runs, e.g. :9100 or 127.0.0.1:0"

// metricsShutdownTimeout bounds the wait for scrapes in progress when the
// command ends.
const metricsShutdownTimeout = 5 * time.Second

// metricsServer serves --listen-metrics: one registry of its own (never
// Prometheus' default one) with the Go runtime and process collectors and
// the command's collectors. Its methods are called by one goroutine.
type metricsServer struct {
	reg    *prometheus.Registry
	srv    *http.Server
	done   chan struct{}
	closed bool
}

// serveMetrics listens on addr and serves the collectors on /metrics until
// close is called; it prints the address it listens on (the port that
// :0 picked). An address it cannot listen on is a usage error (exit 2),
// returned before the command does anything. An empty addr serves nothing
// (a nil server, whose close does nothing).
func (a *app) serveMetrics(addr string, cs ...prometheus.Collector) (*metricsServer, error) {
	if addr == "" {
		return nil, nil
	}
	reg := prometheus.NewRegistry()
	cs = append(cs, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("--listen-metrics: %w", err)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Err != nil {
			err = op.Err // "bind: address already in use", without the repeated address
		}
		return nil, exitcode.Usagef("--listen-metrics %s: cannot listen: %v", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Timeout: 10 * time.Second}))
	m := &metricsServer{
		reg:  reg,
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 15 * time.Second},
		done: make(chan struct{}),
	}
	go func() {
		defer close(m.done)
		_ = m.srv.Serve(ln)
	}()
	fmt.Fprintf(a.stderr, "serving etcdlab's metrics on http://%s/metrics\n", ln.Addr())
	return m, nil
}

// register adds a collector to what is served (one that needs what the
// command started, such as its cluster); nil m does nothing.
func (m *metricsServer) register(c prometheus.Collector) error {
	if m == nil {
		return nil
	}
	if err := m.reg.Register(c); err != nil {
		return fmt.Errorf("--listen-metrics: %w", err)
	}
	return nil
}

// close stops serving: scrapes in progress get metricsShutdownTimeout to
// finish, then their connections are closed. Calls after the first do
// nothing.
func (m *metricsServer) close() {
	if m == nil || m.closed {
		return
	}
	m.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), metricsShutdownTimeout)
	defer cancel()
	if m.srv.Shutdown(ctx) != nil {
		_ = m.srv.Close()
	}
	<-m.done
}
