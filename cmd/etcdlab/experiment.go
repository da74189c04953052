package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/etcdlab/etcdlab/internal/atomicfile"
	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/lab/cgroup"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/experiment"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/measure/jobs"
	"github.com/etcdlab/etcdlab/measure/sizejob"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
	"github.com/spf13/cobra"
)

func (a *app) experimentCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "experiment",
		Short: "Run a whole experiment: cluster setups × workloads × sweeps, one result",
		Long: `An experiment file declares a matrix: cluster setups (members, storage,
emulated network, tuning, TLS, or a live cluster), workloads (any bench command
line as etcd benchmark takes it, the disk job, a check), sweeps of values
substituted into the lines, warm-up and iterations, an optional fault
timeline, and the figures the source article published. Each cell runs on a
fresh cluster; one result holds them all. The built-in experiments reproduce
the five field reports; see 'etcdlab experiment list' and docs/experiments.md.`,
		Args: groupArgs,
		RunE: helpRun,
	}
	c.AddCommand(a.experimentRunCmd(), a.experimentListCmd())
	return c
}

// experimentRunOptions are the flags of `etcdlab experiment run`.
type experimentRunOptions struct {
	quick       bool
	profile     string
	out         string
	dataDir     string
	resume      string
	retryFailed bool
	dryRun      bool
	output      string
	quiet       bool
	listen      string
	loadCPUs    float64
	sweep       []string
}

func (a *app) experimentRunCmd() *cobra.Command {
	var o experimentRunOptions
	c := &cobra.Command{
		Use:   "run NAME|FILE",
		Short: "Run a built-in experiment or an experiment file",
		Long: `Runs every cell of the experiment in order, each on a fresh local cluster
(unless its setup says reuse). It writes result.json into --out after every
cell, so that a killed run loses at most one cell, and summary.txt (the text
printed) and report.html (charts, as 'etcdlab report' draws them) at the end.

A cell that fails (a cluster that does not start, a workload error) is recorded
with its reason and the others still run; the exit code is then 1. Ctrl-C
finishes the current cell's cleanup (its cluster stopped, keys written to a
live cluster deleted), marks it interrupted and the rest pending, writes the
partial result and exits 1; --resume DIR continues it (the file must not have
changed). --dry-run prints the cells, their command lines and an estimated
time, and runs nothing.`,
		Example: `  etcdlab experiment list
  etcdlab experiment run storage-sweep --quick
  etcdlab experiment run leader-vs-all --dry-run
  etcdlab experiment run my-experiment.yaml --out results/
  etcdlab experiment run --resume etcdlab-experiment-storage-sweep-20260101-120000`,
		Args:        cobra.MaximumNArgs(1),
		Annotations: map[string]string{"param:LoadCPUs": "--load-cpus"},
		RunE: func(c *cobra.Command, args []string) error {
			return a.runExperiment(c, args, o)
		},
	}
	fl := c.Flags()
	fl.SortFlags = false
	fl.BoolVar(&o.quick, "quick", false, "the quick profile: sizes for a small machine (the same as --profile quick)")
	fl.StringVar(&o.profile, "profile", "", "run under this profile of the file (default full: the file as written)")
	fl.StringVar(&o.out, "out", "", "directory for result.json, summary.txt and report.html (default ./etcdlab-experiment-<name>-<time>; with --resume, its directory)")
	fl.StringVar(&o.dataDir, "data-dir", "", "where 'disk' and 'slow:' storage put the clusters (default ./.etcdlab, this directory's disk)")
	fl.StringVar(&o.resume, "resume", "", "continue the partial result in this directory (or result file): run its pending, interrupted (and with --retry-failed, failed) cells")
	fl.BoolVar(&o.retryFailed, "retry-failed", false, "with --resume, run the failed cells again too")
	fl.StringArrayVar(&o.sweep, "sweep", nil, "NAME=V1,V2: run the swept parameter NAME at these values instead of the file's (repeatable): experiment run replay --sweep profile=prod.yaml")
	fl.BoolVar(&o.dryRun, "dry-run", false, "print the plan (cells, setups, command lines) and its estimated time; run nothing")
	fl.StringVarP(&o.output, "output", "o", "text", "stdout at the end: text (a summary of the cells) or json (the result)")
	fl.BoolVar(&o.quiet, "quiet", false, "no progress line")
	fl.StringVar(&o.listen, "listen-metrics", "", listenMetricsUsage)
	fl.Float64Var(&o.loadCPUs, "load-cpus", 0,
		"the load generator's CPU budget in cores (0.5, 2) for every local setup's bench cells, overriding their load_cpus: each runs its load in a process of its own in a cgroup with that quota (root; 0: the setups')")
	return c
}

