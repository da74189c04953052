package main

import (
	"errors"
	"os"
	"time"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/measure/doctor"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
	"github.com/spf13/cobra"
)

func (a *app) doctorCmd() *cobra.Command {
	var (
		o      doctor.Options
		output string
		out    string
		term   render.TerminalOptions
	)
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Why is this etcd slow? A read-only diagnosis of a live cluster",
		Long: `Diagnoses a running cluster without writing to it (no key written, no
compaction, no defragmentation: only reads, status and metrics), in the
order the field reports work: membership and status (members, versions,
one leader, applied index lag, alarms, the database against its quota and
its fragmentation); serializable and linearizable reads on every member;
CPU and memory; the network (TCP connect time from here, peer round trip,
peer send failures); the disk (WAL fsync and backend commit p99 over the
window, from histogram deltas as PromQL); the members' own complaints (slow
applies, late heartbeats, leader changes, failed proposals, gRPC errors).
Metrics and probes are watched for --window.

Then the diagnosis: findings ranked by how well the evidence explains a
slow cluster, each with its measurements, threshold and source, the member
where it is one member's, and the fix. What could not be seen is said,
never a hang. Exit code 0 when no finding fails, 3 when one does, 1 when
the diagnosis could not run.`,
		Example: `  etcdlab doctor --endpoints https://10.0.0.1:2379,https://10.0.0.2:2379,https://10.0.0.3:2379 --cacert ca.crt --cert c.crt --key c.key
  etcdlab doctor --endpoints 127.0.0.1:2379 --metrics-urls http://127.0.0.1:2381 -o json`,
		Args: noArgs,
		// ProbeInterval has no flag: the library's own default.
		Annotations: map[string]string{"param:MetricsURLs": "--metrics-urls", "param:Dir": "--data-dir", "param:ProbeInterval": "the probe interval",
			"param:URL": "--prometheus", "param:Selector": "--prometheus-selector", "param:RateWindow": "the rate window", "param:Step": "the step", "param:Timeout": "the query timeout"},
		RunE: func(c *cobra.Command, _ []string) error {
			format, err := outputFormat(result.KindDoctor, output)
			if err != nil {
				return err
			}
			if err := positiveIfGiven(c, "window", "keyspace-page"); err != nil {
				return err
			}
			if err := validateConn(o.Conn); err != nil {
				return err
			}
			o.Log, o.Stdin = a.stderr, os.Stdin
			doc, err := doctor.Run(c.Context(), o)
			if err != nil {
				return err
			}
			if err := render.Write(a.stdout, format, doc, render.Options{Terminal: term}); err != nil {
				return err
			}
			if out != "" {
				if err := a.writeResultFiles(doc, out, "doctor"); err != nil {
					return err
				}
			}
			if c.Context().Err() != nil {
				return exitcode.Failuref("interrupted: the diagnosis above is partial")
			}
			if doc.Overall == result.Fail {
				return exitcode.With(errors.New("the diagnosis found a FAIL (see above)"), exitcode.CheckFailed)
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.SortFlags = false
	addConnFlags(fl, &o.Conn)
	fl.StringSliceVar(&o.MetricsURLs, "metrics-urls", nil, "members' metrics URLs, one per endpoint (default: the client endpoints)")
	fl.DurationVar(&o.Window, "window", doctor.DefaultWindow, "how long to watch the members' metrics and probe them")
	fl.StringVar(&o.DataDir, "data-dir", "", "on a member's node: a directory on its data filesystem, where etcd's disk job runs after the window")
	fl.DurationVar(&o.DiskRuntime, "disk-runtime", 8*time.Second, "cap on the disk job")
	fl.StringVar(&o.Logs, "logs", "", "the members' etcd logs: a file, a directory of one file per member (named after it), or - for stdin; zap JSON or console, capnslog text, journalctl, kubectl/oc logs")
	fl.DurationVar(&o.Since, "since", 0, "only log lines this recent (default: all), and the range of the Prometheus history (default 6h)")
	fl.StringVar(&o.Prometheus, "prometheus", "", "a Prometheus server that scrapes the members: their history over --since (default 6h) with PromQL")
	fl.StringVar(&o.PrometheusSelector, "prometheus-selector", "", `label matchers for etcd's series in Prometheus (job="etcd")`)
	fl.BoolVar(&o.Keyspace, "keyspace", false, "keyspace census: keys and bytes per top-level prefix and Kubernetes resource (reads every key once, serializable, paced)")
	fl.Int64Var(&o.KeyspacePage, "keyspace-page", 500, "keys per page of the census")
	fl.DurationVar(&o.KeyspacePace, "keyspace-pace", 20*time.Millisecond, "pause between the census's pages")
	fl.StringVar(&out, "out", "", "also write result.json and report.html into this directory")
	fl.StringVarP(&output, "output", "o", "text", "stdout: text (the diagnosis) or json (the result)")
	fl.BoolVar(&term.Wide, "wide", false, "text at full width (default: within 120 columns)")
	return c
}
