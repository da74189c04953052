package main

import (
	"math"

	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/member"
	"github.com/etcdlab/etcdlab/lab/topology"
	"github.com/etcdlab/etcdlab/load"
	"github.com/spf13/cobra"
)

func (a *app) clusterCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "cluster",
		Short: "Run a real local etcd cluster, and inspect or stop it",
		Args:  groupArgs,
		RunE:  helpRun,
		// cluster.Options.Links comes from these flags of 'cluster up'.
		Annotations: map[string]string{"param:Links": "--rtt or --topology"},
	}
	c.AddCommand(a.clusterUpCmd(), a.clusterDownCmd(), a.clusterStatusCmd(), a.clusterFaultCmd(), a.clusterUpgradeCmd())
	return c
}

type upFlags struct {
	opts         cluster.Options
	stateFile    string
	timeout      time.Duration
	fsyncDelay   string
	rtt          string
	clientRTT    string
	topology     string
	etcdDefaults bool
	listen       string
	memory       string
}

func (a *app) clusterUpCmd() *cobra.Command {
	f := &upFlags{}
	c := &cobra.Command{
		Use:   "up",
		Short: "Start a real local etcd cluster and keep it running until Ctrl-C",
		Long: `Start N real etcd members (etcd v3.7 embedded, one child process of etcdlab each) on
loopback, wait until they are healthy and agree on a leader, record them in a
state file, and stay in the foreground. Ctrl-C (or 'etcdlab cluster down')
stops the members and removes what was created unless --keep-data is given.

The data lives, by default, in a new directory under ./.etcdlab: on the
current directory's filesystem, because that is the disk you mean to test.
Member logs go to etcd.log in each member's directory, not to the terminal.
A --data-dir that holds a cluster kept earlier is restarted with its data.`,
		Example: `  etcdlab cluster up
  etcdlab cluster up --members 5 --heartbeat-interval 50 --election-timeout 500
  etcdlab cluster up --tls          # writes ca.crt, client.crt, client.key next to the state file
  etcdlab cluster up --data-dir /dev/shm/etcd --keep-data   # tmpfs, kept afterwards
  etcdlab cluster up --port-base 2379   # m1 on 2379/2380/2381, m2 on 2382/...
  etcdlab cluster up --fsync-delay lognormal:p50=23ms,p99=268ms   # the HDD article's disk (root, FUSE)
  etcdlab cluster up --rtt 40ms --fsync-delay 20ms   # members 40 ms apart (root: a network namespace)
  etcdlab cluster up --member-cpus 0.5               # each member on half a core of its own (root: cgroups)
  etcdlab cluster up --etcd /usr/bin/etcd --tls      # members from another etcd binary (Debian's 3.4.23), not the embedded one
  etcdlab cluster up --etcd 3.5                      # etcd 3.5's newest release, built once from its modules
  etcdlab cluster up --topology multicloud-3         # presets: ` + strings.Join(topology.Presets(), ", ") + `
  etcdlab cluster up --topology lab.yaml              # members, links, storage, tuning (docs/topologies.md)`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return a.clusterUp(c, f) },
		Annotations: map[string]string{
			"param:HeartbeatMs": "--heartbeat-interval",
			"param:ElectionMs":  "--election-timeout",
		},
	}
	fl := c.Flags()
	fl.SortFlags = false
	fl.IntVar(&f.opts.Members, "members", 3, "number of members, 1 to 7")
	fl.StringVar(&f.opts.DataDir, "data-dir", "", "cluster directory (default: a new directory under ./.etcdlab)")
	fl.BoolVar(&f.opts.KeepData, "keep-data", false, "keep the data directory at exit")
	fl.StringVar(&f.stateFile, "state-file", cluster.DefaultStateFile, "where to record the running cluster")
	fl.StringVar(&f.opts.Etcd, "etcd", "", "run every member from this etcd instead of the one embedded in etcdlab: a version (3.5.35, 3.7: built once from etcd's Go modules, needs Go) or an etcd binary's path (3.4 or newer, e.g. Debian's /usr/bin/etcd)")
	fl.BoolVar(&f.opts.TLS, "tls", false, "serve clients and peers over TLS with a throw-away CA; client certificates required")
	fl.IntVar(&f.opts.PortBase, "port-base", 0, "use ports from here (3 per member: client, peer, metrics) instead of free ones")
	fl.StringVar(&f.opts.Host, "host", "127.0.0.1", "loopback address to listen on")
	fl.StringVar(&f.fsyncDelay, "fsync-delay", "", "emulate a slow disk: add this to every fsync (10ms, or lognormal:p50=20ms,p99=270ms); needs root and /dev/fuse")
	fl.BoolVar(&f.opts.FsyncWALOnly, "fsync-delay-wal-only", false, "apply --fsync-delay to the WAL only, not to bbolt's commits")
	fl.StringVar(&f.opts.Leader, "leader", "", "hand the leadership to this member once the cluster is ready (m1..mN), so that the write path does not depend on who won the election")
	fl.StringVar(&f.memory, "member-memory", "", "each member's memory limit (512MiB, 2GiB): a cgroup memory limit in the members' budget group (root)")
	fl.Float64Var(&f.opts.CPUs, "member-cpus", 0, "each member's CPU budget in cores (0.5, 2): a cgroup CPU quota, so the members do not share every core (root; 0: none)")
	fl.StringVar(&f.rtt, "rtt", "", "emulate a WAN: this round trip between every pair of members (e.g. 40ms; root, a network namespace)")
	fl.StringVar(&f.clientRTT, "client-rtt", "", "emulate this round trip between clients and every member")
	fl.StringVar(&f.topology, "topology", "", "a topology file (YAML) or preset: "+strings.Join(topology.Presets(), ", "))
	fl.BoolVar(&f.etcdDefaults, "etcd-defaults", false, "keep etcd's 100/1000 ms heartbeat/election timeout instead of tuning them to the emulated RTT")
	addTuningFlags(fl, &f.opts.Tuning)
	fl.DurationVar(&f.timeout, "start-timeout", cluster.DefaultStartTimeout, "how long to wait for a healthy cluster")
	fl.StringVar(&f.listen, "listen-metrics", "", listenMetricsUsage)
	return c
}

