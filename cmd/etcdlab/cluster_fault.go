package main

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/topology"
	"github.com/spf13/cobra"
)

// faultSignals maps signal faults to the signal sent to the member.
var faultSignals = map[string]syscall.Signal{ //nolint:gochecknoglobals // constant table
	"kill": syscall.SIGKILL, "pause": syscall.SIGSTOP, "resume": syscall.SIGCONT,
}

type faultFlags struct {
	stateFile  string
	waitLeader time.Duration
	delay      time.Duration
	jitter     time.Duration
	rate       string
	loss       float64
	both       bool
}

func (a *app) clusterFaultCmd() *cobra.Command {
	f := &faultFlags{}
	c := &cobra.Command{
		Use:   "fault ACTION ARGS...",
		Short: "Kill, pause, resume or restart a member; partition, heal or change links",
		Long: `Injects a fault into the cluster that 'etcdlab cluster up' runs, from another
terminal:

  kill MEMBER         SIGKILL; the cluster keeps running without it
  pause MEMBER        SIGSTOP: it keeps its sockets but answers nothing, like a hung machine
  resume MEMBER       SIGCONT
  restart MEMBER      start a killed member again on its data
  partition A [B]     stall both directions between A and B (without B: A and every other member)
  heal A [B]          undo a partition
  link FROM TO        set the link FROM->TO (--both: and TO->FROM) to --delay/--jitter/--rate/--loss

The link actions need a cluster started with --rtt, --client-rtt or a
--topology with links ("client" names the clients' end). --wait-leader D
(kill, pause, partition) then watches until another member leads and
prints how long the election took.`,
		Example: `  etcdlab cluster fault pause m2
  etcdlab cluster fault kill m1 --wait-leader 10s
  etcdlab cluster fault restart m1
  etcdlab cluster fault partition m1 --wait-leader 10s
  etcdlab cluster fault heal m1
  etcdlab cluster fault link m1 m2 --delay 30ms --jitter 2ms
  etcdlab cluster fault link client m1 --both --delay 50ms`,
		Args: faultArgs,
		RunE: func(c *cobra.Command, args []string) error { return a.fault(c.Context(), f, args) },
	}
	fl := c.Flags()
	fl.StringVar(&f.stateFile, "state-file", cluster.DefaultStateFile, "state file written by 'etcdlab cluster up'")
	fl.DurationVar(&f.waitLeader, "wait-leader", 0, "after kill, pause or partition, wait up to this long for a new leader and report the election time")
	fl.DurationVar(&f.delay, "delay", 0, "link: one-way delay")
	fl.DurationVar(&f.jitter, "jitter", 0, "link: uniform jitter (+/-), without reordering")
	fl.StringVar(&f.rate, "rate", "", "link: bandwidth, e.g. 100Mbit or 10MB (per second)")
	fl.Float64Var(&f.loss, "loss", 0, "link: fraction of chunks lost once, each costing a 200 ms retransmission")
	fl.BoolVar(&f.both, "both", false, "link: set both directions")
	return c
}

func faultArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return exitcode.Usagef("%s needs an action: kill, pause, resume, restart, partition, heal or link", c.CommandPath())
	}
	n := len(args) - 1
	switch args[0] {
	case "kill", "pause", "resume", "restart":
		if n != 1 {
			return exitcode.Usagef("fault %s needs one member name", args[0])
		}
	case "partition", "heal":
		if n != 1 && n != 2 {
			return exitcode.Usagef("fault %s needs one or two member names", args[0])
		}
	case "link":
		if n != 2 {
			return exitcode.Usagef("fault link needs FROM and TO (member names or client)")
		}
	default:
		return exitcode.Usagef("unknown fault %q: kill, pause, resume, restart, partition, heal or link", args[0])
	}
	return nil
}

func (a *app) fault(ctx context.Context, f *faultFlags, args []string) error {
	st, err := cluster.ReadStateFile(f.stateFile)
	if err != nil {
		return err
	}
	if !st.Running() {
		return exitcode.Failuref("the cluster in %s is not running (etcdlab pid %d has exited)", f.stateFile, st.Controller.PID)
	}
	var watch *cluster.LeaderWatch
	var old cluster.Leader
	if f.waitLeader > 0 {
		if watch, old, err = startWatch(ctx, st); err != nil {
			return err
		}
		defer watch.Close()
	}
	began := time.Now()
	ctl := cluster.NewControl(st)
	switch action := args[0]; action {
	case "kill", "pause", "resume":
		if err := signalMember(st, action, args[1]); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%s %s\n", map[string]string{"kill": "killed", "pause": "paused", "resume": "resumed"}[action], args[1])
	case "restart":
		if err := ctl.Restart(ctx, args[1]); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "restarted %s\n", args[1])
	case "partition", "heal":
		ch := cluster.LinkChange{Op: action, A: args[1]}
		if len(args) == 3 {
			ch.B = args[2]
		}
		if err := ctl.Change(ctx, ch); err != nil {
			return err
		}
		who := ch.B
		if who == "" {
			who = "every other member"
		}
		fmt.Fprintf(a.stdout, "%s: %s <-> %s\n", map[string]string{"partition": "partitioned", "heal": "healed"}[action], ch.A, who)
	case "link":
		l := wan.Link{Delay: f.delay, Jitter: f.jitter, Loss: f.loss}
		if f.rate != "" {
			r, err := topology.ParseRate(f.rate)
			if err != nil {
				return err // invalid input
			}
			l.Rate = r
		}
		dirs := []wan.Dir{{From: args[1], To: args[2]}}
		if f.both {
			dirs = append(dirs, wan.Dir{From: args[2], To: args[1]})
		}
		for _, d := range dirs {
			if err := ctl.Change(ctx, cluster.LinkChange{Op: "set", Dir: d, Link: l}); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "link %s: %s\n", d, l)
		}
	}
	if watch == nil || args[0] == "resume" || args[0] == "heal" || args[0] == "link" || args[0] == "restart" {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, f.waitLeader)
	defer cancel()
	l, took, err := watch.WaitChange(wctx, old, began)
	if err != nil {
		return exitcode.Failuref("leader %s (term %d): %v", old.Name, old.Term, err)
	}
	fmt.Fprintf(a.stdout, "new leader %s (term %d) %.3f s after the fault; the old leader was %s (term %d)\n", l.Name, l.Term, took.Seconds(), old.Name, old.Term)
	return nil
}

// startWatch finds the current leader before a fault.
func startWatch(ctx context.Context, st cluster.State) (*cluster.LeaderWatch, cluster.Leader, error) {
	names := map[string]string{}
	for _, m := range st.Members {
		names[m.ClientURL] = m.Name
	}
	w, err := cluster.NewLeaderWatch(st.Client(), names)
	if err != nil {
		return nil, cluster.Leader{}, err
	}
	old, ok := w.Current(ctx, 2*time.Second)
	if !ok {
		w.Close()
		return nil, cluster.Leader{}, exitcode.Failuref("no leader before the fault; --wait-leader needs one")
	}
	return w, old, nil
}

// signalMember sends a signal fault to a member, found in the state by
// name and signalled only if it is still the same process.
func signalMember(st cluster.State, action, name string) error {
	var names []string
	for _, m := range st.Members {
		names = append(names, m.Name)
		if m.Name != name {
			continue
		}
		id := m.Process()
		if err := id.Signal(faultSignals[action]); err != nil {
			return exitcode.Failuref("member %s: %v", m.Name, err)
		}
		if action == "kill" {
			id.WaitGone(5 * time.Second)
		}
		return nil
	}
	return exitcode.Usagef("no member %q (members are %v)", name, names)
}
