package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/judge/bottleneck"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/result"
)

// Options configure a run of an experiment.
type Options struct {
	Plan *Plan
	// DataDir is where "disk" and "slow:" storage put the clusters (""
	// means ./.etcdlab: the current directory's disk).
	DataDir string
	// Resume is a partial result of the same file and profile to
	// continue: its ok cells are kept, and its failed ones unless
	// RetryFailed; the others run.
	Resume      *result.Document
	RetryFailed bool
	// Save is called with the result before the first cell and after
	// every cell, so that a killed run loses at most one cell; an error
	// stops the experiment.
	Save func(*result.Document) error
	// Progress, if set, is called when a cell starts and every second
	// while it runs.
	Progress func(Progress)
	// Log receives one-line notes for a person (a cell that failed).
	Log io.Writer
	// Live, if set, shows the bench lines' requests as Prometheus metrics
	// while they run, with the running cell's ID as the run's name
	// (load.Live.Begin); its totals add up over every cell.
	Live *load.Live
	// Executable is etcdlab: it runs the members of local clusters and
	// the disk job on slow storage (the disk job never runs in the
	// process that serves the slow file system). "" means the running
	// executable, which must be etcdlab or a test binary whose TestMain
	// calls member.RunIfChild (and then no slow-storage disk job).
	Executable string
	// LoadCPUs, if positive, is the load generator's CPU budget of every
	// local setup (overriding their load_cpus): loadbudget.go.
	LoadCPUs float64
}

// Progress is where an experiment is.
type Progress struct {
	// Cell is the running cell's position (from 1) among Cells to run
	// in this invocation; ID is its ID.
	Cell, Cells int
	ID          string
	// Elapsed is the time since the experiment started; Remaining the
	// estimate of what is left (the plan's estimates, scaled by how the
	// finished cells compared with theirs).
	Elapsed, Remaining time.Duration
}

// IncompleteError says an experiment did not complete every cell: it was
// interrupted, or cells failed. The result it comes with holds every
// cell's state.
type IncompleteError struct {
	Interrupted bool
	Failed      []string // cell IDs
	Pending     int      // cells not run (after an interruption)
}

func (e *IncompleteError) Error() string {
	var parts []string
	if e.Interrupted {
		parts = append(parts, fmt.Sprintf("interrupted: %d cells left to run (the result is partial; --resume continues it)", e.Pending))
	}
	if len(e.Failed) > 0 {
		parts = append(parts, fmt.Sprintf("%d cells failed: %s", len(e.Failed), strings.Join(e.Failed, ", ")))
	}
	return strings.Join(parts, "; ")
}

// Run runs the plan's cells in order, each on a fresh cluster (or its
// setup's shared one with reuse), and returns the experiment's result.
// A cell that fails is recorded with its reason and the others still run;
// cancelling ctx finishes the current cell's cleanup (its cluster stopped,
// keys on a live cluster deleted), marks it interrupted and the rest
// pending, sets Experiment.Partial and returns. Either way the error is an
// *IncompleteError. Bad options (a Resume of another file) are
// invalid-input errors, and nothing runs.
func Run(ctx context.Context, o Options) (*result.Document, error) {
	if o.Plan == nil {
		return nil, invalid.Errorf("{Plan} is required")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Save == nil {
		o.Save = func(*result.Document) error { return nil }
	}
	if o.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find own executable: %w", err)
		}
		o.Executable = exe
	}
	if err := checkLoadOverride(o.Plan, o.LoadCPUs); err != nil {
		return nil, err
	}
	doc := NewDocument(o.Plan)
	if o.Resume != nil {
		if err := resume(doc, o.Resume, o.RetryFailed); err != nil {
			return nil, err
		}
	}
	r := &runner{o: o, plan: o.Plan, doc: doc, began: time.Now(), clusters: map[string]*setupCluster{}}
	defer r.stopClusters()
	if err := o.Save(doc); err != nil {
		return doc, err
	}
	return doc, r.run(ctx)
}

// NewDocument is the result of a plan before anything ran: every cell
// pending.
func NewDocument(p *Plan) *result.Document {
	exp := &result.Experiment{
		Name: p.Spec.Name, Title: p.Spec.Title, Source: p.Spec.Source, Profile: p.Profile,
		Spec: string(p.Spec.Text()), Published: p.Published, KneeParam: p.Spec.Knee,
		Marks: p.Spec.resultMarks(),
	}
	for _, c := range p.Spec.Compare {
		exp.Compare = append(exp.Compare, result.Comparison{Along: c.Along, Base: c.Base})
	}
	for _, c := range p.Cells {
		exp.Cells = append(exp.Cells, result.Cell{ID: c.ID, Setup: c.Setup.Name, Workload: c.Workload.Name, Params: c.Params, Status: result.CellPending})
	}
	return &result.Document{
		SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment, CreatedAt: time.Now().UTC(),
		Environment: envinfo.Collect(), Runs: []result.Run{}, Experiment: exp,
	}
}