func addTuningFlags(fl interface {
	UintVar(*uint, string, uint, string)
	Uint64Var(*uint64, string, uint64, string)
	Int64Var(*int64, string, int64, string)
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
	DurationVar(*time.Duration, string, time.Duration, string)
}, t *member.Tuning) {
	fl.UintVar(&t.HeartbeatMs, "heartbeat-interval", 100, "etcd heartbeat interval in ms")
	fl.UintVar(&t.ElectionMs, "election-timeout", 1000, "etcd election timeout in ms")
	fl.Uint64Var(&t.SnapshotCount, "snapshot-count", 10000, "etcd snapshot count")
	fl.Int64Var(&t.QuotaBackendBytes, "quota-backend-bytes", 0, "etcd backend quota in bytes (0: etcd's default, 2 GiB)")
	fl.StringVar(&t.AutoCompactionMode, "auto-compaction-mode", "periodic", "etcd auto-compaction mode: periodic or revision")
	fl.StringVar(&t.AutoCompactionRetention, "auto-compaction-retention", "0", "etcd auto-compaction retention (0 disables)")
	fl.StringVar(&t.Metrics, "metrics", "basic", "etcd metrics: basic, or extensive (adds grpc_server_handling_seconds)")
	fl.StringVar(&t.LogLevel, "log-level", "info", "member log level: debug, info, warn, error")
	fl.IntVar(&t.CompactionBatchLimit, "compaction-batch-limit", 0, "revisions a compaction removes per batch (0: etcd's default, 1000)")
	fl.DurationVar(&t.CompactionSleepInterval, "compaction-sleep-interval", 0, "a compaction's sleep between batches (0: etcd's default, 10ms; etcd 3.5.16 or newer)")
}