// runExperiment is `etcdlab experiment run`.
func (a *app) runExperiment(c *cobra.Command, args []string, o experimentRunOptions) error {
	format, err := outputFormat(result.KindExperiment, o.output)
	if err != nil {
		return err
	}
	if o.quick {
		if o.profile != "" && o.profile != "quick" {
			return exitcode.Usagef("--quick is --profile quick; not with --profile %s", o.profile)
		}
		o.profile = "quick"
	}
	if o.retryFailed && o.resume == "" {
		return exitcode.Usagef("--retry-failed needs --resume")
	}
	var old *result.Document
	if o.resume != "" {
		var err error
		if old, err = experiment.ReadResume(o.resume); err != nil {
			return err
		}
		if o.out == "" {
			o.out = experiment.ResumeDir(o.resume)
		}
	}
	spec, err := loadSpec(args, old)
	if err != nil {
		return err
	}
	if old != nil && o.profile == "" {
		o.profile = old.Experiment.Profile
	}
	for _, sw := range o.sweep {
		name, values, ok := strings.Cut(sw, "=")
		if !ok || name == "" {
			return exitcode.Usagef("--sweep %q: write NAME=V1,V2", sw)
		}
		if err := spec.SetSweep(name, strings.Split(values, ",")); err != nil {
			return err
		}
	}
	plan, err := spec.Plan(o.profile)
	if err != nil {
		return err
	}
	if o.loadCPUs != 0 {
		if err := bench.ValidateLoadCPUs(o.loadCPUs); err != nil {
			return err
		}
	}
	if o.dryRun {
		return experiment.WritePlan(a.stdout, plan)
	}
	if o.loadCPUs > 0 || plan.LoadBudgeted() {
		if _, err := cgroup.Open(0); err != nil { // before any cell: this machine cannot do what was asked
			return budgetExit(&cluster.BudgetError{Err: err})
		}
	}
	var live *load.Live
	if o.listen != "" {
		live = load.NewLive(load.LiveOptions{Command: "experiment"})
		srv, err := a.serveMetrics(o.listen, live)
		if err != nil {
			return err
		}
		defer srv.close()
	}
	if o.out == "" {
		o.out = "etcdlab-experiment-" + spec.Name + "-" + time.Now().Format("20060102-150405")
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return exitcode.Failuref("--out %s: %v", o.out, err)
	}
	ro := experiment.Options{
		Plan: plan, DataDir: o.dataDir, Resume: old, RetryFailed: o.retryFailed, Log: a.stderr, Live: live, LoadCPUs: o.loadCPUs,
		Save: func(doc *result.Document) error { return saveExperiment(o.out, doc) },
	}
	if !o.quiet && isTerminal(a.stderr) {
		ro.Progress = func(p experiment.Progress) {
			fmt.Fprintf(a.stderr, "\r\033[K[cell %d/%d] %s · %s elapsed · about %s left", p.Cell, p.Cells, p.ID,
				p.Elapsed.Round(time.Second), p.Remaining.Round(time.Second))
		}
	}
	fmt.Fprintf(a.stderr, "experiment %s, profile %s: %d cells, estimated %s; writing %s\n", spec.Name, plan.Profile, len(plan.Cells),
		plan.Estimate().Round(time.Second), o.out)
	doc, runErr := experiment.Run(c.Context(), ro)
	if ro.Progress != nil {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	if doc == nil {
		return runErr
	}
	if err := writeSummaryFile(o.out, doc); err != nil {
		return err
	}
	if err := render.Write(a.stdout, format, doc, render.Options{Judged: judged(doc)}); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "wrote %s, %s and %s\n", filepath.Join(o.out, experiment.ResultFile), filepath.Join(o.out, "summary.txt"),
		filepath.Join(o.out, "report.html"))
	return runErr
}

