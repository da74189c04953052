package load

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
	dto "github.com/prometheus/client_model/go"
)

// TestLiveDuringRun scrapes a Live while real runs go (closed loop, then
// open loop on the same Live): the ok counter and the histogram's count
// move and agree, in-flight stays within the clients, the target rate is
// the schedule's, and after each run the totals are exactly the results'
// requests and errors, summed over the runs.
func TestLiveDuringRun(t *testing.T) {
	t.Parallel()
	c := oneMember(t)
	l, reg := newLiveRegistry(t, LiveOptions{Command: "test"})
	s, err := Open(context.Background(), Options{Conn: c.Client(), Conns: 2}, putLoad("/live/", 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const clients = 8
	var runs []result.Run
	for _, tc := range []struct {
		name string
		rate float64
	}{{"closed", 0}, {"open", 300}} {
		spec := Spec{Clients: clients, Duration: 2 * time.Second, Rate: tc.rate, RequestTimeout: 5 * time.Second, Live: l}
		var gathered [][]*dto.MetricFamily
		var gatherErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range 2 {
				time.Sleep(700 * time.Millisecond)
				mfs, err := reg.Gather()
				if err != nil {
					gatherErr = err
					return
				}
				gathered = append(gathered, mfs)
			}
		}()
		run, err := s.Run(context.Background(), spec)
		<-done
		if err != nil || gatherErr != nil {
			t.Fatal(err, gatherErr)
		}
		var scrapes []liveScrape
		for _, mfs := range gathered {
			sc := liveScrape{}
			for _, mf := range mfs {
				sc[mf.GetName()] = mf
			}
			scrapes = append(scrapes, sc)
		}
		if run.Requests == 0 {
			t.Fatalf("%s: no request succeeded", tc.name)
		}
		runs = append(runs, run)
		var before float64
		for _, r := range runs[:len(runs)-1] {
			before += float64(r.Requests)
		}
		prev, busiest := before, 0.0
		for i, sc := range scrapes {
			ok := sc.requests(map[string]string{"op": "put", "outcome": "ok"})
			if ok <= prev {
				t.Errorf("%s scrape %d: ok %v did not grow from %v", tc.name, i, ok, prev)
			}
			prev = ok
			if h := sc.hist("put"); h == nil || float64(h.GetSampleCount()) != ok {
				t.Errorf("%s scrape %d: histogram %v, want its count = ok %v", tc.name, i, h, ok)
			}
			v, has := sc.gauge("etcdlab_requests_in_flight")
			if !has || v < 0 || v > clients {
				t.Errorf("%s scrape %d: in flight %v (%v), want 0..%d", tc.name, i, v, has, clients)
			}
			busiest = max(busiest, v)
			if v, _ := sc.gauge("etcdlab_target_requests_per_second"); v != tc.rate {
				t.Errorf("%s scrape %d: target %v, want %v", tc.name, i, v, tc.rate)
			}
		}
		// A closed loop's clients are almost always waiting for an answer
		// (an open loop at 300/s has one in flight or none).
		if tc.rate == 0 && busiest < 1 {
			t.Errorf("%s: nothing in flight in any scrape of a closed loop", tc.name)
		}
		after := gatherLive(t, reg)
		var wantOK, wantSum float64
		for _, r := range runs {
			wantOK += float64(r.Requests)
			wantSum += r.Latency.Mean * float64(r.Requests)
		}
		if got := after.requests(map[string]string{"op": "put", "outcome": "ok"}); got != wantOK {
			t.Errorf("%s: ok total %v after the run, results say %v", tc.name, got, wantOK)
		}
		h := after.hist("put")
		if h == nil || float64(h.GetSampleCount()) != wantOK || math.Abs(h.GetSampleSum()-wantSum) > 1e-6*wantSum {
			t.Errorf("%s: histogram after the run %v, want count %v sum %v", tc.name, h, wantOK, wantSum)
		}
		for code, n := range run.Errors {
			if got := after.requests(map[string]string{"op": "put", "outcome": code}); got < float64(n) {
				t.Errorf("%s: %s %v, results say %d", tc.name, code, got, n)
			}
		}
		if v, _ := after.gauge("etcdlab_requests_in_flight"); v != 0 {
			t.Errorf("%s: in flight %v after the run", tc.name, v)
		}
		if v, _ := after.gauge("etcdlab_target_requests_per_second"); v != 0 {
			t.Errorf("%s: target %v after the run", tc.name, v)
		}
	}
}

// TestLiveInFlightStuck pauses the only member (SIGSTOP): every client's
// request hangs until its timeout, so in flight is exactly the clients,
// in a closed loop and in an open loop whose schedule has issued many
// more requests than that (those wait in the backlog, not in flight).
func TestLiveInFlightStuck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		clients int
		rate    float64
	}{{"closed", 4, 0}, {"open", 2, 10}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := oneMember(t)
			l, reg := newLiveRegistry(t, LiveOptions{})
			s, err := Open(context.Background(), Options{Conn: c.Client(), Conns: 1}, putLoad("/stuck/", 1000))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := c.Pause(c.Names()[0]); err != nil {
				t.Fatal(err)
			}
			clients := tc.clients
			spec := Spec{Clients: clients, Duration: time.Second, Rate: tc.rate, RequestTimeout: time.Second, Live: l}
			var mid []*dto.MetricFamily
			done := make(chan struct{})
			go func() {
				defer close(done)
				time.Sleep(800 * time.Millisecond) // the open loop has issued 8 by then
				mid, _ = reg.Gather()
			}()
			run, err := s.Run(context.Background(), spec)
			<-done
			if rerr := c.Resume(c.Names()[0]); rerr != nil {
				t.Fatal(rerr)
			}
			if err != nil {
				t.Fatal(err)
			}
			sc := liveScrape{}
			for _, mf := range mid {
				sc[mf.GetName()] = mf
			}
			if v, ok := sc.gauge("etcdlab_requests_in_flight"); !ok || v != float64(clients) {
				t.Errorf("in flight %v (%v) with every request hung, want %d", v, ok, clients)
			}
			if ok := sc.requests(map[string]string{"op": "put", "outcome": "ok"}); ok != 0 {
				t.Errorf("ok %v while the member was paused", ok)
			}
			after := gatherLive(t, reg)
			if v, _ := after.gauge("etcdlab_requests_in_flight"); v != 0 {
				t.Errorf("in flight %v after the run", v)
			}
			if got, want := after.requests(map[string]string{"op": "put", "outcome": "DeadlineExceeded"}), float64(run.Errors["DeadlineExceeded"]); got != want || want == 0 {
				t.Errorf("DeadlineExceeded %v, results say %v (want > 0)", got, want)
			}
		})
	}
}
