package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/etcdlab/etcdlab/internal/atomicfile"
	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/check"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
	"github.com/spf13/cobra"
)

func (a *app) checkCmd() *cobra.Command {
	var (
		o      check.Options
		out    string
		output string
		term   render.TerminalOptions
	)
	c := &cobra.Command{
		Use:   "check",
		Short: "Is this etcd fast enough? Disk, load, server metrics and verdicts in under a minute",
		Long: `With no flags, qualifies this machine for etcd: the disk probe (etcd's fio
job) on --data-dir's filesystem, a real local 3-member cluster on that disk,
load at etcdctl check perf's levels (s/m/l/xl: 150/1000/8000/15000 writes/s
with 50/200/500/1000 clients, 256 B keys, 1 KiB values) escalating until one
fails, a 1-client latency probe, and the members' metrics (WAL fsync and
backend commit p99, peer round trip, slow applies, leader changes, failed
proposals, heartbeat failures, CPU, RSS) computed from histogram deltas as
PromQL would. Each verdict names its threshold and source.

With --endpoints, checks a live cluster instead: no disk probe, load from
--load up to --max-load (default s) under the safety rules (own prefix,
deleted afterwards, quota check), plus the TCP connect time to each member.

Text output keeps within 120 columns (sources are numbered notes below the
verdict table); --wide prints it at full width. Writes result.json and
report.html into --out. Exit code 0 for PASS or WARN, 3 for FAIL, 1 when
the check could not run.`,
		Example: `  etcdlab check
  etcdlab check --data-dir /var/lib/etcd-candidate
  etcdlab check --endpoints https://10.0.0.1:2379 --cacert ca.crt --cert c.crt --key c.key --max-load m`,
		Args: noArgs,
		// check.Options.StartLoad is --load; the disk probe's Dir is --data-dir.
		Annotations: map[string]string{"param:StartLoad": "--load", "param:Dir": "--data-dir", "param:LoadCPUs": "--load-cpus"},
		RunE: func(c *cobra.Command, _ []string) error {
			format, err := outputFormat(result.KindCheck, output)
			if err != nil {
				return err
			}
			if err := validateCheck(c, o); err != nil {
				return err
			}
			if out == "" {
				out = "etcdlab-check-" + time.Now().Format("20060102-150405")
			}
			o.Log = a.stderr
			if o.LoadCPUs != 0 {
				if err := bench.ValidateLoadCPUs(o.LoadCPUs); err != nil {
					return err
				}
				if len(o.Conn.Endpoints) == 0 {
					return exitcode.Usagef("--load-cpus applies to a live cluster (--endpoints): the members check starts here would be born in the load's budget")
				}
				b, err := selfBudget(o.LoadCPUs, a.stderr) // this process sends the load and runs nothing else
				if err != nil {
					return err
				}
				defer b.Close()
			}
			doc, err := check.Run(c.Context(), o)
			if doc == nil {
				return err
			}
			if werr := a.writeCheck(doc, out, format, term); werr != nil {
				return werr
			}
			if err != nil {
				return err
			}
			if doc.Overall == result.Fail {
				return exitcode.With(errors.New("the verdict is FAIL (see above)"), exitcode.CheckFailed)
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.SortFlags = false
	addConnFlags(fl, &o.Conn)
	fl.StringSliceVar(&o.MetricsURLs, "metrics-urls", nil, "members' metrics URLs (default: the client endpoints)")
	fl.StringVar(&o.DataDir, "data-dir", ".", "directory on the disk to qualify (this machine only)")
	fl.StringVar(&o.StartLoad, "load", "s", "first load level: s, m, l or xl")
	fl.StringVar(&o.MaxLoad, "max-load", "", "highest load level (default: xl on this machine, s on a live cluster)")
	fl.DurationVar(&o.LevelDuration, "level-duration", 6*time.Second, "how long each load level runs (etcdctl check perf: 60s)")
	fl.DurationVar(&o.DiskRuntime, "disk-runtime", 8*time.Second, "cap on the disk probe")
	fl.Float64Var(&o.LoadCPUs, "load-cpus", 0, "with --endpoints: this process's CPU budget in cores (0.5, 2), a cgroup CPU quota on the load generator (root; 0: none)")
	fl.StringVar(&out, "out", "", "directory for result.json and report.html (default ./etcdlab-check-<time>)")
	fl.StringVarP(&output, "output", "o", "text", "stdout: text (verdicts) or json (the result)")
	fl.BoolVar(&term.Wide, "wide", false, "text at full width: sources in the verdict table, nothing wrapped (default: within 120 columns)")
	return c
}

// validateCheck checks check's command line before anything runs.
func validateCheck(c *cobra.Command, o check.Options) error {
	if err := positiveIfGiven(c, "level-duration", "disk-runtime"); err != nil {
		return err
	}
	if len(o.Conn.Endpoints) > 0 && c.Flags().Changed("data-dir") {
		return invalid.Errorf("--data-dir qualifies this machine's disk; with --endpoints check runs no disk probe")
	}
	if err := validateConn(o.Conn); err != nil {
		return err
	}
	return o.Validate()
}

// writeCheck prints the verdicts and writes result.json and report.html.
func (a *app) writeCheck(doc *result.Document, out string, format render.Format, term render.TerminalOptions) error {
	if err := render.Write(a.stdout, format, doc, render.Options{Terminal: term}); err != nil {
		return err
	}
	return a.writeResultFiles(doc, out, "check")
}

// writeResultFiles writes doc as out/result.json and out/report.html
// (named name in the report), each file whole or not at all, and says so
// on stderr.
func (a *app) writeResultFiles(doc *result.Document, out, name string) error {
	err := atomicfile.WriteDir(out,
		atomicfile.File{Name: "result.json", Perm: 0o666, Fill: func(w io.Writer) error { return result.Write(w, doc) }},
		atomicfile.File{Name: "report.html", Perm: 0o666, Fill: func(w io.Writer) error {
			return render.HTML(w, []result.Named{{Name: name, Doc: doc}}, judged(doc))
		}})
	if err != nil {
		return outError(out, err)
	}
	fmt.Fprintf(a.stderr, "wrote %s and %s\n", filepath.Join(out, "result.json"), filepath.Join(out, "report.html"))
	return nil
}
