package replay_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/promtest"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	rp "github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/engines"
	"github.com/etcdlab/etcdlab/measure/profile"
	"github.com/etcdlab/etcdlab/observe/promhist"
	"github.com/etcdlab/etcdlab/result"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// historyRates are the source's puts per second, minute by minute: ten
// minutes of a load that rises, falls and jumps (light: CI shares two
// cores). historyTail is the rate after them, while the profile watches
// the member's metrics for the rows' sizes.
func historyRates() []int { return []int{20, 40, 80, 60, 30, 100, 50, 20, 70, 40} }

const (
	historyTail  = 40
	historyStep  = 15 * time.Second
	historySpeed = 5
	// historyTolerance is the issue's: each minute's rate within ±15%.
	historyTolerance = 0.15
)

// TestFromHistory is issue 34's "from history": a source whose put rate
// changes every minute for ten minutes, scraped every second by a real
// Prometheus (Debian's package); etcdlab profile reads the curve from
// Prometheus over exactly those ten minutes; bench replay plays it at
// --speed 5 (two minutes) on a fresh cluster.
//
// What is compared, minute by minute of the source (10 minutes, each
// its own rate):
//   - the source's true rate: the puts the test's own open loop sent in
//     that minute (counted by send time), over 60 s;
//   - the profile's: the mean put rate of the series' points whose rate
//     window lies in that minute. The query runs over [t0, t0+10m]
//     (profile's Prometheus Until), at a 15 s step with a 15 s rate window,
//     so that point T is rate() over (T-15s, T] and every source minute
//     holds four whole windows: no window straddles a rate change. The
//     point at t0 covers the 15 s before the load and belongs to no
//     minute;
//   - the replay's: the requests the replay sent while it played those
//     four points (each Step/Speed = 3 s long; the curve starts with the
//     step the series' second point ends, the first point being the load
//     before the span), from the run's per-second time series. Only
//     the seconds wholly inside the 12 s count (the series' seconds are
//     wall-clock seconds, the run's start is not on one), so 11 or 12 of
//     them, and the rate is their requests over their number.
//
// Both the profile's and the replay's must be within ±15% of the source's.
func TestFromHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("ten minutes of source load under Prometheus, then two of replay")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	src := clustertest.Start(t, cluster.Options{Members: 1, BaseDir: clustertest.Tmpfs(t)})
	prom := promtest.Start(t, []string{promtest.HostPort(t, src.State().MetricsURLs[0])})

	rates := historyRates()
	span := time.Duration(len(rates)) * time.Minute
	t0 := time.Now().Truncate(time.Second).Add(2 * time.Second)
	until := t0.Add(span)
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	s := &historySource{t0: t0, rates: rates, sent: make([]atomic.Int64, len(rates)), tail: make(chan struct{})}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { s.run(loadCtx, src.KV()) })

	// The profile's window (the rows' sizes) watches the tail; the
	// history ends at until, once Prometheus has scraped past it.
	select {
	case <-s.tail:
	case <-ctx.Done():
		t.Fatalf("the source's ten minutes did not end: %v", ctx.Err())
	}
	waitScraped(t, ctx, prom, until, 30*time.Second)
	p, err := profile.Run(ctx, profile.Options{Conn: src.Client(), Window: 5 * time.Second, Log: io.Discard,
		Prometheus: promhist.Options{URL: prom, Since: span, Until: until, Step: historyStep, RateWindow: historyStep, Selector: `job="etcd"`}})
	stopLoad()
	wg.Wait()
	if err != nil {
		t.Fatalf("profile: %v", err)
	}
	if n := s.errs.Load(); n > 0 {
		t.Fatalf("the source's load: %d puts failed, the first: %v", n, s.first.Load())
	}
	if p.Series == nil || len(p.Series.Points) == 0 {
		t.Fatalf("no series in the profile (unattributed: %v)", p.Unattributed)
	}
	// The history is the span asked for, to the second: a point every
	// step from t0 to until (Prometheus' Until, not the time of the query).
	pts := p.Series.Points
	if first, last := pts[0].At, pts[len(pts)-1].At; len(pts) != int(span/historyStep)+1 ||
		first != t0.UTC().Format(time.RFC3339) || last != until.UTC().Format(time.RFC3339) {
		t.Errorf("series of %d points from %s to %s, want %d from %s to %s", len(pts), first, last,
			int(span/historyStep)+1, t0.UTC().Format(time.RFC3339), until.UTC().Format(time.RFC3339))
	}
	minuteOf, err := seriesMinutes(p.Series, t0, len(rates))
	if err != nil {
		t.Fatal(err)
	}
	b, err := rp.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "history.yaml")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}

	dst := clustertest.Start(t, cluster.Options{Members: 1, BaseDir: clustertest.Tmpfs(t)})
	cl, err := bench.ParseArgs([]string{"replay", fmt.Sprintf("--speed=%d", historySpeed), file})
	if err != nil {
		t.Fatal(err)
	}
	cfg := cl.Config
	cfg.Cluster, cfg.Engines, cfg.Log = dst.Cluster, engines.All(), io.Discard
	doc, err := bench.Run(ctx, cfg)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if len(doc.Runs) != 1 {
		t.Fatalf("replay: %d runs", len(doc.Runs))
	}
	run := doc.Runs[0]
	if run.Replay != nil && run.Replay.Reach != "" {
		t.Logf("reach: %s", run.Replay.Reach)
	}
	seg := historyStep / historySpeed
	t.Logf("replay: %d requests in %.1f s (%d points of %s)", run.Requests, run.DurationSeconds, len(p.Series.Points), seg)
	t.Logf("minute  source/s  profile/s  replay/s")
	for m, rate := range rates {
		want := float64(s.sent[m].Load()) / 60
		var pts []int
		var prof float64
		for k := range p.Series.Points {
			if minuteOf[k] == m {
				pts = append(pts, k)
				prof += p.Series.Points[k].Ops[rp.OpPut]
			}
		}
		if len(pts) == 0 {
			t.Errorf("minute %d: no point of the series", m)
			continue
		}
		prof /= float64(len(pts))
		// The replay plays point k in the k-th step after the first point
		// (which is the load before the span: not played).
		from, to := time.Duration(pts[0]-1)*seg, time.Duration(pts[len(pts)-1])*seg
		got, secs := replayRate(run, from, to)
		t.Logf("%6d  %8.1f  %9.1f  %8.1f   (%d/s asked; %d points, %d replay seconds)", m, want, prof, got, rate, len(pts), secs)
		if math.Abs(want-float64(rate)) > 0.05*float64(rate) {
			t.Errorf("minute %d: the source sent %.1f puts/s, not the %d/s it was to send", m, want, rate)
		}
		if math.Abs(prof/want-1) > historyTolerance {
			t.Errorf("minute %d: the profile's series says %.1f puts/s, the source sent %.1f/s (tolerance ±%.0f%%)", m, prof, want, 100*historyTolerance)
		}
		if secs < 10 || math.Abs(got/want-1) > historyTolerance {
			t.Errorf("minute %d: the replay sent %.1f requests/s over %d seconds, the source %.1f/s (tolerance ±%.0f%%)", m, got, secs, want, 100*historyTolerance)
		}
	}
}

