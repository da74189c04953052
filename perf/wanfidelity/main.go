// Command wanfidelity measures how faithfully etcdlab's emulated network
// delays bytes, in three parts:
//
//  1. one-way: small timestamped messages through a wan proxy on loopback,
//     arrival minus send on one clock, for each target delay, next to the
//     direct path (no proxy) measured the same way, interleaved;
//  2. probe: a real emulated 3-member cluster; for each target, the m1<->m2
//     links are set to it and GET /raft/probing is timed from m1's address
//     through both directions (half of it is the one-way delay);
//  3. metric (with -metric-window > 0): etcd's own
//     etcd_network_peer_round_trip_time_seconds, as the mean of the
//     observations made during a window that starts after -metric-warmup,
//     against the configured round trip.
//
// Usage: go run ./perf/wanfidelity -etcdlab BIN [-targets 1ms,2ms,...]
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/observe/metrics"
)

func main() {
	exe := flag.String("etcdlab", "", "etcdlab binary that runs the members")
	targets := flag.String("targets", "1ms,2ms,5ms,10ms,20ms,50ms,100ms,200ms", "one-way delays to test")
	msgs := flag.Int("messages", 200, "messages per target in the one-way test")
	probes := flag.Int("probes", 15, "probes per target in the cluster test")
	metricRTT := flag.Duration("metric-rtt", 40*time.Millisecond, "round trip for the metric test")
	warmup := flag.Duration("metric-warmup", 3*time.Minute, "wait before the metric window")
	window := flag.Duration("metric-window", 0, "metric window (0 skips the metric test)")
	flag.Parse()
	if err := run(*exe, *targets, *msgs, *probes, *metricRTT, *warmup, *window); err != nil {
		fmt.Fprintln(os.Stderr, "wanfidelity:", err)
		os.Exit(1)
	}
}

func run(exe, targets string, msgs, probes int, metricRTT, warmup, window time.Duration) error {
	var ds []time.Duration
	for _, s := range strings.Split(targets, ",") {
		d, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		ds = append(ds, d)
	}
	fmt.Println("## one-way delay through the wan proxy (loopback, one clock)")
	fmt.Printf("%-8s %12s %12s %12s %14s\n", "target", "direct p50", "proxy p50", "proxy p99", "p50 - target")
	for _, d := range ds {
		direct, proxied, err := oneWay(d, msgs)
		if err != nil {
			return err
		}
		fmt.Printf("%-8v %12s %12s %12s %14s\n", d, ms(pct(direct, 50)), ms(pct(proxied, 50)), ms(pct(proxied, 99)), ms(pct(proxied, 50)-d))
	}
	if exe == "" {
		return nil
	}
	c, err := cluster.Start(context.Background(), cluster.Options{Members: 3, Executable: exe, Links: map[wan.Dir]wan.Link{}, BaseDir: os.TempDir()})
	if err != nil {
		return err
	}
	defer func() { _ = c.Stop() }()
	fmt.Println("\n## GET /raft/probing from m1's address to m2's peer port (emulated cluster)")
	fmt.Println("(base: the same probe with zero delay — HTTP, etcd's answer, two proxy hops; the error is")
	fmt.Println(" (RTT p50 - base p50)/2 - target, i.e. what the emulated delay adds beyond its target per direction)")
	fmt.Printf("%-8s %12s %12s %12s\n", "one-way", "RTT p50", "RTT min", "error")
	var base time.Duration
	for i, d := range append([]time.Duration{0}, ds...) {
		for _, dir := range []wan.Dir{{From: "m1", To: "m2"}, {From: "m2", To: "m1"}} {
			if err := c.SetLink(dir, wan.Link{Delay: d}); err != nil {
				return err
			}
		}
		var rtts []time.Duration
		for range probes {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			rtt, err := c.ProbeRTT(ctx, "m1", "m2")
			cancel()
			if err != nil {
				return err
			}
			rtts = append(rtts, rtt)
		}
		if i == 0 {
			base = pct(rtts, 50)
			fmt.Printf("%-8v %12s %12s %12s\n", d, ms(base), ms(pct(rtts, 0)), "(base)")
			continue
		}
		fmt.Printf("%-8v %12s %12s %12s\n", d, ms(pct(rtts, 50)), ms(pct(rtts, 0)), ms((pct(rtts, 50)-base)/2-d))
	}
	if window <= 0 {
		return nil
	}
	return metric(c, metricRTT, warmup, window)
}

