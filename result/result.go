// Package result is etcdlab's one result model: every command produces a
// Document, and every output format (text, JSON, CSV, Markdown and HTML) is
// rendered from one. Documents are plain data; they are safe
// to share once built and must not be modified concurrently.
package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"
)

// SchemaVersion is the version of the JSON form written by this build.
// Readers accept every version up to it. Version 2 split unavailability
// into the clients' (Stats.ClientUnavailability, which version 1 called
// "unavailability") and the cluster's (Run.ClusterUnavailability, from
// canaries).
const SchemaVersion = 2

// Kinds of document.
const (
	KindBench = "bench"
)

// Document is the result of one etcdlab command.
type Document struct {
	SchemaVersion int          `json:"schema_version"`
	Kind          string       `json:"kind"`
	CreatedAt     time.Time    `json:"created_at"`
	Environment   Environment  `json:"environment"`
	Bench         *BenchConfig `json:"bench,omitempty"`
	Disk          *Disk        `json:"disk,omitempty"`
	Check         *Check       `json:"check,omitempty"`
	Experiment    *Experiment  `json:"experiment,omitempty"`
	Doctor        *Doctor      `json:"doctor,omitempty"`
	// Upgrade is a rolling upgrade's (KindUpgrade).
	Upgrade *Upgrade `json:"upgrade,omitempty"`
	// Size is `etcdlab size`'s answer (KindSize).
	Size *Size `json:"size,omitempty"`
	// Agent is set in one agent's result (bench --agents); Agents in the
	// result merged from them.
	Agent  *AgentRun `json:"agent,omitempty"`
	Agents *Agents   `json:"agents,omitempty"`
	// Runs holds one entry per measurement: per sweep point and iteration.
	Runs []Run `json:"runs"`
	// Summaries aggregate the iterations of each sweep point.
	Summaries []Summary `json:"summaries,omitempty"`
	// Verdicts judge the measurements against thresholds; Overall is the
	// worst of them.
	Verdicts []Verdict `json:"verdicts,omitempty"`
	Overall  string    `json:"overall,omitempty"`
	// Notes are things a reader should know (a trap that was avoided, a
	// cluster started for the run, a run stopped early).
	Notes []string `json:"notes,omitempty"`
}

