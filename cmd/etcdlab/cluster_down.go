package main

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/lab/cgroup"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/spf13/cobra"
)

func (a *app) clusterDownCmd() *cobra.Command {
	var stateFile string
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "down",
		Short: "Stop the cluster that 'etcdlab cluster up' started",
		Long: `Ask the 'etcdlab cluster up' process named by the state file to stop its
members and clean up, and wait until it has. A state file left by a cluster
that is gone is removed, with any member process still alive and the cgroups
of etcdlab processes that are gone (a member's CPU limit).`,
		Example: "  etcdlab cluster down\n  etcdlab cluster down --state-file /tmp/a.json",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			st, err := cluster.ReadStateFile(stateFile)
			if err != nil {
				return err
			}
			if !st.Running() {
				killed := 0
				for _, m := range st.Members {
					if m.Process().Signal(syscall.SIGKILL) == nil {
						killed++
					}
				}
				_ = os.Remove(stateFile)
				msg := fmt.Sprintf("no cluster is running: etcdlab pid %d, which started it, has exited; removed stale state file %s", st.Controller.PID, stateFile)
				if killed > 0 {
					msg += fmt.Sprintf(" and killed %d leftover member(s)", killed)
				}
				if removed, _ := cgroup.Sweep(); len(removed) > 0 {
					msg += fmt.Sprintf("; removed %d leftover cgroup(s)", len(removed))
				}
				return exitcode.Failuref("%s", msg)
			}
			if err := st.Controller.Signal(syscall.SIGTERM); err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "stopping the cluster of etcdlab pid %d...\n", st.Controller.PID)
			if !st.Controller.WaitGone(timeout) {
				return exitcode.Failuref("etcdlab pid %d did not stop within %s", st.Controller.PID, timeout)
			}
			_ = os.Remove(stateFile) // normally removed by the stopping process already
			fmt.Fprintf(a.stdout, "stopped %d-member cluster (data dir %s)\n", len(st.Members), st.DataDir)
			return nil
		},
	}
	c.Flags().StringVar(&stateFile, "state-file", cluster.DefaultStateFile, "state file written by 'etcdlab cluster up'")
	c.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "how long to wait for the cluster to stop")
	return c
}
