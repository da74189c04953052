package experiment

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/result"
)

// plan parses text and plans its full profile.
func plan(t *testing.T, text string) *Plan {
	t.Helper()
	s, err := parseSpec("test.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan("")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// saves records every result Run saves, as JSON round trips would see it.
type saves struct {
	mu   sync.Mutex
	docs []*result.Document
}

func (s *saves) save(doc *result.Document) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	if err := result.Write(&b, doc); err != nil {
		return err
	}
	d, err := result.Read(strings.NewReader(b.String()))
	if err != nil {
		return err
	}
	s.docs = append(s.docs, d)
	return nil
}

// noData fails if a cluster left data under dir.
func noData(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "data-") {
			t.Errorf("left behind: %s", filepath.Join(dir, e.Name()))
		}
	}
}

const twoCells = `name: two
setups:
  - {name: one, members: 1}
workloads:
  - name: put
    bench: --clients={clients} put --total=300 --val-size=64
sweep:
  clients: [1, 4]
published:
  - {match: {clients: "4"}, metric: throughput_rps, value: 100, note: elsewhere}
`

// TestRunTwoCells runs a two-cell experiment on real 1-member clusters:
// each cell has its own cluster, its runs, its overhead, and the result is
// saved before the first cell and after each.
func TestRunTwoCells(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var sv saves
	doc, err := Run(context.Background(), Options{Plan: plan(t, twoCells), DataDir: dir, Save: sv.save})
	if err != nil {
		t.Fatal(err)
	}
	e := doc.Experiment
	if doc.Kind != result.KindExperiment || e.Name != "two" || e.Profile != "full" || e.Spec != twoCells || e.Partial != "" || len(e.Published) != 1 {
		t.Fatalf("document: %+v", e)
	}
	if len(e.Cells) != 2 {
		t.Fatalf("%d cells", len(e.Cells))
	}
	dirs := map[string]bool{}
	for i, c := range e.Cells {
		clients := []int{1, 4}[i]
		if c.Status != result.CellOK || c.Error != "" || len(c.Runs) != 1 || c.Runs[0].Clients != clients || c.Runs[0].Requests != 300 {
			t.Errorf("cell %s: status %s %q, runs %+v", c.ID, c.Status, c.Error, c.Runs)
		}
		if c.Params["clients"] != fmt.Sprint(clients) || c.Setup != "one" || c.Workload != "put" || c.Bench == nil || c.Bench.Workload == nil {
			t.Errorf("cell %s: params %v bench %+v", c.ID, c.Params, c.Bench)
		}
		if c.Overhead.ClusterStartSeconds <= 0 || c.Overhead.TeardownSeconds <= 0 || !c.End.After(c.Start) {
			t.Errorf("cell %s: overhead %+v, %v to %v", c.ID, c.Overhead, c.Start, c.End)
		}
		if !c.Environment.LocalCluster || c.Environment.Members != 1 || !strings.HasPrefix(c.Environment.DataDir, dir) {
			t.Errorf("cell %s: environment %+v", c.ID, c.Environment)
		}
		dirs[c.Environment.DataDir] = true
	}
	if len(dirs) != 2 {
		t.Errorf("the cells shared a cluster: %v", dirs)
	}
	// Saved: all pending, after cell 1, after cell 2, and at the end.
	if len(sv.docs) != 4 {
		t.Fatalf("saved %d times, want 4", len(sv.docs))
	}
	if s := sv.docs[0].Experiment.Cells; s[0].Status != result.CellPending || s[1].Status != result.CellPending {
		t.Errorf("first save: %s %s", s[0].Status, s[1].Status)
	}
	if s := sv.docs[1].Experiment.Cells; s[0].Status != result.CellOK || s[1].Status != result.CellPending {
		t.Errorf("second save: %s %s", s[0].Status, s[1].Status)
	}
	noData(t, dir)
}

