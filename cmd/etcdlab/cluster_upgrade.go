package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdbuild"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/render/table"
	"github.com/spf13/cobra"
)

// upgradeFlags are `cluster upgrade`'s options.
type upgradeFlags struct {
	stateFile string
	to        string
	output    string
}

func (a *app) clusterUpgradeCmd() *cobra.Command {
	f := &upgradeFlags{}
	c := &cobra.Command{
		Use:   "upgrade --to VERSION|PATH|embedded",
		Short: "Replace every member's etcd, one at a time, while the cluster serves",
		Long: `A rolling upgrade (or downgrade) of the cluster that 'etcdlab cluster up' runs,
as etcd documents it: each member in turn is stopped gracefully (SIGTERM),
started from the new etcd on its data with a configuration written for that
version, and waited for until it is healthy and has applied what the leader
had committed. Followers go first; the leader last, after handing its
leadership to a member already replaced. The move ends when every member
says the cluster version is the new one.

--to is a version (3.6.16, 3.7: built once from etcd's Go modules into the
cache), an etcd binary's path, or "embedded" (the etcd in etcdlab). etcd
moves one minor version at a time; a downgrade (one minor, from 3.6 on) is
enabled with etcd's downgrade API first. What etcd does not support is
refused before anything is touched.

It prints, per member, how long it was down and how long the cluster was
unavailable meanwhile (a canary's linearizable reads to every member, every
100 ms). What clients saw depends on their load: run 'etcdlab bench' beside
it (open loop, --rate) and read its unavailability.`,
		Example: `  etcdlab cluster up --etcd 3.6 --members 3      # in one terminal
  etcdlab cluster upgrade --to embedded            # in another: 3.6 -> 3.7
  etcdlab cluster upgrade --to 3.6 -o json         # and back down`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return a.upgrade(c.Context(), f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.stateFile, "state-file", cluster.DefaultStateFile, "state file written by 'etcdlab cluster up'")
	fl.StringVar(&f.to, "to", "", "the etcd to move to: a version (3.6.16, 3.7), an etcd binary's path, or embedded")
	fl.StringVarP(&f.output, "output", "o", "table", "table or json")
	return c
}

func (a *app) upgrade(ctx context.Context, f *upgradeFlags) error {
	format, err := outputFormat(render.SubjectStatus, f.output)
	if err != nil {
		return err
	}
	if f.to == "" {
		return exitcode.Usagef("--to is required: a version (3.6.16), an etcd binary's path, or embedded")
	}
	st, err := cluster.ReadStateFile(f.stateFile)
	if err != nil {
		return err
	}
	if !st.Running() {
		return exitcode.Failuref("the cluster in %s is not running (etcdlab pid %d has exited); 'etcdlab cluster down' removes the stale file", f.stateFile, st.Controller.PID)
	}
	to := f.to
	if to != "embedded" { // build here, where the person sees its progress
		if to, _, err = (etcdbuild.Builder{Log: a.stderr}).Resolve(ctx, f.to); err != nil {
			return err
		}
	}
	rep, upErr := cluster.NewControl(st).Upgrade(ctx, to)
	if rep != nil {
		if format == render.Format("json") {
			enc := json.NewEncoder(a.stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(rep); err != nil {
				return err
			}
		} else if err := writeUpgrade(a, rep); err != nil {
			return err
		}
	}
	if upErr != nil && !invalid.Is(upErr) { // a refusal is invalid input: nothing was touched
		return exitcode.Failuref("%w", upErr)
	}
	return upErr
}

// writeUpgrade prints a rolling upgrade as a table, one row per member.
func writeUpgrade(a *app, rep *cluster.UpgradeReport) error {
	what := "upgraded"
	if rep.Downgrade {
		unavail := 0.0
		if u := rep.DowngradeUnavailability; u != nil {
			unavail = u.TotalSeconds
		}
		what = fmt.Sprintf("downgraded (downgrade enabled in %.1f s, the cluster unavailable %.2f s meanwhile)", rep.DowngradeSeconds, unavail)
	}
	fmt.Fprintf(a.stdout, "%s %d members to etcd %s in %.1f s; every member said the cluster version was the new one %.1f s after the last step\n",
		what, len(rep.Steps), rep.To, rep.Seconds, rep.ClusterVersionSeconds)
	rows := make([][]string, 0, len(rep.Steps))
	for _, s := range rep.Steps {
		leader := ""
		if s.WasLeader {
			leader = "led; handed to " + s.HandedTo
		}
		unavail := "0 s"
		if u := s.ClusterUnavailability; u != nil {
			unavail = fmt.Sprintf("%.2f s (%d windows, longest %.2f s)", u.TotalSeconds, len(u.Windows), u.LongestSeconds)
		}
		rows = append(rows, []string{s.Member, s.From, s.To, leader, fmt.Sprintf("%.2f s", s.DownSeconds), unavail})
	}
	return table.Write(a.stdout, []string{"MEMBER", "FROM", "TO", "LEADER", "DOWN", "CLUSTER UNAVAILABLE"}, rows)
}
