package main

import (
	"context"
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
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
	format, err := outputFormat(result.KindUpgrade, f.output)
	if err != nil {
		return err
	}
	if f.to == "" {
		return exitcode.Usagef("--to is required: a version (3.6.16), an etcd binary's path, or embedded")
	}
	// The move is lab/cluster's upgrade fault: one etcd, built here
	// (Prepare, where the person sees its progress), then run by the
	// controller (RunIn) for as long as it takes.
	fault, err := cluster.ParseFault(cluster.FaultUpgrade, []string{f.to})
	if err != nil {
		return err
	}
	long, ok := fault.(cluster.LongFault)
	if !ok {
		return fmt.Errorf("fault %s does not say what it did", cluster.FaultUpgrade)
	}
	st, err := cluster.ReadStateFile(f.stateFile)
	if err != nil {
		return err
	}
	if !st.Running() {
		return exitcode.Failuref("the cluster in %s is not running (etcdlab pid %d has exited); 'etcdlab cluster down' removes the stale file", f.stateFile, st.Controller.PID)
	}
	req := cluster.Request{Args: []string{f.to}}
	if p, ok := fault.(cluster.Preparer); ok {
		if req, err = p.Prepare(ctx, req, a.stderr); err != nil {
			return err
		}
	}
	out, upErr := long.RunIn(ctx, st, req)
	if out.Upgrade != nil {
		if err := render.Write(a.stdout, format, upgradeDocument(out.Upgrade, f.stateFile), render.Options{}); err != nil {
			return err
		}
	}
	if upErr != nil && !invalid.Is(upErr) { // a refusal is invalid input: nothing was touched
		return exitcode.Failuref("%w", upErr)
	}
	return upErr
}

// upgradeDocument is the versioned result document of a rolling upgrade
// of the cluster in stateFile: the machine, and the members' versions
// after the move as its state file says.
func upgradeDocument(u *result.Upgrade, stateFile string) *result.Document {
	env := envinfo.Collect()
	env.LocalCluster = true
	if st, err := cluster.ReadStateFile(stateFile); err == nil {
		env.Members = len(st.Members)
		env.ServerVersion = st.EtcdVersion
		env.MemberVersions = map[string]string{}
		for _, m := range st.Members {
			env.MemberVersions[m.Name] = m.EtcdVersion
		}
	}
	return &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindUpgrade, CreatedAt: time.Now().UTC(), Environment: env, Upgrade: u}
}