// Environment says where a result was measured.
type Environment struct {
	Etcdlab     string `json:"etcdlab_version"`
	GoVersion   string `json:"go_version"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	CPUs        int    `json:"cpus"`
	MemoryBytes uint64 `json:"memory_bytes,omitempty"`
	Kernel      string `json:"kernel,omitempty"`
	// ServerVersion is the members' etcd version, or "mixed: 3.5.35 (m1),
	// 3.6.16 (m2, m3)" when they differ; MemberVersions each member's, as
	// it answered (a member that did not answer is missing).
	ServerVersion  string            `json:"server_version,omitempty"`
	MemberVersions map[string]string `json:"member_versions,omitempty"`
	Members        int               `json:"members,omitempty"`
	// LocalCluster is true when etcdlab started the cluster for this run.
	LocalCluster bool   `json:"local_cluster"`
	DataDir      string `json:"data_dir,omitempty"`
	Filesystem   string `json:"filesystem,omitempty"`
	// CommitRTTSeconds is, for each member as the leader, the emulated
	// round trip a write's commit waits for (the quorum's slowest
	// follower); empty when no delay was emulated between members.
	CommitRTTSeconds map[string]float64 `json:"commit_rtt_seconds,omitempty"`
	// WriteRTTSeconds is, for each member as the leader, the emulated
	// round trips a client's write waited for: to its endpoint, from a
	// follower endpoint to the leader, and the commit, averaged over the
	// connections; empty when not known (a sweep of connections).
	WriteRTTSeconds map[string]float64 `json:"write_rtt_seconds,omitempty"`
	// MemberCores is the cores of each member's machine of a cluster
	// etcdlab did not start, as the person running it said (0: unknown).
	MemberCores float64 `json:"member_cores,omitempty"`
	// MemberCPUs are the CPU budgets (cores) of the members of a cluster
	// etcdlab started with budgets (cluster.Options.CPUs): each ran in a
	// cgroup with that CPU quota. Empty without budgets.
	MemberCPUs map[string]float64 `json:"member_cpus,omitempty"`
	// LoadCPUs is the CPU budget (cores) of the load generator (bench
	// --load-cpus): the processes that sent the load ran in a cgroup with
	// that CPU quota. 0 without.
	LoadCPUs float64 `json:"load_cpus,omitempty"`
}

// BenchConfig is the full configuration of a bench run, with credentials
// removed.
type BenchConfig struct {
	Command        string    `json:"command"`
	Args           []string  `json:"args,omitempty"`
	Endpoints      []string  `json:"endpoints"`
	TargetLeader   bool      `json:"target_leader"`
	TLS            bool      `json:"tls"`
	User           string    `json:"user,omitempty"` // name only
	Conns          []int     `json:"conns"`
	Clients        []int     `json:"clients"`
	Total          int64     `json:"total,omitempty"`
	Duration       Duration  `json:"duration,omitempty"`
	Rate           float64   `json:"rate,omitempty"`
	Mode           string    `json:"mode"` // closed or open
	RequestTimeout Duration  `json:"request_timeout"`
	Warmup         string    `json:"warmup,omitempty"`
	Iterations     int       `json:"iterations"`
	Prefix         string    `json:"prefix"`
	Keep           bool      `json:"keep"`
	Workload       *Workload `json:"workload,omitempty"` // nil for lease-keepalive
	// Kube is bench kube's workload; nil for other commands.
	Kube *KubeConfig `json:"kube,omitempty"`
	// CanaryInterval is how often canaries measured the cluster's
	// availability (0: they did not); PinEndpoints that connections stayed
	// on their endpoints while their members were down (etcd benchmark
	// v3.6), instead of failing over.
	CanaryInterval Duration `json:"canary_interval,omitempty"`
	PinEndpoints   bool     `json:"pin_endpoints,omitempty"`
}

// Workload is what a bench command's requests carry. Each command records
// its own fields (docs/results.md lists them) and leaves the others out.
// Fields whose zero value means something (a limit of 0 is no limit, a
// 0-byte value, false) are pointers, present whenever the command has them;
// the others are never zero when a command has them. The fields are in the
// order of their JSON names, which is the order results written before
// this type existed list them in.
type Workload struct {
	Consistency       string   `json:"consistency,omitempty"` // l or s: range, txn-mixed
	CountOnly         *bool    `json:"count_only,omitempty"`  // range
	KeySize           int      `json:"key_size,omitempty"`    // put, txn-put, txn-mixed
	KeySpaceSize      int64    `json:"key_space_size,omitempty"`
	Limit             *int64   `json:"limit,omitempty"`  // range, txn-mixed
	PrevKV            *bool    `json:"prevkv,omitempty"` // watch-latency
	PutRate           int      `json:"put_rate,omitempty"`
	PutTotal          int      `json:"put_total,omitempty"`
	RWRatio           *float64 `json:"rw_ratio,omitempty"` // txn-mixed
	SequentialKeys    *bool    `json:"sequential_keys,omitempty"`
	Streams           int      `json:"streams,omitempty"`
	TxnOps            int      `json:"txn_ops,omitempty"`  // txn-put
	ValSize           *int     `json:"val_size,omitempty"` // put, txn-put, txn-mixed, watch-latency
	WatchersPerStream int      `json:"watchers_per_stream,omitempty"`
}

// Run is one measurement.
type Run struct {
	Name      string    `json:"name"`
	Conns     int       `json:"conns"`
	Clients   int       `json:"clients"`
	Iteration int       `json:"iteration"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Stats
	// Ops breaks the run down by operation where it mixes several (reads
	// and writes of txn-mixed; puts and events of watch-latency).
	Ops []Op `json:"ops,omitempty"`
	// Leader is the member the lab handed the leadership to before the
	// run (placement: cluster.Options.Leader, an experiment setup's
	// leader); LeaderMoved says how it did not hold through the run ("m2
	// led at the end", "an election in the run: term 3 to 4"), "" when it
	// held.
	Leader      string `json:"leader,omitempty"`
	LeaderMoved string `json:"leader_moved,omitempty"`
	// StoppedEarly says why the run ended before its total or duration.
	StoppedEarly string `json:"stopped_early,omitempty"`
	// Canary says how the cluster's availability was measured apart from
	// the load; nil when it was not.
	Canary *Canary `json:"canary,omitempty"`
	// ClusterUnavailability lists the windows in which no member served:
	// neither the load nor any canary succeeded, and a canary to every
	// member failed. Each runs from the end of the last success before it
	// to the first success after it (at the canary's resolution). nil when
	// there were none or Canary is nil.
	ClusterUnavailability *Unavailability `json:"cluster_unavailability,omitempty"`
	// Server is what the members' metrics said during the run; nil when
	// they were not scraped.
	Server *Server `json:"server,omitempty"`
	// LoadCPUCores is the CPU the load generator (the etcdlab process that
	// sent the requests) used over the run, in cores: its CPU seconds over
	// the run's seconds. 0 when it was not measured.
	LoadCPUCores float64 `json:"load_cpu_cores,omitempty"`
	// LoadCoresLimit is the cores the load generator's Go runtime could
	// use (GOMAXPROCS, bench --cpus): its CPU cannot exceed it. 0 when not
	// recorded.
	LoadCoresLimit int `json:"load_cores_limit,omitempty"`
	// MachineCPUCores is all of this machine's CPU in use over the run, in
	// cores (from /proc/stat), whoever used it: the load generator, the
	// members when etcdlab started them here, and any other process. 0
	// when it was not measured.
	MachineCPUCores float64 `json:"machine_cpu_cores,omitempty"`
	// Kube is what the Kubernetes-shaped workload measured beside Stats
	// and Ops; nil for other workloads.
	Kube *KubeRun `json:"kube,omitempty"`
	// Replay is how closely bench replay followed its profile; nil for
	// other workloads.
	Replay *Replay `json:"replay,omitempty"`
}

