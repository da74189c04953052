package bench

import (
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/spf13/pflag"
)

// Subcommand is one of bench's subcommands, as etcd benchmark names it.
type Subcommand struct {
	// Name is the command (CmdPut, ...); Use and Short are its usage line
	// and one-line help.
	Name, Use, Short string
	// MinArgs and MaxArgs bound its positional arguments.
	MinArgs, MaxArgs int
}

// Subcommands lists bench's subcommands in etcd benchmark's help order.
func Subcommands() []Subcommand {
	return []Subcommand{
		{CmdPut, "put", "Benchmark put", 0, 0},
		{CmdRange, "range key [end-range]", "Benchmark range", 0, 2},
		{CmdTxnPut, "txn-put", "Benchmark txn-put", 0, 0},
		{CmdTxnMixed, "txn-mixed key [end-range]", "Benchmark a mixed load of txn-put & txn-range", 0, 2},
		{CmdLeaseKeepalive, "lease-keepalive", "Benchmark lease keepalive", 0, 0},
		{CmdWatchLatency, "watch-latency", "Benchmark watch latency", 0, 0},
		{CmdKube, "kube", "Kubernetes-shaped workload: a control plane's requests until every pod is Ready", 0, 0},
		{CmdReplay, "replay PROFILE", "Play a load profile (etcdlab profile) open loop and score how closely the cluster's metrics follow it", 1, 1},
	}
}

// FlagNames maps the Config fields whose flags are not their kebab-case
// names to those flags, for rendering invalid-input errors (package
// invalid) as a command line spells them.
func FlagNames() map[string]string {
	return map[string]string{
		"LocalMembers": "--members",
		"PrevKV":       "--prevkv",
		"CheckHashKV":  "--check-hashkv",
		"Canary":       "--canary-interval",
		"MetricsURLs":  "--metrics-urls",
		"Agent":        "--agents", // its Count; {Agents} and {AgentWait} name its flags
		"LoadCPUs":     "--load-cpus",
		// bench kube's client limits
		"ControllerManagerQPS": "--controller-manager-qps", "ControllerManagerBurst": "--controller-manager-burst",
		"SchedulerQPS": "--scheduler-qps", "SchedulerBurst": "--scheduler-burst",
		"KubeletQPS": "--kubelet-qps", "KubeletBurst": "--kubelet-burst", "ReadyTimeout": "--ready-timeout",
		"HollowKubeletQPS": "--hollow-kubelet-qps", "HollowKubeletBurst": "--hollow-kubelet-burst",
	}
}

// Output is how a command line asks for its result to be shown; it does
// not change what runs.
type Output struct {
	// Format is -o: text (etcd benchmark's layout), json or csv.
	Format string
	// Precise and Sample are etcd benchmark's --precise and --sample.
	Precise, Sample bool
	// Quiet turns the progress bar off; CPUProfile profiles etcdlab.
	Quiet      bool
	CPUProfile string
	// Perfdash is etcd benchmark v3.7's --report-perfdash: also write the
	// latency percentiles as perf-dash JSON files into PerfdashDir, which
	// the CLI fills from $ARTIFACTS (default ./_artifacts), as etcd does.
	Perfdash    bool
	PerfdashDir string
	// CPUs is --cpus: the cores etcdlab's own Go runtime may use while it
	// runs (GOMAXPROCS, process-wide, so the caller sets it; 0 leaves Go's
	// default, every core). Its default is 0, and 1 for kube: the
	// emulator needs well under a core at its defaults, and on one core
	// Go hands work between goroutines without waking other threads,
	// which was about a sixth of the emulator's CPU (docs/benchmarks.md).
	CPUs int
	// ListenMetrics is --listen-metrics: an address on which the CLI serves
	// etcdlab's own metrics while it runs (bench.ShowLive); "" serves none.
	ListenMetrics string
}

// KubeCPUs is --cpus's default for kube.
const KubeCPUs = 1

// CommandLine is a parsed bench command line: the run it asks for and how
// to show it.
type CommandLine struct {
	Config Config
	Output Output
	// Set names the flags the line gave, without dashes, in the order
	// pflag visits them (sorted).
	Set []string
}

// Flags binds bench's command-line flags to option values: bench's own
// (etcd benchmark's global flags and etcdlab's), which every subcommand
// inherits, and each subcommand's, one struct per subcommand so that no
// subcommand's defaults leak into another's. One Flags belongs to one
// command line (one parse); it is written by flag parsing and read by
// CommandLine, on one goroutine. The CLI registers it on cobra commands;
// ParseArgs on plain flag sets. Both give the same Config.
type Flags struct {
	global    globalOptions
	workloads map[string]workloadOptions
}

