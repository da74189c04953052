// Package bench runs etcd benchmark's workloads with etcdlab's load engine:
// it finds or starts the cluster, applies the safety rules for clusters
// etcdlab did not start, runs sweeps, warm-ups and iterations, cleans up,
// and returns one result document. `etcdlab bench` is a thin CLI over it.
//
// Run is the lifecycle; what one run sends is an Engine's (engine.go):
// etcd benchmark's sessions (sessions.go), watch-latency
// (watchlatency.go), the emulated Kubernetes control plane (kube.go), or
// an engine of another package that Config.Engines offers (the real
// control plane, package measure/kubereal; the table is package
// measure/engines).
//
// What happens around a run rather than in it (live metrics, progress,
// the members' scraper, an experiment's fault timeline, the agents'
// barrier) is an Observer of the run's lifecycle (observer.go): Run tells
// every one in Config.Observers when each run begins and ends, and finds
// what more an observer does by its capabilities (Gate, Progressor,
// Slicer, BenchObserver, CleanupObserver).
package bench

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/load/kube"
	"github.com/etcdlab/etcdlab/load/safety"
)

// Commands etcdlab bench runs, with etcd benchmark's names.
const (
	CmdPut            = "put"
	CmdRange          = "range"
	CmdTxnPut         = "txn-put"
	CmdTxnMixed       = "txn-mixed"
	CmdLeaseKeepalive = "lease-keepalive"
	CmdWatchLatency   = "watch-latency"
)

// Config is everything a bench run needs. It is a plain value.
type Config struct {
	Command string
	// Args are the positional arguments: key [end] for range and txn-mixed.
	Args []string

	Conn         etcdclient.Config
	TargetLeader bool
	Conns        []int
	Clients      []int

	Total    int64
	Duration time.Duration
	// Rate, if positive, makes the run open loop at this many requests/s.
	Rate           float64
	RequestTimeout time.Duration
	// Warmup is "" (none), a duration ("10s") or a request count ("1000").
	Warmup     string
	Iterations int

	// Prefix is where every key is written; "" means
	// /etcdlab/bench/<run-id>/.
	Prefix  string
	Keep    bool
	Compact bool

	// KeySize and ValSize are every write's (sessions' and watch-latency's).
	KeySize, ValSize int
	// SessionOptions are the sessions' own options (Sessions), embedded
	// so that cfg.TxnOps reads as a field of Config.
	SessionOptions

	// Watch is watch-latency's options.
	Watch WatchOptions

	// Kube is bench kube's workload (its Prefix, Duration and
	// RequestTimeout come from the fields above).
	Kube kube.Spec
	// ControlPlane is bench kube's: ControlPlaneEmulated ("" too) or
	// ControlPlaneReal, configured by KubeReal.
	ControlPlane string
	KubeReal     KubeReal
	// Replay is bench replay's profile and how it is played.
	Replay ReplayOptions

	// Engines are the engines Run picks from: the first whose For
	// accepts the configuration sends the load (Engine). nil means
	// Builtin(); the CLI and the experiment runner pass package
	// measure/engines' All, which adds the real control plane's.
	Engines []Engine

	CompactInterval   time.Duration
	CompactIndexDelta int64
	CheckHashKV       bool

	// Agent makes the run one slice of a load several processes send
	// together (zero: the whole load).
	Agent Agent

	// LocalMembers is the size of the cluster started when Conn has no
	// endpoints.
	LocalMembers int
	// Engine is EngineWire (default) or EngineGRPC.
	Engine string
	// Canary is the interval of the canaries that measure the cluster's
	// unavailability apart from the clients (load.Spec.Canary); 0: none.
	Canary time.Duration
	// PinEndpoints keeps each connection on its endpoint while its member
	// is down, as etcd benchmark v3.6 (load.Options.Pin).
	PinEndpoints bool
	// TargetMember, if set, sends the whole load to the member of that
	// name alone (its client URLs), as a stacked control plane's
	// kube-apiserver talks to its own node's member only: the maintenance
	// job runs its load once per member so. A name the cluster lacks is an
	// error.
	TargetMember string
	// LoadCPUs is the load generator's CPU budget in cores (0: none),
	// recorded in the result (Environment.LoadCPUs). Run does not enforce
	// it: its caller runs the load under a LoadBudget, this process (a
	// cluster etcdlab did not start) or a child process (package
	// measure/agents), so that whatever else this process runs (a local
	// cluster's emulated links and disks) stays outside the budget.
	LoadCPUs float64
	// LocalBaseDir is where that cluster's data goes ("" = ./.etcdlab).
	LocalBaseDir string
	// Cluster, if set, is a local cluster the caller started and stops:
	// the run goes to it (Conn's endpoints and TLS files are ignored; its
	// DialTimeout applies), as to a cluster etcdlab started for the run
	// (no safety rules: it is the caller's to throw away).
	Cluster *cluster.Cluster

	// ScrapeInterval is how often every member's /metrics is scraped
	// during each measured run, for Run.Server (package observe/series);
	// 0: not scraped.
	ScrapeInterval time.Duration
	// MetricsURLs are the members' metrics URLs on a cluster etcdlab did
	// not start; default: the client endpoints. A cluster etcdlab starts
	// has its own.
	MetricsURLs []string

	// Log receives one-line notes for a person (stderr).
	Log io.Writer
	// Observers follow the runs (Observer): live metrics (ShowLive),
	// progress (ShowProgress), an experiment's fault timeline, the
	// agents' coordination (package measure/agents), anything that
	// happens around a run rather than in it. Run adds its own (the
	// members' scraper with ScrapeInterval) after them.
	Observers []Observer
}

