// Package member is one etcd member: the configuration a local cluster gives
// it, and the code that runs it inside its own process (the hidden
// `etcdlab member` subcommand, or a test binary re-executing itself).
package member

import (
	"os"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdbuild"
	"sigs.k8s.io/yaml"
)

// Config is what one member of a local cluster is started with. It is written
// to disk as an etcd configuration file (the format of `etcd --config-file`),
// so a person can read it, and run a stock etcd with it.
type Config struct {
	Name    string
	DataDir string
	// ClientURL and PeerURL are advertised; MetricsURL is where metrics are
	// read. Each is also listened on unless its Listen… field is set (an
	// emulated network puts a proxy between the two).
	ClientURL        string
	PeerURL          string
	MetricsURL       string
	ListenClientURL  string
	ListenPeerURL    string
	ListenMetricsURL string
	// FeatureGates is etcd's --feature-gates, e.g. "SetMemberLocalAddr=true".
	FeatureGates string
	// InitialCluster is "name=peerURL,..." for every member.
	InitialCluster string
	ClusterToken   string
	// TLS, if set, is used for both client and peer traffic, with client
	// certificates required on both.
	TLS     *TLSFiles
	Tuning  Tuning
	LogFile string
	// Version is the etcd version the file is written for, as etcd
	// prints it ("3.4.23"); empty means the embedded etcd. Keys a version
	// lacks are left out (feature-gates before 3.6).
	Version string
}

// TLSFiles are a member's certificate, key and the CA it trusts.
type TLSFiles struct {
	CertFile string `json:"cert_file"`
	KeyFile  string `json:"key_file"`
	CAFile   string `json:"ca_file"`
}

// Tuning holds the etcd server settings that matter for performance work.
// Zero values mean etcd's defaults.
type Tuning struct {
	HeartbeatMs             uint   `json:"heartbeat_interval_ms,omitempty"`
	ElectionMs              uint   `json:"election_timeout_ms,omitempty"`
	SnapshotCount           uint64 `json:"snapshot_count,omitempty"`
	QuotaBackendBytes       int64  `json:"quota_backend_bytes,omitempty"`
	AutoCompactionMode      string `json:"auto_compaction_mode,omitempty"`
	AutoCompactionRetention string `json:"auto_compaction_retention,omitempty"`
	// Metrics is "basic" or "extensive".
	Metrics string `json:"metrics,omitempty"`
	// LogLevel is etcd's log level (debug, info, warn, error).
	LogLevel string `json:"log_level,omitempty"`
	// CompactionBatchLimit is how many revisions a compaction removes per
	// batch, CompactionSleepInterval how long it sleeps between batches
	// (etcd: 1000 and 10 ms). Written with the key the member's etcd
	// takes: experimental-… before 3.6; the sleep interval exists from
	// 3.5.16 (EtcdYAML refuses it for an older etcd).
	CompactionBatchLimit    int           `json:"compaction_batch_limit,omitempty"`
	CompactionSleepInterval time.Duration `json:"compaction_sleep_interval,omitempty"`
}

// Validate reports the first setting etcd would refuse, as a one-line
// invalid-input error (package invalid) naming the field.
func (t Tuning) Validate() error {
	hb, el := t.HeartbeatMs, t.ElectionMs
	if hb == 0 {
		hb = 100
	}
	if el == 0 {
		el = 1000
	}
	if el < 5*hb {
		return invalid.Errorf("{ElectionMs} (%d ms) must be at least 5 times {HeartbeatMs} (%d ms)", el, hb)
	}
	if el > 50000 {
		return invalid.Errorf("{ElectionMs} (%d ms) must be at most 50000 ms", el)
	}
	switch t.Metrics {
	case "", "basic", "extensive":
	default:
		return invalid.Errorf("{Metrics} must be basic or extensive, not %q", t.Metrics)
	}
	switch t.AutoCompactionMode {
	case "", "periodic", "revision":
	default:
		return invalid.Errorf("{AutoCompactionMode} must be periodic or revision, not %q", t.AutoCompactionMode)
	}
	if t.QuotaBackendBytes < 0 {
		return invalid.Errorf("{QuotaBackendBytes} must not be negative")
	}
	if t.CompactionBatchLimit < 0 {
		return invalid.Errorf("{CompactionBatchLimit} must not be negative")
	}
	if t.CompactionSleepInterval < 0 {
		return invalid.Errorf("{CompactionSleepInterval} must not be negative")
	}
	switch t.LogLevel {
	case "", "debug", "info", "warn", "error":
	default:
		return invalid.Errorf("{LogLevel} must be debug, info, warn or error, not %q", t.LogLevel)
	}
	return nil
}

