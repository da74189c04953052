package load

import (
	"testing"
	"time"
)

// TestSamplesWindow holds Window to its definition: a request counts when
// it was in flight in the window, failures count as errors without a
// latency, percentiles are nearest-rank, and the log's limit drops (and
// counts) what comes after it.
func TestSamplesWindow(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	s := NewSamples(6)
	s.add("put", at(0), at(10), false)      // before the window
	s.add("put", at(90), at(1400), false)   // due before, answered inside: 1.31 s
	s.add("put", at(200), at(250), false)   // inside: 50 ms
	s.add("range", at(300), at(310), true)  // inside, failed
	s.add("put", at(1900), at(2300), false) // due inside, answered after: 400 ms
	s.add("put", at(2000), at(2001), false) // due at the window's end: out
	s.add("put", at(500), at(501), false)   // over the limit: dropped
	ops, dropped := s.Window(at(100), at(2000))
	if dropped != 1 {
		t.Fatalf("dropped %d, want 1", dropped)
	}
	if len(ops) != 2 {
		t.Fatalf("ops %+v, want put and range", ops)
	}
	put, rng := ops[0], ops[1]
	if put.Op != "put" || put.Requests != 3 || put.Errors != 0 || put.Max != 1.31 || put.P50 != 0.4 || put.P99 != 1.31 {
		t.Fatalf("put %+v", put)
	}
	if rng.Op != "range" || rng.Requests != 1 || rng.Errors != 1 || rng.P99 != 0 {
		t.Fatalf("range %+v", rng)
	}
	if ops, _ := s.Window(at(5000), at(6000)); len(ops) != 0 {
		t.Fatalf("an empty window gave %+v", ops)
	}
}

// TestSamplesKeepEveryRequest runs a real load with a Samples and finds
// every request of the run in it.
func TestSamplesKeepEveryRequest(t *testing.T) {
	t.Parallel()
	c := oneMember(t)
	s := NewSamples(0)
	began := time.Now()
	r := runOn(t, c, Wire, putLoad("/samples/", 300), Spec{Clients: 4, Rate: 400, Total: 300, RequestTimeout: 5 * time.Second, Samples: s})
	ops, dropped := s.Window(began, time.Now().Add(time.Second))
	if dropped != 0 || len(ops) != 1 || ops[0].Requests != r.Requests || ops[0].Requests != 300 {
		t.Fatalf("samples %+v (dropped %d), run %d requests", ops, dropped, r.Requests)
	}
	if p := ops[0].P99; p <= 0 || p > r.Latency.Max+1e-6 {
		t.Fatalf("p99 %g outside (0, run max %g]", p, r.Latency.Max)
	}
}

// TestSamplesWindows counts a request in flight in two windows once and
// leaves out the time between them.
func TestSamplesWindows(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	s := NewSamples(0)
	s.add("put", at(0), at(3000), false)    // spans both windows: once
	s.add("put", at(1500), at(1510), false) // between them: out
	s.add("put", at(2500), at(2600), false) // in the second
	ops, _ := s.Windows([][2]time.Time{{at(0), at(1000)}, {at(2000), at(2800)}})
	if len(ops) != 1 || ops[0].Requests != 2 || ops[0].Max != 3 {
		t.Fatalf("%+v", ops)
	}
}
