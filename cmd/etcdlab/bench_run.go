package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/engines"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// runBench runs the benchmark cfg describes and writes its result as o asks.
func (a *app) runBench(c *cobra.Command, o bench.Output, cfg bench.Config) error {
	if _, err := outputFormat(result.KindBench, o.Format); err != nil {
		return err
	}
	cfg.Log = a.stderr
	if err := bench.ValidateLoadCPUs(cfg.LoadCPUs); err != nil {
		return err
	}
	// A load budget on a local cluster: the load in a process of its own,
	// as one agent, so that the budget does not hold the cluster's
	// emulation that runs in this process.
	if cfg.Agent.Count > 1 || (cfg.LoadCPUs > 0 && len(cfg.Conn.Endpoints) == 0) {
		return a.runAgents(c, o, cfg)
	}
	if o.CPUs < 0 {
		return exitcode.Usagef("--cpus must be 0 (every core) or more, not %d", o.CPUs)
	}
	if cfg.LoadCPUs > 0 { // a live cluster: this process sends the load and runs nothing else
		b, err := selfBudget(cfg.LoadCPUs, a.stderr)
		if err != nil {
			return err
		}
		defer b.Close()
	}
	if o.CPUs > 0 && a.maxProcs != nil {
		defer a.maxProcs(a.maxProcs(o.CPUs))
	}
	if o.CPUProfile != "" {
		pf, err := os.Create(o.CPUProfile)
		if err != nil {
			return exitcode.Failuref("--cpuprofile: %v", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return exitcode.Failuref("--cpuprofile: %v", err)
		}
		defer pprof.StopCPUProfile()
	}
	if o.ListenMetrics != "" {
		if err := cfg.Validate(); err != nil {
			return err // before listening: a bad command line says only why
		}
		live := load.NewLive(bench.LiveOptions(cfg))
		srv, err := a.serveMetrics(o.ListenMetrics, live)
		if err != nil {
			return err
		}
		defer srv.close()
		cfg.Observers = append(cfg.Observers, bench.ShowLive(live))
	}
	bar := !o.Quiet && isTerminal(a.stderr)
	if bar {
		cfg.Observers = append(cfg.Observers, bench.ShowProgress(progressBar(a.stderr)))
	}
	cfg.Engines = engines.All()
	doc, err := bench.Run(c.Context(), cfg)
	if bar {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	if werr := a.showBench(doc, o); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	if c.Context().Err() != nil {
		return exitcode.Failuref("interrupted: the results above are partial")
	}
	return nil
}

// showBench prints a bench result's notes and writes it as o asks
// (nothing for a nil doc).
func (a *app) showBench(doc *result.Document, o bench.Output) error {
	if doc == nil {
		return nil
	}
	for _, n := range doc.Notes {
		fmt.Fprintln(a.stderr, "note:", n)
	}
	if err := a.writeBench(doc, o); err != nil {
		return err
	}
	if o.Perfdash {
		return a.writePerfdash(doc, o.PerfdashDir)
	}
	return nil
}

// writeBench writes a bench result as -o (validated) asks.
func (a *app) writeBench(doc *result.Document, o bench.Output) error {
	return render.Write(a.stdout, render.Format(o.Format), doc, render.Options{Bench: render.TextOptions{Precise: o.Precise, Sample: o.Sample}})
}

// writePerfdash writes --report-perfdash's files into dir: $ARTIFACTS's
// directory, or ./_artifacts when it is empty, as etcd benchmark v3.7.
func (a *app) writePerfdash(doc *result.Document, dir string) error {
	if dir == "" {
		dir = os.Getenv("ARTIFACTS")
	}
	if dir == "" {
		dir = render.PerfdashDefaultDir
	}
	paths, err := render.WritePerfdash(dir, doc)
	for _, p := range paths {
		fmt.Fprintln(a.stderr, "note: perf-dash report written to", p)
	}
	if err != nil {
		return exitcode.Failuref("--report-perfdash: %v", err)
	}
	return nil
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressBar redraws one line on a terminal.
func progressBar(w any) func(label string, done, total int64) {
	out := w.(*os.File)
	return func(label string, done, total int64) {
		if total > 0 {
			pct := float64(done) / float64(total)
			n := int(pct * 30)
			fmt.Fprintf(out, "\r\033[K%s [%-30s] %3.0f%% %d/%d", label, bar(n), pct*100, done, total)
			return
		}
		fmt.Fprintf(out, "\r\033[K%s %d requests", label, done)
	}
}

func bar(n int) string {
	b := make([]byte, max(0, min(n, 30)))
	for i := range b {
		b[i] = '='
	}
	return string(b)
}
