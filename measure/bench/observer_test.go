package bench

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/result"
)

// recorder is an Observer with every capability that writes down what it
// was told, in order. Progress comes from the load's goroutine: mu.
type recorder struct {
	mu       sync.Mutex
	events   []string
	progress map[string]int64 // label → last done
	refuse   error            // Ready's answer
}

func (o *recorder) add(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, s)
}

func (o *recorder) BeginRun(_ context.Context, r RunInfo) { o.add("begin " + r.Name) }
func (o *recorder) EndRun(_ context.Context, r RunInfo, run *result.Run, err error) {
	s := "end " + r.Name
	if err != nil {
		s += " error"
	} else if !r.Warmup && run.Requests == 0 {
		s += " nothing measured"
	}
	o.add(s)
}
func (o *recorder) Ready(_ context.Context, r RunInfo) error {
	o.add("ready " + r.Name)
	return o.refuse
}
func (o *recorder) Progress(r RunInfo, done, _ int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.progress == nil {
		o.progress = map[string]int64{}
	}
	o.progress[r.Name] = done
}
func (o *recorder) BeginBench(_ context.Context, b *BenchInfo) error {
	o.add("begin bench " + b.Config().Prefix)
	return nil
}
func (o *recorder) EndRuns(_ context.Context, _ *BenchInfo, err error) error {
	o.add("end runs")
	return err
}
func (o *recorder) EndBench() { o.add("end bench") }
func (o *recorder) CleanedUp(_ context.Context, b *BenchInfo, took time.Duration, err error) {
	if err == nil && took > 0 {
		b.Note("observed the clean-up")
	}
	o.add("cleaned up")
}

// TestObserverLifecycle: on a cluster etcdlab did not start, an Observer
// with every capability is told of the whole Run in order (warm-up and
// runs, each passing the gate after BeginRun, progress during a run, the
// clean-up, the end), and the notes it adds land in the result.
func TestObserverLifecycle(t *testing.T) {
	t.Parallel()
	c, _ := foreign(t, cluster.Options{})
	cfg := baseConfig(c, CmdPut)
	cfg.Prefix, cfg.Warmup, cfg.Iterations = "/observed/", "20", 2
	cfg.Total, cfg.Duration, cfg.Rate = 0, time.Second, 200
	o := &recorder{}
	cfg.Observers = []Observer{o}
	doc, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, r1, r2 := "put conns=2 clients=4 warm-up", "put conns=2 clients=4 iteration=1", "put conns=2 clients=4 iteration=2"
	want := []string{"begin bench /observed/",
		"begin " + w, "ready " + w, "end " + w,
		"begin " + r1, "ready " + r1, "end " + r1,
		"begin " + r2, "ready " + r2, "end " + r2,
		"end runs", "cleaned up", "end bench"}
	if !slices.Equal(o.events, want) {
		t.Fatalf("events\n%s\nwant\n%s", strings.Join(o.events, "\n"), strings.Join(want, "\n"))
	}
	if o.progress[r1] == 0 || o.progress[r2] == 0 {
		t.Errorf("progress %v: none during a 1 s run", o.progress)
	}
	if !slices.Contains(doc.Notes, "observed the clean-up") {
		t.Errorf("notes %q lack the observer's", doc.Notes)
	}
}

// TestGateRefuses: a Gate's error fails the run as the load's would, with
// every observer's EndRun called, and Run ends the observers.
func TestGateRefuses(t *testing.T) {
	t.Parallel()
	c, cli := foreign(t, cluster.Options{})
	cfg := baseConfig(c, CmdPut)
	cfg.Prefix = "/refused/"
	refusal := errors.New("not now")
	o := &recorder{refuse: refusal}
	cfg.Observers = []Observer{o}
	_, err := Run(context.Background(), cfg)
	if !errors.Is(err, refusal) {
		t.Fatalf("Run: %v, want the gate's error", err)
	}
	r := "put conns=2 clients=4"
	want := []string{"begin bench /refused/", "begin " + r, "ready " + r, "end " + r + " error", "end runs", "cleaned up", "end bench"}
	if !slices.Equal(o.events, want) {
		t.Fatalf("events %q, want %q", o.events, want)
	}
	if n := clustertest.Count(t, cli, "/refused/"); n != 0 {
		t.Fatalf("%d keys left", n)
	}
}

// TestAgentNeedsCoordination: an agent's run without a Slicer (the
// agents' coordination) is refused before anything is written.
func TestAgentNeedsCoordination(t *testing.T) {
	t.Parallel()
	c, _ := foreign(t, cluster.Options{})
	cfg := baseConfig(c, CmdPut)
	cfg.Prefix, cfg.Agent = "/agent/", Agent{Index: 1, Count: 2}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "agents.RunAgent") {
		t.Fatalf("Run: %v", err)
	}
}
