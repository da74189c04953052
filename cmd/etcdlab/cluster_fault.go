package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/topology"
	"github.com/spf13/cobra"
)

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

` + faultHelp() + `
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
  etcdlab cluster fault link client m1 --both --delay 50ms
  etcdlab cluster fault cpulimit m1 0.05`,
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

// faultFlagHelp is what this command's flags add to a fault's help line.
func faultFlagHelp(name string) string {
	if name == cluster.FaultLink {
		return " (--both: and TO->FROM) to --delay/--jitter/--rate/--loss"
	}
	return ""
}

// faultHelp is one line per fault of lab/cluster's registry: its
// arguments and what it does.
func faultHelp() string {
	var b strings.Builder
	width := 0
	for _, f := range cluster.Faults() {
		a := f.About()
		width = max(width, len(a.Name+" "+a.Usage)+2)
	}
	for _, f := range cluster.Faults() {
		a := f.About()
		fmt.Fprintf(&b, "  %-*s%s%s\n", width, a.Name+" "+a.Usage, a.Help, faultFlagHelp(a.Name))
	}
	return b.String()
}

// faultArgs checks the fault's name and arguments (cluster.ParseFault's
// invalid-input errors).
func faultArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return exitcode.Usagef("%s needs an action: %s", c.CommandPath(), cluster.FaultNames())
	}
	_, err := cluster.ParseFault(args[0], args[1:])
	return err
}

func (a *app) fault(ctx context.Context, f *faultFlags, args []string) error {
	fault, err := cluster.ParseFault(args[0], args[1:])
	if err != nil {
		return err
	}
	req, err := f.request(fault.About().Name, args[1:])
	if err != nil {
		return err
	}
	st, err := cluster.ReadStateFile(f.stateFile)
	if err != nil {
		return err
	}
	if !st.Running() {
		return exitcode.Failuref("the cluster in %s is not running (etcdlab pid %d has exited)", f.stateFile, st.Controller.PID)
	}
	if p, ok := fault.(cluster.Preparer); ok { // an etcd built here, where the person sees its progress
		if req, err = p.Prepare(ctx, req, a.stderr); err != nil {
			return err
		}
	}
	var el *cluster.Election
	if f.waitLeader > 0 {
		e, ok, err := st.WatchElection(ctx, 2*time.Second)
		if err != nil {
			return err
		}
		if !ok {
			return exitcode.Failuref("no leader before the fault; --wait-leader needs one")
		}
		el = e
		defer el.Close()
	}
	if el != nil {
		el.Start()
	}
	done, err := fault.Inject(ctx, st, req)
	for _, line := range done {
		fmt.Fprintln(a.stdout, line)
	}
	if err != nil {
		return err
	}
	if el == nil || !fault.About().CostsLeader {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, f.waitLeader)
	defer cancel()
	l, took, err := el.Wait(wctx)
	old := el.Old()
	if err != nil {
		return exitcode.Failuref("leader %s (term %d): %v", old.Name, old.Term, err)
	}
	fmt.Fprintf(a.stdout, "new leader %s (term %d) %.3f s after the fault; the old leader was %s (term %d)\n", l.Name, l.Term, took.Seconds(), old.Name, old.Term)
	return nil
}

// request is the fault's request from the command line, checked before
// the state file is read or anything is dialled: the link flags only for
// link, and a link no path can have refused.
func (f *faultFlags) request(name string, args []string) (cluster.Request, error) {
	req := cluster.Request{Args: args, Link: wan.Link{Delay: f.delay, Jitter: f.jitter, Loss: f.loss}, Both: f.both}
	if name != cluster.FaultLink {
		if req.Link != (wan.Link{}) || f.rate != "" || f.both {
			return req, invalid.Errorf("--delay, --jitter, --rate, --loss and --both apply to link, not to %s", name)
		}
		return req, nil
	}
	if f.rate != "" {
		r, err := topology.ParseRate(f.rate)
		if err != nil {
			return req, err // invalid input
		}
		req.Link.Rate = r
	}
	if err := req.Link.Validate(); err != nil {
		return req, invalid.Errorf("link: %s", err.Error())
	}
	return req, nil
}