// historySource is the source's open loop: minute m at rates[m] puts
// per second from t0, then historyTail per second until its context
// ends, each put in its own goroutine at its due time; tail is closed when
// the tail begins (at t0 + the rates' minutes). run belongs to one
// goroutine; the counters are atomics, read once run has returned.
type historySource struct {
	t0    time.Time
	rates []int
	sent  []atomic.Int64 // puts sent in each minute of rates
	errs  atomic.Int64   // puts that failed before the load was stopped
	first atomic.Value   // the first failure's error
	tail  chan struct{}  // closed when the rates' minutes are over
}

// run sends the puts until ctx ends and waits for those in flight.
func (s *historySource) run(ctx context.Context, cli *clientv3.Client) {
	var wg sync.WaitGroup
	defer wg.Wait()
	value := strings.Repeat("v", 100)
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	var i int64
	start := s.t0
	for m := 0; ; m++ {
		rate := historyTail
		if m < len(s.rates) {
			rate = s.rates[m]
		} else if m == len(s.rates) {
			close(s.tail)
		}
		for j := range 60 * rate {
			timer.Reset(time.Until(start.Add(time.Duration(j) * time.Second / time.Duration(rate))))
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
			key := fmt.Sprintf("/src/k%02d", i%50)
			i++
			wg.Go(func() {
				if m := int(time.Since(s.t0) / time.Minute); m < len(s.sent) {
					s.sent[m].Add(1)
				}
				pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				defer cancel()
				if _, err := cli.Put(pctx, key, value); err != nil && ctx.Err() == nil {
					if s.errs.Add(1) == 1 {
						s.first.Store(err)
					}
				}
			})
		}
		start = start.Add(time.Minute)
	}
}

// waitScraped waits until Prometheus holds a sample of the member after
// until, so that a history ending there is complete.
func waitScraped(t *testing.T, ctx context.Context, prom string, until time.Time, timeout time.Duration) {
	t.Helper()
	c, err := api.NewClient(api.Config{Address: prom})
	if err != nil {
		t.Fatal(err)
	}
	papi := v1.NewAPI(c)
	clustertest.WaitFor(t, timeout, "a scrape after "+until.Format(time.RFC3339), func() bool {
		qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		v, _, err := papi.Query(qctx, `max(timestamp(etcd_server_has_leader{job="etcd"}))`, time.Now())
		if err != nil {
			return false
		}
		vec, ok := v.(model.Vector)
		return ok && len(vec) == 1 && float64(vec[0].Value) > float64(until.UnixMilli())/1000+1
	})
}

// seriesMinutes is, for each point of the series, the source minute its
// rate window (Step before its time, up to it) lies in, or -1 when the
// window is not wholly in one of the minutes from t0.
func seriesMinutes(s *rp.Series, t0 time.Time, minutes int) ([]int, error) {
	out := make([]int, len(s.Points))
	for k, pt := range s.Points {
		at, err := time.Parse(time.RFC3339, pt.At)
		if err != nil {
			return nil, fmt.Errorf("point %d: %w", k, err)
		}
		from, to := at.Add(-s.Step.D()).Sub(t0), at.Sub(t0)
		m := int(from / time.Minute)
		out[k] = -1
		if from >= 0 && to <= time.Duration(m+1)*time.Minute && m < minutes {
			out[k] = m
		}
	}
	return out, nil
}

// replayRate is the run's requests per second over the part [from, to)
// of its curve: the per-second series' seconds wholly inside it, their
// requests over their number (the series' seconds are wall-clock seconds
// from the run's start's second).
func replayRate(run result.Run, from, to time.Duration) (float64, int) {
	var n int64
	secs := 0
	for _, sec := range run.TimeSeries {
		at := time.Unix(sec.UnixSecond, 0).Sub(run.Start)
		if at >= from && at+time.Second <= to {
			n += sec.Requests + sec.Errors
			secs++
		}
	}
	if secs == 0 {
		return 0, 0
	}
	return float64(n) / float64(secs), secs
}