func (a *app) clusterUp(c *cobra.Command, f *upFlags) error {
	ctx := c.Context()
	tp, err := f.topologyOf()
	if err != nil {
		return err
	}
	f.opts.BaseDir = filepath.Dir(f.stateFile)
	if tp != nil {
		fl := c.Flags()
		if err := tp.Apply(&f.opts, fl.Changed("heartbeat-interval"), fl.Changed("election-timeout")); err != nil {
			return err
		}
		if fl.Changed("members") {
			f.opts.Members, _ = fl.GetInt("members")
		}
	}
	if err := f.opts.Validate(); err != nil {
		return err
	}
	if f.fsyncDelay != "" {
		d, err := slowfs.ParseDelay(f.fsyncDelay)
		if err != nil {
			return exitcode.Usagef("--fsync-delay %v", err)
		}
		f.opts.FsyncDelay = d
	}
	if f.memory != "" {
		b, err := humanize.ParseBytes(f.memory)
		if err != nil || b == 0 || b > math.MaxInt64 {
			return exitcode.Usagef("--member-memory %q: want a size (512MiB, 2GiB)", f.memory)
		}
		f.opts.Memory = int64(b)
		if err := f.opts.Validate(); err != nil {
			return err
		}
	}
	for _, d := range append([]*slowfs.Delay{f.opts.FsyncDelay, f.opts.ReadDelay, f.opts.WriteDelay}, slices.Collect(maps.Values(f.opts.MemberFsyncDelay))...) {
		if d != nil {
			if r := d.FitReport(); r != "" {
				fmt.Fprintf(a.stderr, "%s: %s\n", d, r)
			}
		}
	}
	o := f.opts
	o.StartTimeout = f.timeout
	u, closeMetrics := a.upOptions(f)
	defer closeMetrics()
	err = cluster.Up(ctx, o, u)
	var running *cluster.RunningError
	var be *cluster.BudgetError
	switch {
	case errors.As(err, &running):
		return exitcode.Failuref("%v; stop it with 'etcdlab cluster down' or use another --state-file", err)
	case errors.As(err, &be):
		return exitcode.With(err, exitcode.Usage) // this machine cannot do what was asked; nothing was done
	}
	return err
}

// upOptions are cluster up's stages: --listen-metrics served before
// anything starts, the cluster's metrics registered once it is ready and
// the server closed when it begins to stop, the members printed once the
// state file names them. closeMetrics closes the server if Up returned
// before.
func (a *app) upOptions(f *upFlags) (u cluster.UpOptions, closeMetrics func()) {
	live := load.NewLive(load.LiveOptions{Command: "cluster up"})
	var srv *metricsServer
	return cluster.UpOptions{
		StateFile: f.stateFile,
		Stderr:    a.stderr,
		BeforeStart: func() (err error) { // an address that cannot be listened on leaves nothing behind
			srv, err = a.serveMetrics(f.listen, live)
			return err
		},
		Started: func(cl *cluster.Cluster) (func(), error) {
			if srv == nil {
				return nil, nil
			}
			m, err := cluster.NewMetrics(cl)
			if err != nil {
				return nil, err
			}
			if err := srv.register(m); err != nil {
				m.Close()
				return nil, err
			}
			end := live.Begin(cl.State().DataDir)
			return func() {
				srv.close() // no scrape of a cluster that is stopping
				m.Close()
				end()
			}, nil
		},
		Ready: func(cl *cluster.Cluster, st cluster.State, took time.Duration) {
			a.printUp(st, f, took)
			if cl.Emulated() {
				a.printLinkMatrix(cl)
			}
		},
	}, func() { srv.close() }
}

func (a *app) printUp(st cluster.State, f *upFlags, took time.Duration) {
	w := a.stdout
	fmt.Fprintf(w, "etcd %s cluster of %d members ready in %.1fs\n", st.EtcdVersion, len(st.Members), took.Seconds())
	for _, m := range st.Members {
		fmt.Fprintf(w, "  %-3s id %-16s client %s  peer %s  metrics %s  pid %d\n", m.Name, m.ID, m.ClientURL, m.PeerURL, m.MetricsURL, m.PID)
	}
	fmt.Fprintf(w, "endpoints:  %s\n", strings.Join(st.Endpoints, ","))
	keep := "removed at exit"
	if f.opts.KeepData {
		keep = "kept at exit"
	}
	fmt.Fprintf(w, "data dir:   %s (%s; member logs in <member>/etcd.log)\n", st.DataDir, keep)
	fmt.Fprintf(w, "state file: %s\n", f.stateFile)
	if st.TLS != nil {
		fmt.Fprintf(w, "TLS flags:  --cacert %s --cert %s --key %s\n", st.TLS.CACert, st.TLS.Cert, st.TLS.Key)
	}
	fmt.Fprintln(w, "Stop with Ctrl-C here, or 'etcdlab cluster down' from another terminal.")
}