// experimentJobs is every job an experiment file may name: measure/jobs'
// registry and the size job (measure/sizejob), whose probes run with
// the others.
func experimentJobs() job.Registry { return sizejob.With(jobs.Registry()) }

// loadSpec reads the experiment named on the command line, or the one
// stored in the result being resumed (with both, they must be the same),
// its workloads with the jobs of experimentJobs.
func loadSpec(args []string, old *result.Document) (*experiment.Spec, error) {
	if len(args) == 0 && old == nil {
		return nil, exitcode.Usagef("name a built-in experiment (etcdlab experiment list) or an experiment file")
	}
	if len(args) == 0 {
		return experiment.ResumeSpec(old, experimentJobs())
	}
	return experiment.Load(args[0], experimentJobs())
}

// saveExperiment writes result.json atomically (experiment.Save); a
// directory it cannot write in is --out's.
func saveExperiment(dir string, doc *result.Document) error {
	err := experiment.Save(dir, doc)
	var se *experiment.SaveError
	if errors.As(err, &se) {
		return outError(se.Dir, se.Err)
	}
	return err
}

// writeSummaryFile writes the experiment's text summary (summary.txt, as
// printed) and its HTML report (report.html, as `etcdlab report` draws it)
// into dir, each file whole or not at all.
func writeSummaryFile(dir string, doc *result.Document) error {
	err := atomicfile.WriteDir(dir,
		atomicfile.File{Name: "summary.txt", Perm: 0o666, Fill: func(w io.Writer) error {
			return render.ExperimentText(w, doc, render.TerminalOptions{}, judged(doc))
		}},
		atomicfile.File{Name: "report.html", Perm: 0o666, Fill: func(w io.Writer) error {
			return render.HTML(w, []result.Named{{Name: doc.Experiment.Name, Doc: doc}}, judged(doc))
		}})
	if err != nil {
		return outError(dir, err)
	}
	return nil
}

func (a *app) experimentListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the built-in experiments, with their sources and estimated times",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			return writeExperimentList(a.stdout)
		},
	}
}

// writeExperimentList prints each built-in experiment: name, estimated
// time for --quick and full, title and source.
func writeExperimentList(w interface{ Write([]byte) (int, error) }) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tQUICK\tFULL\tTITLE")
	var sources []string
	for _, name := range experiment.Builtins() {
		s, err := experiment.Load(name, experimentJobs())
		if err != nil {
			return err
		}
		est := map[string]string{}
		for _, p := range s.ProfileNames() {
			pl, err := s.Plan(p)
			if err != nil {
				return err
			}
			est[p] = "~" + roundMinutes(pl.Estimate())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, or(est["quick"], "-"), est["full"], s.Title)
		sources = append(sources, fmt.Sprintf("  %s: %s", name, s.Source))
	}
	_ = tw.Flush()
	b.WriteString("\nsources:\n" + strings.Join(sources, "\n") + "\n")
	b.WriteString("\nTimes are estimates for this kind of machine (docs/experiments.md); 'etcdlab experiment run NAME --dry-run' shows the cells.\n")
	_, err := w.Write([]byte(b.String()))
	return err
}

// roundMinutes writes a duration to the minute ("12m"), or seconds under
// two minutes.
func roundMinutes(d time.Duration) string {
	if d < 2*time.Minute {
		return d.Round(10 * time.Second).String()
	}
	m := d.Round(time.Minute)
	if m >= time.Hour {
		return strings.TrimSuffix(m.String(), "0s")
	}
	return fmt.Sprintf("%dm", int(m.Minutes()))
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