// EtcdYAML renders the configuration as an etcd configuration file.
func (c Config) EtcdYAML() ([]byte, error) {
	m := map[string]any{
		"name":                        c.Name,
		"data-dir":                    c.DataDir,
		"listen-client-urls":          or(c.ListenClientURL, c.ClientURL),
		"advertise-client-urls":       c.ClientURL,
		"listen-peer-urls":            or(c.ListenPeerURL, c.PeerURL),
		"initial-advertise-peer-urls": c.PeerURL,
		"listen-metrics-urls":         or(c.ListenMetricsURL, c.MetricsURL),
		"initial-cluster":             c.InitialCluster,
		"initial-cluster-token":       c.ClusterToken,
		"initial-cluster-state":       "new",
		"logger":                      "zap",
		"log-outputs":                 []string{c.LogFile},
		"log-level":                   or(c.Tuning.LogLevel, "info"),
		"metrics":                     or(c.Tuning.Metrics, "basic"),
	}
	if c.FeatureGates != "" && (c.Version == "" || etcdbuild.AtLeast(c.Version, 3, 6)) {
		m["feature-gates"] = c.FeatureGates
	}
	t := c.Tuning
	if t.HeartbeatMs > 0 {
		m["heartbeat-interval"] = t.HeartbeatMs
	}
	if t.ElectionMs > 0 {
		m["election-timeout"] = t.ElectionMs
	}
	if t.SnapshotCount > 0 {
		m["snapshot-count"] = t.SnapshotCount
	}
	if t.QuotaBackendBytes > 0 {
		m["quota-backend-bytes"] = t.QuotaBackendBytes
	}
	if t.AutoCompactionMode != "" {
		m["auto-compaction-mode"] = t.AutoCompactionMode
	}
	if t.AutoCompactionRetention != "" {
		m["auto-compaction-retention"] = t.AutoCompactionRetention
	}
	if err := c.compactionKeys(m); err != nil {
		return nil, err
	}
	if c.TLS != nil {
		sec := map[string]any{
			"cert-file":        c.TLS.CertFile,
			"key-file":         c.TLS.KeyFile,
			"trusted-ca-file":  c.TLS.CAFile,
			"client-cert-auth": true,
		}
		m["client-transport-security"] = sec
		m["peer-transport-security"] = sec
	}
	return yaml.Marshal(m)
}

// compactionKeys writes the compaction's batch limit and sleep interval
// with the keys c's etcd takes: compaction-… from 3.6 (3.6 also takes the
// experimental-… it deprecates, 3.7 only the new ones), experimental-…
// before; the sleep interval exists from 3.5.16 (etcd's CHANGELOG-3.5).
func (c Config) compactionKeys(m map[string]any) error {
	t := c.Tuning
	prefix := ""
	if c.Version != "" && !etcdbuild.AtLeast(c.Version, 3, 6) {
		prefix = "experimental-"
	}
	if t.CompactionBatchLimit > 0 {
		m[prefix+"compaction-batch-limit"] = t.CompactionBatchLimit
	}
	if t.CompactionSleepInterval > 0 {
		if prefix != "" {
			if v, ok := etcdbuild.ParseVersion(c.Version); ok && (v.Major == 3 && v.Minor < 5 || v.Major == 3 && v.Minor == 5 && v.Patch < 16) {
				return invalid.Errorf("etcd %s has no compaction sleep interval ({CompactionSleepInterval}): etcd takes it from 3.5.16", c.Version)
			}
		}
		m[prefix+"compaction-sleep-interval"] = t.CompactionSleepInterval.Nanoseconds()
	}
	return nil
}

// WriteFile writes the etcd configuration file to path.
func (c Config) WriteFile(path string) error {
	b, err := c.EtcdYAML()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// InitialCluster formats the initial-cluster setting from names and peer URLs.
func InitialCluster(names, peerURLs []string) string {
	parts := make([]string, len(names))
	for i := range names {
		parts[i] = names[i] + "=" + peerURLs[i]
	}
	return strings.Join(parts, ",")
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