// Canary is how a run measured the cluster's availability apart from the
// load's clients: every IntervalSeconds one request (the workload's own
// kind: a write when it writes) to each member, not waiting for earlier
// ones. The load's clients can all be stuck on requests that etcd times
// out only after its request timeout while the cluster already serves
// again; the canary is not.
type Canary struct {
	IntervalSeconds float64  `json:"interval_seconds"`
	Members         []string `json:"members"`
	Requests        int64    `json:"requests"`
	Errors          int64    `json:"errors"`
}

// Op is the part of a run for one kind of operation.
type Op struct {
	Name string `json:"name"`
	Stats
}

// Stats are the measurements of a set of requests. Latencies are in seconds
// and exclude failed requests, as etcd benchmark does.
type Stats struct {
	Requests        int64            `json:"requests"`
	Errors          map[string]int64 `json:"errors"` // by gRPC code
	ErrorMessages   map[string]int64 `json:"error_messages,omitempty"`
	DurationSeconds float64          `json:"duration_seconds"`
	ThroughputRPS   float64          `json:"throughput_rps"`
	Latency         Latency          `json:"latency_seconds"`
	// ServiceTime is the time from the actual send, for open-loop runs,
	// where Latency is measured from the intended send time.
	ServiceTime *Latency `json:"service_time_seconds,omitempty"`
	TimeSeries  []Second `json:"time_series,omitempty"`
	// Histogram is the HdrHistogram of Latency in microseconds, in its
	// compressed base64 form, so results can be merged exactly.
	Histogram string `json:"histogram,omitempty"`
	// ServiceHistogram is ServiceTime's HdrHistogram in the same form.
	ServiceHistogram string `json:"service_histogram,omitempty"`
	// ClientUnavailability is what the clients experienced: the windows in
	// which none of the load's requests succeeded and at least one sent in
	// the window failed, at 10 ms resolution. It depends on the clients
	// and connections as much as on the cluster (clients stuck on requests
	// etcd times out after its request timeout send nothing else); nil when
	// there were none.
	ClientUnavailability *Unavailability `json:"client_unavailability,omitempty"`
	// V1Unavailability is schema version 1's name for ClientUnavailability;
	// Read moves it there.
	V1Unavailability *Unavailability `json:"unavailability,omitempty"`
}

// Unavailability is a set of outage windows.
type Unavailability struct {
	LongestSeconds float64  `json:"longest_seconds"`
	TotalSeconds   float64  `json:"total_seconds"`
	Windows        []Window `json:"windows"`
}

// Window is one outage: from the end of the last success before it to the
// first success after it.
type Window struct {
	Start   time.Time `json:"start"`
	Seconds float64   `json:"seconds"`
}

// MaxWindows bounds the windows listed; the totals count them all.
const MaxWindows = 100

// Add records an outage window that began at start and lasted d.
func (u *Unavailability) Add(start time.Time, d time.Duration) {
	secs := d.Seconds()
	u.TotalSeconds += secs
	u.LongestSeconds = max(u.LongestSeconds, secs)
	if len(u.Windows) < MaxWindows {
		u.Windows = append(u.Windows, Window{Start: start.UTC(), Seconds: secs})
	}
}

