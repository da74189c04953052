package result

import "testing"

// TestSummarize: iterations of one point become one summary named without
// the iteration, points keep their order, a single run keeps its name.
func TestSummarize(t *testing.T) {
	run := func(name string, conns, clients int, rps float64) Run {
		return Run{Name: name, Conns: conns, Clients: clients, Stats: Stats{ThroughputRPS: rps}}
	}
	got := Summarize([]Run{
		run("put conns=1 clients=10 iteration=1", 1, 10, 100), run("put conns=1 clients=10 iteration=2", 1, 10, 300),
		run("put conns=1 clients=100", 1, 100, 500),
	})
	if len(got) != 2 {
		t.Fatalf("%d summaries: %+v", len(got), got)
	}
	if got[0].Name != "put conns=1 clients=10" || got[0].Iterations != 2 || got[0].ThroughputRPS.Mean != 200 {
		t.Errorf("first point %+v", got[0])
	}
	if got[1].Name != "put conns=1 clients=100" || got[1].Iterations != 1 || got[1].ThroughputRPS.Mean != 500 {
		t.Errorf("second point %+v", got[1])
	}
}