// warmup is a parsed --warmup.
type warmup struct {
	count    int64
	duration time.Duration
}

func parseWarmup(s string) (warmup, error) {
	if s == "" || s == "0" {
		return warmup{}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		return warmup{count: n}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return warmup{duration: d}, nil
	}
	return warmup{}, invalid.Errorf("{Warmup} must be a request count (1000) or a duration (10s), not %q", s)
}

// writes reports whether the command writes keys.
func (c *Config) writes() bool { return c.Command != CmdRange && c.Command != CmdLeaseKeepalive }

// Validate checks the configuration as Run would, without running
// anything or changing c. Its errors are invalid-input errors (package
// invalid) that name the fields of Config.
func (c Config) Validate() error { return c.validate() }

// validate checks the configuration and fills in defaults. Its errors are
// invalid-input errors (package invalid) that name the fields of Config.
func (c *Config) validate() error {
	if err := c.validateAgent(); err != nil {
		return err
	}
	if err := ValidateLoadCPUs(c.LoadCPUs); err != nil {
		return err
	}
	switch c.Command {
	case CmdReplay:
		if err := c.validateReplay(); err != nil {
			return err
		}
	case CmdPut, CmdTxnPut, CmdLeaseKeepalive, CmdWatchLatency, CmdKube:
		if len(c.Args) > 0 {
			return invalid.Errorf("%s takes no arguments, got %q", c.Command, c.Args)
		}
	case CmdRange:
		if len(c.Args) < 1 || len(c.Args) > 2 {
			return invalid.Errorf("range needs a key and an optional end key: range KEY [END]")
		}
	case CmdTxnMixed:
		if len(c.Args) > 2 {
			return invalid.Errorf("txn-mixed takes at most a key and an end key")
		}
	default:
		if _, err := c.engine(); err != nil { // a command of an engine outside Builtin
			return invalid.Errorf("unknown bench command %q", c.Command)
		}
	}
	if len(c.Conns) == 0 || len(c.Clients) == 0 {
		return invalid.Errorf("{Conns} and {Clients} need at least one value")
	}
	// The load's own checks: connections, clients, total, duration, rate,
	// request timeout.
	for _, n := range c.Conns {
		if err := (load.Options{Conns: n}).Validate(); err != nil {
			return err
		}
	}
	for _, n := range c.Clients {
		if c.Command == CmdKube {
			break // its clients are the control plane's components
		}
		if c.Command == CmdReplay {
			if n < 1 {
				return invalid.Errorf("{Clients} must be at least 1, not %d", n)
			}
			continue // its rates and length are the profile's
		}
		if err := c.spec(n).Validate(); err != nil {
			return err
		}
	}
	if c.Command == CmdKube {
		if err := c.validateKube(); err != nil {
			return err
		}
		switch c.ControlPlane {
		case "", ControlPlaneEmulated:
		case ControlPlaneReal:
			if err := c.validateKubeReal(); err != nil {
				return err
			}
		default:
			return invalid.Errorf("{ControlPlane} must be emulated or real, not %q", c.ControlPlane)
		}
	}
	if c.Iterations < 1 {
		return invalid.Errorf("{Iterations} must be at least 1, not %d", c.Iterations)
	}
	if _, err := parseWarmup(c.Warmup); err != nil {
		return err
	}
	if c.Consistency != "l" && c.Consistency != "s" {
		return invalid.Errorf("{Consistency} must be l (linearizable) or s (serializable), not %q", c.Consistency)
	}
	if c.writes() && c.Command != CmdWatchLatency && c.Command != CmdKube && c.Command != CmdReplay {
		if err := c.validateKeys(); err != nil {
			return err
		}
	}
	if c.Command == CmdTxnMixed && c.RWRatio < 0 {
		return invalid.Errorf("{RWRatio} must not be negative, not %g", c.RWRatio)
	}
	if c.Command == CmdWatchLatency {
		if err := c.Watch.validate(); err != nil {
			return err
		}
	}
	if err := c.validateSeries(); err != nil {
		return err
	}
	if c.Engine != "" && c.Engine != EngineWire && c.Engine != EngineGRPC {
		return invalid.Errorf("{Engine} must be wire or grpc, not %q", c.Engine)
	}
	if c.Prefix == "" {
		c.Prefix = "/etcdlab/bench/" + RunID(time.Now()) + "/"
	}
	if c.LocalMembers == 0 {
		c.LocalMembers = 3
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return nil
}

// validateKeys checks the keys a writing command names: their size, the
// key space, and that the key size can name the key space.
func (c *Config) validateKeys() error {
	if c.KeySize < 1 {
		return invalid.Errorf("{KeySize} must be at least 1, not %d", c.KeySize)
	}
	if c.ValSize < 0 {
		return invalid.Errorf("{ValSize} must not be negative, not %d", c.ValSize)
	}
	if c.KeySpaceSize < 0 {
		return invalid.Errorf("{KeySpaceSize} must not be negative, not %d", c.KeySpaceSize)
	}
	if c.Command == CmdTxnPut && c.TxnOps < 1 {
		return invalid.Errorf("{TxnOps} must be at least 1, not %d", c.TxnOps)
	}
	space, _ := c.keySpace()
	if c.KeySize < 16 && float64(space) > math.Pow(16, float64(c.KeySize)) {
		if c.KeySpaceSize == 0 {
			return invalid.Errorf("{KeySize} %d (hex digits) cannot name %d distinct keys ({KeySpaceSize} defaults to {Total}); raise {KeySize}, lower {Total} or give a smaller {KeySpaceSize}", c.KeySize, space)
		}
		return invalid.Errorf("{KeySize} %d (hex digits) cannot name %d distinct keys; raise {KeySize} or lower {KeySpaceSize}", c.KeySize, space)
	}
	if c.Command == CmdTxnPut && int64(c.TxnOps) > space {
		return invalid.Errorf("{TxnOps} (%d) must not exceed {KeySpaceSize} (%d)", c.TxnOps, space)
	}
	// Experiment files' and agents' lines too, not only the CLI's.
	return c.ValidateRequestSize()
}

// spec is the load of one measured run with clients clients (its Live and
// Progress are the run's observers').
func (c *Config) spec(clients int) load.Spec {
	return load.Spec{Clients: clients, Total: c.Total, Duration: c.Duration, Rate: c.Rate, RequestTimeout: c.RequestTimeout, Canary: c.Canary}
}

// keySpace returns the key space to use and, when it differs from what etcd
// benchmark would do, a note saying so.
func (c *Config) keySpace() (int64, string) {
	if c.KeySpaceSize > 0 {
		return c.KeySpaceSize, ""
	}
	space := c.Total
	if space == 0 { // a --duration run: as many keys as the key size can name
		space = int64(math.Min(math.Pow(16, float64(c.KeySize)), 1<<40))
	}
	if c.Command == CmdTxnPut && space < int64(c.TxnOps) {
		space = int64(c.TxnOps)
	}
	return space, fmt.Sprintf("--key-space-size not given: using %d distinct keys (etcd benchmark would write every request to one key)", space)
}

// RunID names a run: UTC time and 4 random hex digits, printable and
// sortable.
func RunID(t time.Time) string { return safety.RunID(t) }