// resume copies the cells of a partial result that need not run again
// into doc, after checking it is the same experiment.
func resume(doc, old *result.Document, retryFailed bool) error {
	if old.Kind != result.KindExperiment || old.Experiment == nil {
		return invalid.Errorf("the result to resume is a %s result, not an experiment's", old.Kind)
	}
	e, n := old.Experiment, doc.Experiment
	if e.Name != n.Name || e.Spec != n.Spec {
		return invalid.Errorf("the result to resume is of another experiment file (%s): the file changed since, or it is another one; refusing to mix them", e.Name)
	}
	if e.Profile != n.Profile {
		return invalid.Errorf("the result to resume ran profile %s, not %s", e.Profile, n.Profile)
	}
	byID := map[string]result.Cell{}
	for _, c := range e.Cells {
		byID[c.ID] = c
	}
	for i, c := range n.Cells {
		oc, ok := byID[c.ID]
		if !ok {
			return invalid.Errorf("the result to resume has no cell %s", c.ID)
		}
		if oc.Status == result.CellOK || (oc.Status == result.CellFailed && !retryFailed) {
			n.Cells[i] = oc
		}
	}
	doc.CreatedAt, doc.Environment = old.CreatedAt, old.Environment
	return nil
}

// runner runs one experiment. It is used by one goroutine (fault
// timelines have their own, see timeline).
type runner struct {
	o        Options
	plan     *Plan
	doc      *result.Document
	began    time.Time
	clusters map[string]*setupCluster // reused clusters by setup
	// estimated and actual time of the cells finished so far, for the ETA
	doneEstimate, doneActual time.Duration
}

func (r *runner) run(ctx context.Context) error {
	cells := r.doc.Experiment.Cells
	var todo []int
	for i, c := range cells {
		if c.Status != result.CellOK && c.Status != result.CellFailed {
			todo = append(todo, i)
		}
	}
	lastOfSetup := map[string]int{}
	for _, i := range todo {
		lastOfSetup[cells[i].Setup] = i
	}
	for k, i := range todo {
		if ctx.Err() != nil {
			break
		}
		pc := &r.plan.Cells[i]
		began := time.Now()
		stopTicker := r.progress(k+1, len(todo), todo[k:], began)
		endLive := func() {}
		if r.o.Live != nil {
			endLive = r.o.Live.Begin(pc.ID)
		}
		cell := r.runCell(ctx, pc, lastOfSetup[pc.Setup.Name] == i)
		endLive()
		stopTicker()
		r.doneEstimate += pc.Estimate
		r.doneActual += time.Since(began)
		cells[i] = cell
		// The cell's statement now; the sweep's once every cell ran.
		bottleneck.Fill(r.doc, bottleneck.Options{})
		r.doc.Experiment.Bottleneck, r.doc.Experiment.Knees = nil, nil
		if cell.Status == result.CellFailed {
			fmt.Fprintf(r.o.Log, "cell %s failed: %s\n", cell.ID, cell.Error)
		}
		if err := r.o.Save(r.doc); err != nil {
			return err
		}
	}
	e := &IncompleteError{}
	for _, c := range cells {
		switch c.Status {
		case result.CellFailed:
			e.Failed = append(e.Failed, c.ID)
		case result.CellPending, result.CellInterrupted:
			e.Pending++
		}
	}
	if ctx.Err() != nil && e.Pending > 0 {
		e.Interrupted = true
		r.doc.Experiment.Partial = "interrupted"
	} else {
		r.doc.Experiment.Partial = ""
	}
	bottleneck.Fill(r.doc, bottleneck.Options{})
	if err := r.o.Save(r.doc); err != nil {
		return err
	}
	if e.Interrupted || len(e.Failed) > 0 {
		return e
	}
	return nil
}

// progress reports the cell starting and then every second until the
// returned function is called. rest are the indexes of the cells left,
// this one first.
func (r *runner) progress(n, total int, rest []int, began time.Time) func() {
	if r.o.Progress == nil {
		return func() {}
	}
	report := func() {
		var left time.Duration
		for _, i := range rest {
			left += r.plan.Cells[i].Estimate
		}
		if r.doneEstimate > 0 {
			left = time.Duration(float64(left) * float64(r.doneActual) / float64(r.doneEstimate))
		}
		left = max(0, left-time.Since(began))
		r.o.Progress(Progress{Cell: n, Cells: total, ID: r.plan.Cells[rest[0]].ID, Elapsed: time.Since(r.began), Remaining: left})
	}
	report()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				report()
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// stopClusters stops the reused clusters still running.
func (r *runner) stopClusters() {
	for name, sc := range r.clusters {
		_ = sc.c.Stop()
		delete(r.clusters, name)
	}
}

// oneLine is an error's message on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ")), " ")
}