// NewFlags returns unbound options for one command line.
func NewFlags() *Flags {
	return &Flags{workloads: map[string]workloadOptions{
		CmdPut:            &putOptions{},
		CmdRange:          &rangeOptions{},
		CmdTxnPut:         &txnPutOptions{},
		CmdTxnMixed:       &txnMixedOptions{},
		CmdLeaseKeepalive: &leaseOptions{},
		CmdWatchLatency:   &watchLatencyOptions{},
		CmdKube:           &kubeOptions{},
		CmdReplay:         &replayOptions{},
	}}
}

// RegisterGlobal binds the flags every subcommand inherits to fl (bench's
// persistent flags), with their defaults: etcd benchmark v3.6's where it
// has the flag (tools/benchmark/cmd/root.go), except --dial-timeout (2s,
// not 0: a stuck cluster must give an error, not a hang) and --endpoints
// (none: start a local cluster).
func (f *Flags) RegisterGlobal(fl *pflag.FlagSet) { f.global.register(fl) }

// RegisterSubcommand binds subcommand name's own flags to fl; it reports
// false for a name that is not a subcommand.
func (f *Flags) RegisterSubcommand(name string, fl *pflag.FlagSet) bool {
	w, ok := f.workloads[name]
	if ok {
		w.register(fl)
	}
	return ok
}

// CommandLine builds what subcommand name's parsed flags ask for; args are
// its positional arguments and changed reports whether a flag was given.
// Nothing is checked or run (Config.Validate checks).
func (f *Flags) CommandLine(name string, args []string, changed func(flag string) bool) CommandLine {
	o := &f.global
	cfg := Config{
		Command: name, Conn: o.conn, TargetLeader: o.targetLeader, Conns: o.conns, Clients: o.clients,
		Duration: o.duration, RequestTimeout: o.requestTimeout, Warmup: o.warmup, Iterations: o.iterations,
		Prefix: o.prefix, Keep: o.keep, Compact: o.compact, LocalMembers: o.members, Engine: o.engine,
		Canary: o.canaryInterval, PinEndpoints: o.pinEndpoints,
		MetricsURLs: o.metricsURLs, ScrapeInterval: o.scrapeInterval, LoadCPUs: o.loadCPUs,
		Agent:          Agent{Count: o.agents, StartAt: time.Time(o.agentStartAt), Wait: o.agentWait},
		SessionOptions: SessionOptions{Consistency: "l"}, // bench checks it for every command; only range and txn-mixed have the flag
	}
	if len(args) > 0 {
		cfg.Args = args
	}
	if w, ok := f.workloads[name]; ok {
		w.apply(&cfg)
	}
	if changed("duration") && !changed("total") {
		cfg.Total = 0 // --duration alone bounds the run by time
	}
	if cfg.Conn.DialTimeout <= 0 {
		cfg.Conn.DialTimeout = etcdclient.DefaultDialTimeout
	}
	if name == CmdReplay {
		if !changed("clients") {
			cfg.Clients = []int{ReplayClients}
		}
		if !changed("conns") {
			cfg.Conns = []int{ReplayConns}
		}
	}
	cpus := o.cpus
	if name == CmdKube && !changed("cpus") {
		cpus = KubeCPUs
	}
	return CommandLine{Config: cfg, Output: Output{Format: o.output, Precise: o.precise, Sample: o.sample, Quiet: o.quiet, CPUProfile: o.cpuProfile, CPUs: cpus,
		Perfdash: o.perfdash, ListenMetrics: o.listenMetrics}}
}

// DefaultScrapeInterval is how often the members' metrics are scraped
// during a run unless --scrape-interval says otherwise.
const DefaultScrapeInterval = time.Second

// globalOptions are the flags of `etcdlab bench` itself, which every
// subcommand inherits: etcd benchmark's global flags and etcdlab's own.
type globalOptions struct {
	conn             etcdclient.Config
	conns, clients   []int
	targetLeader     bool
	precise, sample  bool
	autoSyncInterval time.Duration
	duration         time.Duration
	warmup           string
	iterations       int
	requestTimeout   time.Duration
	prefix           string
	keep, compact    bool
	members          int
	output           string
	quiet            bool
	cpuProfile       string
	cpus             int
	loadCPUs         float64
	perfdash         bool
	engine           string
	canaryInterval   time.Duration
	pinEndpoints     bool
	metricsURLs      []string
	scrapeInterval   time.Duration
	agents           int
	agentStartAt     timeValue
	agentWait        time.Duration
	listenMetrics    string
}