// TestRunReuse: a setup with reuse runs its cells on one cluster, started
// once.
func TestRunReuse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := strings.Replace(twoCells, "{name: one, members: 1}", "{name: one, members: 1, reuse: true}", 1)
	doc, err := Run(context.Background(), Options{Plan: plan(t, text), DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	a, b := doc.Experiment.Cells[0], doc.Experiment.Cells[1]
	if a.Environment.DataDir != b.Environment.DataDir || a.Overhead.ClusterStartSeconds <= 0 || b.Overhead.ClusterStartSeconds != 0 ||
		a.Overhead.TeardownSeconds != 0 || b.Overhead.TeardownSeconds <= 0 {
		t.Fatalf("reuse: %s %+v / %s %+v", a.Environment.DataDir, a.Overhead, b.Environment.DataDir, b.Overhead)
	}
	noData(t, dir)
}

// TestRunFailingCell: a setup whose cluster cannot start (its fixed port
// is taken) fails its cells with the reason; the other setup's cells still
// run, and the error names the failed cells.
func TestRunFailingCell(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	text := fmt.Sprintf(`name: failing
setups:
  - {name: taken, members: 1, port_base: %d}
  - {name: fine, members: 1}
workloads:
  - name: put
    bench: put --total=100
`, port)
	dir := t.TempDir()
	var sv saves
	doc, err := Run(context.Background(), Options{Plan: plan(t, text), DataDir: dir, Save: sv.save})
	var inc *IncompleteError
	if !errors.As(err, &inc) || inc.Interrupted || len(inc.Failed) != 1 || inc.Failed[0] != "taken/put" {
		t.Fatalf("error %v (%#v)", err, inc)
	}
	if !strings.Contains(err.Error(), "1 cells failed: taken/put") {
		t.Errorf("error text %q", err)
	}
	taken, fine := doc.Experiment.Cells[0], doc.Experiment.Cells[1]
	if taken.Status != result.CellFailed || !strings.Contains(taken.Error, "start the cluster") || !strings.Contains(taken.Error, fmt.Sprint(port)) ||
		strings.Contains(taken.Error, "\n") {
		t.Errorf("failed cell: %s %q", taken.Status, taken.Error)
	}
	if fine.Status != result.CellOK || len(fine.Runs) != 1 {
		t.Errorf("other cell: %s %q", fine.Status, fine.Error)
	}
	if last := sv.docs[len(sv.docs)-1]; last.Experiment.Cells[0].Status != result.CellFailed || last.Experiment.Partial != "" {
		t.Errorf("saved: %+v", last.Experiment.Cells[0])
	}
	noData(t, dir)
}

// TestInterruptAndResume cancels the experiment during its second cell:
// the cell is interrupted, the third pending, the result partial and
// saved; resuming it runs the second and third and keeps the first as it
// was.
func TestInterruptAndResume(t *testing.T) {
	t.Parallel()
	text := `name: three
setups:
  - {name: one, members: 1}
workloads:
  - name: put
    bench: --clients={clients} --duration=3s put
sweep:
  clients: [1, 2, 3]
`
	p := plan(t, text)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	o := Options{Plan: p, DataDir: dir, Progress: func(pr Progress) {
		if pr.Cell == 2 && pr.Elapsed > 0 {
			once.Do(func() { time.AfterFunc(2500*time.Millisecond, cancel) }) // during its cluster's start or its run
		}
	}}
	doc, err := Run(ctx, o)
	var inc *IncompleteError
	if !errors.As(err, &inc) || !inc.Interrupted || inc.Pending != 2 {
		t.Fatalf("error %v", err)
	}
	cells := doc.Experiment.Cells
	if doc.Experiment.Partial != "interrupted" || cells[0].Status != result.CellOK || cells[1].Status != result.CellInterrupted || cells[2].Status != result.CellPending {
		t.Fatalf("partial %q, cells %s %s %s", doc.Experiment.Partial, cells[0].Status, cells[1].Status, cells[2].Status)
	}
	if len(cells[1].Runs) > 1 || (len(cells[1].Runs) == 1 && cells[1].Runs[0].DurationSeconds >= 3) {
		t.Errorf("interrupted cell: %+v (%q)", cells[1].Runs, cells[1].Error)
	}
	noData(t, dir)

	// The partial result as a file would give it back.
	var b strings.Builder
	if err := result.Write(&b, doc); err != nil {
		t.Fatal(err)
	}
	old, err := result.Read(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	done, err := Run(context.Background(), Options{Plan: plan(t, text), DataDir: dir, Resume: old})
	if err != nil {
		t.Fatal(err)
	}
	cells = done.Experiment.Cells
	for _, c := range cells {
		if c.Status != result.CellOK || len(c.Runs) != 1 || c.Runs[0].DurationSeconds < 2.9 {
			t.Errorf("resumed cell %s: %s %q %d runs", c.ID, c.Status, c.Error, len(c.Runs))
		}
	}
	if !cells[0].Start.Equal(old.Experiment.Cells[0].Start) || done.Experiment.Partial != "" {
		t.Errorf("the first cell ran again, or the result is still partial (%q)", done.Experiment.Partial)
	}

	// A changed file is not resumed.
	changed := plan(t, strings.Replace(text, "3s", "4s", 1))
	if _, err := Run(context.Background(), Options{Plan: changed, DataDir: dir, Resume: old}); !invalid.Is(err) || !strings.Contains(err.Error(), "another experiment file") {
		t.Errorf("resume of a changed file: %v", err)
	}
}

// TestFaultTimeline kills the leader of a 3-member cluster 1 s into the
// measured run and restarts it a second later: the events name the member,
// the election time, and the restart.
func TestFaultTimeline(t *testing.T) {
	t.Parallel()
	text := `name: faults
setups:
  - {name: three, members: 3}
workloads:
  - name: put
    bench: --clients=4 --duration=4s --warmup=200 put
faults:
  - {at: 1s, kill: leader, for: 1s}
  - {at: 60s, pause: m1}
`
	// The pause is due after the run, whatever the machine's load: the run
	// lasts 4 s plus, after the kill, requests waiting up to their 10 s
	// timeout (CI once saw a run still going at 10 s).
	dir := t.TempDir()
	doc, err := Run(context.Background(), Options{Plan: plan(t, text), DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c := doc.Experiment.Cells[0]
	if len(c.Faults) != 3 {
		t.Fatalf("events %+v", c.Faults)
	}
	kill, restart, pause := c.Faults[0], c.Faults[1], c.Faults[2]
	if kill.Action != "kill" || !strings.HasPrefix(kill.Target, "m") || kill.Error != "" || kill.NewLeaderSeconds <= 0 || kill.NewLeaderSeconds > 10 ||
		!strings.Contains(kill.Detail, "the leader") || kill.AtSeconds != 1 {
		t.Errorf("kill: %+v", kill)
	}
	if restart.Action != "restart" || restart.Target != kill.Target || restart.Error != "" || restart.AtSeconds != 2 {
		t.Errorf("restart: %+v", restart)
	}
	if pause.Action != "pause" || !strings.Contains(pause.Error, "not applied") {
		t.Errorf("a step after the run: %+v", pause)
	}
	if d := restart.Time.Sub(kill.Time); d < 900*time.Millisecond || d > 2*time.Second {
		t.Errorf("restart %v after the kill, want about 1s", d)
	}
	if c.Runs[0].Start.After(kill.Time) || kill.Time.Sub(c.Runs[0].Start) > 1500*time.Millisecond {
		t.Errorf("kill at %v, measured run started %v: the timeline starts with the measured run, not the warm-up", kill.Time, c.Runs[0].Start)
	}
	noData(t, dir)
}