// ErrorCount is the number of failed requests, all codes together.
func (s Stats) ErrorCount() int64 {
	var n int64
	for _, v := range s.Errors {
		n += v
	}
	return n
}

// Latency summarises a latency distribution, in seconds.
type Latency struct {
	Min    float64 `json:"min"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	Max    float64 `json:"max"`
	P10    float64 `json:"p10"`
	P25    float64 `json:"p25"`
	P50    float64 `json:"p50"`
	P75    float64 `json:"p75"`
	P90    float64 `json:"p90"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p99.9"`
}

// Second is one second of a run's time series.
type Second struct {
	UnixSecond int64   `json:"unix_second"`
	Requests   int64   `json:"requests"`
	Errors     int64   `json:"errors"`
	Min        float64 `json:"min_seconds"`
	Mean       float64 `json:"mean_seconds"`
	Max        float64 `json:"max_seconds"`
}

// Summary aggregates the iterations of one sweep point: mean and sample
// standard deviation across iterations.
type Summary struct {
	Name          string `json:"name"`
	Conns         int    `json:"conns"`
	Clients       int    `json:"clients"`
	Iterations    int    `json:"iterations"`
	ThroughputRPS MeanSD `json:"throughput_rps"`
	P50           MeanSD `json:"p50_seconds"`
	P99           MeanSD `json:"p99_seconds"`
	Mean          MeanSD `json:"mean_seconds"`
}

// MeanSD is a mean and its sample standard deviation.
type MeanSD struct {
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
}

// MeanSDOf returns the mean and the sample standard deviation of xs (0
// for one value; the zero MeanSD for none).
func MeanSDOf(xs []float64) MeanSD {
	if len(xs) == 0 {
		return MeanSD{}
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	m := sum / float64(len(xs))
	if len(xs) == 1 {
		return MeanSD{Mean: m}
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return MeanSD{Mean: m, Stddev: math.Sqrt(ss / float64(len(xs)-1))}
}

// Duration is a time.Duration that reads and writes JSON (and so YAML, such
// as topology files) as a Go duration string: "1.5s", "20ms".
type Duration time.Duration

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a Go duration string, or the number 0; any other
// number is refused, since its unit would be a guess.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n float64
		if json.Unmarshal(b, &n) == nil && n == 0 {
			*d = 0
			return nil
		}
		return fmt.Errorf("duration %s: write it with a unit, like \"20ms\"", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: write it with a unit, like \"20ms\"", s)
	}
	*d = Duration(v)
	return nil
}

// Write encodes doc as indented JSON.
func Write(w io.Writer, doc *Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// Read decodes a document, with one-line errors for malformed input and
// schema versions this build does not know.
func Read(r io.Reader) (*Document, error) {
	var doc Document
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty result document")
		}
		return nil, fmt.Errorf("not a result document: %w", err)
	}
	if doc.SchemaVersion < 1 || doc.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("unknown schema_version %d (this etcdlab reads 1 to %d)", doc.SchemaVersion, SchemaVersion)
	}
	upgrade(&doc)
	return &doc, nil
}

// upgrade moves what older schema versions named differently to where this
// version keeps it.
func upgrade(doc *Document) {
	v1 := func(s *Stats) {
		if s.V1Unavailability != nil {
			s.ClientUnavailability, s.V1Unavailability = s.V1Unavailability, nil
		}
	}
	for i := range doc.Runs {
		v1(&doc.Runs[i].Stats)
		for j := range doc.Runs[i].Ops {
			v1(&doc.Runs[i].Ops[j].Stats)
		}
	}
	doc.SchemaVersion = SchemaVersion
}

// ReadFile reads a document from a file; errors are one line and name the
// file.
func ReadFile(path string) (*Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // "open PATH: why", one line
	}
	defer f.Close()
	doc, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if doc.Kind != KindBench && doc.Kind != KindDisk && doc.Kind != KindCheck && doc.Kind != KindExperiment && doc.Kind != KindSize {
		if doc.Kind == KindDoctor || doc.Kind == KindUpgrade {
			return nil, fmt.Errorf("%s: a %s result; reports and comparisons are drawn from bench, disk, check, experiment and size results", path, doc.Kind)
		}
		return nil, fmt.Errorf("%s: unknown result kind %q", path, doc.Kind)
	}
	return doc, nil
}