// metric compares etcd's peer RTT histogram with the emulated round trip.
func metric(c *cluster.Cluster, rtt, warmup, window time.Duration) error {
	for _, a := range c.Names() {
		for _, b := range c.Names() {
			if a != b {
				if err := c.SetLink(wan.Dir{From: a, To: b}, wan.Link{Delay: rtt / 2}); err != nil {
					return err
				}
			}
		}
	}
	fmt.Printf("\n## %s vs emulated RTT %v (warm-up %v, window %v)\n", metrics.PeerRoundTripTime, rtt, warmup, window)
	time.Sleep(warmup)
	url := c.State().MetricsURLs[0]
	before, err := metrics.Scrape(context.Background(), url, nil, 5*time.Second)
	if err != nil {
		return err
	}
	time.Sleep(window)
	after, err := metrics.Scrape(context.Background(), url, nil, 5*time.Second)
	if err != nil {
		return err
	}
	s0, n0 := sumCount(before)
	s1, n1 := sumCount(after)
	sum, n := s1-s0, n1-n0
	if n == 0 {
		return fmt.Errorf("no RTT observations in the window")
	}
	mean := time.Duration(sum / n * float64(time.Second))
	fmt.Printf("m1's observations in the window: %.0f, mean %s, ratio to the emulated RTT %.3f\n", n, ms(mean), float64(mean)/float64(rtt))
	return nil
}

// sumCount totals the peer RTT histogram's sum and count over its peers.
func sumCount(s *metrics.Snapshot) (sum, n float64) {
	f := s.Families[string(metrics.PeerRoundTripTime)]
	if f == nil {
		return 0, 0
	}
	for _, m := range f.Metric {
		sum += m.GetHistogram().GetSampleSum()
		n += float64(m.GetHistogram().GetSampleCount())
	}
	return sum, n
}

// oneWay sends timestamped 16-byte messages every 2 ms to a sink, directly
// and through a proxy delaying them by d, alternating, and returns the
// one-way delays of each.
func oneWay(d time.Duration, n int) (direct, proxied []time.Duration, err error) {
	sink, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	defer sink.Close()
	got := make(chan time.Duration, 2*n)
	go func() {
		for {
			c, err := sink.Accept()
			if err != nil {
				return
			}
			go func() {
				var m [16]byte
				for {
					if _, err := io.ReadFull(c, m[:]); err != nil {
						return
					}
					got <- time.Since(time.Unix(0, int64(binary.BigEndian.Uint64(m[8:]))))
				}
			}()
		}
	}()
	table := wan.NewTable()
	if err := table.Set(wan.Dir{From: "src", To: "dst"}, wan.Link{Delay: d}); err != nil {
		return nil, nil, err
	}
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	p := &wan.Proxy{To: "dst", Table: table, Source: func(net.Addr) (string, bool) { return "src", true },
		Dial: func(ctx context.Context, _ string) (net.Conn, error) {
			var dl net.Dialer
			return dl.DialContext(ctx, "tcp", sink.Addr().String())
		}}
	go func() { _ = p.Serve(pln) }()
	defer p.Close()
	cd, err := net.Dial("tcp", sink.Addr().String())
	if err != nil {
		return nil, nil, err
	}
	defer cd.Close()
	cp, err := net.Dial("tcp", pln.Addr().String())
	if err != nil {
		return nil, nil, err
	}
	defer cp.Close()
	for i := range 2 * n {
		c, out := cd, &direct
		if i%2 == 1 {
			c, out = cp, &proxied
		}
		var m [16]byte
		binary.BigEndian.PutUint64(m[8:], uint64(time.Now().UnixNano()))
		if _, err := c.Write(m[:]); err != nil {
			return nil, nil, err
		}
		if c == cd {
			select {
			case v := <-got:
				*out = append(*out, v)
			case <-time.After(5 * time.Second):
				return nil, nil, fmt.Errorf("direct message lost")
			}
		} else {
			select {
			case v := <-got:
				*out = append(*out, v)
			case <-time.After(d + 5*time.Second):
				return nil, nil, fmt.Errorf("proxied message lost")
			}
		}
		time.Sleep(time.Millisecond)
	}
	return direct, proxied, nil
}

func pct(v []time.Duration, p float64) time.Duration {
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(p / 100 * float64(len(s)-1))
	return s[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/1e6) }