func (o *globalOptions) register(pf *pflag.FlagSet) {
	etcdclient.AddFlags(pf, &o.conn)
	pf.IntSliceVar(&o.conns, "conns", []int{1}, "total number of gRPC connections (a list sweeps: 1,10,100)")
	pf.IntSliceVar(&o.clients, "clients", []int{1}, "total number of concurrent clients (a list sweeps: 100,1000,10000)")
	pf.BoolVar(&o.targetLeader, "target-leader", false, "send all load to the leader")
	pf.BoolVar(&o.precise, "precise", false, "use full floating point precision")
	pf.BoolVar(&o.sample, "sample", false, "add per-second samples to the report")
	pf.DurationVar(&o.autoSyncInterval, "auto-sync-interval", 0, "accepted for compatibility; etcdlab does not re-sync endpoints")
	pf.DurationVar(&o.duration, "duration", 0, "run for this long instead of --total requests (with --total: whichever comes first)")
	pf.StringVar(&o.warmup, "warmup", "", "warm up first, excluded from results: a request count (1000) or a duration (10s)")
	pf.IntVar(&o.iterations, "iterations", 1, "measure this many times and report each and mean ± stddev")
	pf.DurationVar(&o.requestTimeout, "request-timeout", 10*time.Second, "deadline of each request; a slower one is an error")
	pf.StringVar(&o.prefix, "prefix", "", "key prefix for everything written (default /etcdlab/bench/<run-id>/)")
	pf.BoolVar(&o.keep, "keep", false, "keep the keys written (the prefix is printed)")
	pf.BoolVar(&o.compact, "compact", false, "compact the cluster after deleting the keys written")
	pf.IntVar(&o.members, "members", 3, "size of the local cluster started when --endpoints is not given")
	pf.StringSliceVar(&o.metricsURLs, "metrics-urls", nil,
		"members' metrics URLs, scraped during the run (default: the local cluster's, or the client endpoints)")
	pf.DurationVar(&o.scrapeInterval, "scrape-interval", DefaultScrapeInterval, "how often the members' metrics are scraped during the run")
	pf.StringVarP(&o.output, "output", "o", "text", "output: text (etcd benchmark's layout), json or csv")
	pf.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	pf.StringVar(&o.listenMetrics, "listen-metrics", "",
		"serve etcdlab's own metrics (Prometheus text, /metrics) on this address while it runs, e.g. :9100 or 127.0.0.1:0")
	pf.BoolVar(&o.perfdash, "report-perfdash", false,
		"also write p50/p90/p99 as perf-dash JSON into $ARTIFACTS (default ./_artifacts), as etcd benchmark v3.7")
	pf.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of etcdlab itself to this file")
	_ = pf.MarkHidden("cpuprofile")
	pf.IntVar(&o.cpus, "cpus", 0, "cores etcdlab's own Go runtime may use while it runs (GOMAXPROCS; 0: every core; kube's default is 1)")
	pf.Float64Var(&o.loadCPUs, "load-cpus", 0,
		"the load generator's CPU budget in cores (0.5, 2): a cgroup CPU quota on the process(es) sending the load; without --endpoints the load runs in a child process (root; 0: none)")
	pf.StringVar(&o.engine, "engine", EngineWire, "load engine: wire (etcdlab's asynchronous transport) or grpc (gRPC-go, a goroutine per client)")
	_ = pf.MarkHidden("engine")
	pf.DurationVar(&o.canaryInterval, "canary-interval", 100*time.Millisecond,
		"measure the cluster's unavailability apart from the clients: one request of the workload's kind to each member this often (0: off)")
	pf.IntVar(&o.agents, "agents", 0,
		"split the load over this many cooperating processes (agents) and merge their results exactly; on Kubernetes, the Indexed Job's pods (docs/agents.md)")
	pf.Var(&o.agentStartAt, "agent-start-at", "agents start their first run at this wall-clock time (RFC 3339) instead of waiting for each other in the cluster")
	pf.DurationVar(&o.agentWait, "agent-wait", DefaultAgentWait, "how long an agent waits for the others before each run")
	pf.BoolVar(&o.pinEndpoints, "pin-endpoints", false,
		"keep each connection on its endpoint while its member is down, as etcd benchmark v3.6 (default: its requests fail over to live members)")
}

// workloadOptions are one subcommand's own options.
type workloadOptions interface {
	// register binds the options to the subcommand's flags, with etcd
	// benchmark v3.6's defaults unless etcdlab deliberately differs.
	register(fl *pflag.FlagSet)
	// apply copies the options into cfg.
	apply(cfg *Config)
}

// timeValue is a flag holding an RFC 3339 time.
type timeValue time.Time

func (v *timeValue) String() string {
	if time.Time(*v).IsZero() {
		return ""
	}
	return time.Time(*v).Format(time.RFC3339Nano)
}

func (v *timeValue) Set(s string) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("not an RFC 3339 time like 2026-11-23T22:00:00Z: %q", s)
	}
	*v = timeValue(t)
	return nil
}

func (v *timeValue) Type() string { return "time" }
