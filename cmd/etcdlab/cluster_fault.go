package main

import (
	"fmt"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/cluster"
	"github.com/etcdlab/etcdlab/exitcode"
	"github.com/spf13/cobra"
)

// faultSignals maps fault actions to the signal sent to the member.
var faultSignals = map[string]syscall.Signal{ //nolint:gochecknoglobals // constant table
	"kill": syscall.SIGKILL, "pause": syscall.SIGSTOP, "resume": syscall.SIGCONT,
}

func (a *app) clusterFaultCmd() *cobra.Command {
	var stateFile string
	c := &cobra.Command{
		Use:   "fault kill|pause|resume MEMBER",
		Short: "Kill, pause (SIGSTOP) or resume a member of the running cluster",
		Long: `Injects a fault into one member of the cluster that 'etcdlab cluster up' runs,
from another terminal: kill (SIGKILL; the cluster keeps running without it),
pause (SIGSTOP: the member keeps its sockets but answers nothing, like a hung
machine) or resume (SIGCONT). The member is found in the state file by name
(m1, m2, ...) and signalled only if it is still the same process.`,
		Example: "  etcdlab cluster fault pause m2\n  etcdlab cluster fault resume m2\n  etcdlab cluster fault kill m1",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return exitcode.Usagef("%s needs an action (kill, pause, resume) and a member name", c.CommandPath())
			}
			if _, ok := faultSignals[args[0]]; !ok {
				return exitcode.Usagef("unknown fault %q: kill, pause or resume", args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			st, err := cluster.ReadStateFile(stateFile)
			if err != nil {
				return err
			}
			if !st.Running() {
				return exitcode.Failuref("the cluster in %s is not running (etcdlab pid %d has exited)", stateFile, st.Controller.PID)
			}
			var names []string
			for _, m := range st.Members {
				names = append(names, m.Name)
				if m.Name != args[1] {
					continue
				}
				id := m.Process()
				if err := id.Signal(faultSignals[args[0]]); err != nil {
					return exitcode.Failuref("member %s: %v", m.Name, err)
				}
				if args[0] == "kill" {
					id.WaitGone(5 * time.Second)
				}
				fmt.Fprintf(a.stdout, "%s %s (pid %d)\n", map[string]string{"kill": "killed", "pause": "paused", "resume": "resumed"}[args[0]], m.Name, m.PID)
				return nil
			}
			return exitcode.Usagef("no member %q (members are %v)", args[1], names)
		},
	}
	c.Flags().StringVar(&stateFile, "state-file", cluster.DefaultStateFile, "state file written by 'etcdlab cluster up'")
	return c
}
