package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

// StateSchemaVersion is the version of the state file format.
const StateSchemaVersion = 1

// DefaultStateFile is where `etcdlab cluster up` records the running cluster.
const DefaultStateFile = ".etcdlab/cluster.json"

// State describes a running cluster: what `cluster up` writes to its state
// file and what `cluster status`, `cluster down` and other commands read.
type State struct {
	SchemaVersion int `json:"schema_version"`
	// Controller is the etcdlab process that started the members and that
	// stops them.
	Controller proc.ID   `json:"controller"`
	StartedAt  time.Time `json:"started_at"`
	// EtcdVersion is the etcd every member runs, or "mixed: 3.5.35 (m1),
	// 3.6.16 (m2, m3)" when they differ (each member's is in Members);
	// EtcdBinary is Options.Etcd's binary ("": the one embedded in etcdlab,
	// or a version per member).
	EtcdVersion string     `json:"etcd_version"`
	EtcdBinary  string     `json:"etcd_binary,omitempty"`
	DataDir     string     `json:"data_dir"`
	Endpoints   []string   `json:"endpoints"`
	MetricsURLs []string   `json:"metrics_urls"`
	TLS         *ClientTLS `json:"tls,omitempty"`
	// Emulated says the members run in an emulated network whose links
	// the controller's control socket shows and changes.
	Emulated bool          `json:"emulated,omitempty"`
	Members  []MemberState `json:"members"`
}

// ClientTLS are the files a client needs to talk to a TLS cluster, as
// etcdctl's and etcd benchmark's --cacert, --cert and --key.
type ClientTLS struct {
	CACert string `json:"cacert"`
	Cert   string `json:"cert"`
	Key    string `json:"key"`
}

// MemberState describes one member.
type MemberState struct {
	Name string `json:"name"`
	// ID is the member ID in hex, as etcdctl prints it.
	ID         string `json:"id"`
	PID        int    `json:"pid"`
	StartTime  uint64 `json:"start_time,omitempty"`
	ClientURL  string `json:"client_url"`
	PeerURL    string `json:"peer_url"`
	MetricsURL string `json:"metrics_url"`
	DataDir    string `json:"data_dir"`
	LogFile    string `json:"log_file"`
	// CPUs is the member's CPU budget in cores (Options.CPUs), 0 for none;
	// MemoryBytes its memory limit (Options.Memory).
	CPUs        float64 `json:"cpus,omitempty"`
	MemoryBytes int64   `json:"memory_bytes,omitempty"`
	// EtcdVersion is the etcd the member runs, EtcdBinary its binary
	// ("": the one embedded in etcdlab).
	EtcdVersion string `json:"etcd_version,omitempty"`
	EtcdBinary  string `json:"etcd_binary,omitempty"`
}

// Process identifies the member's process.
func (m MemberState) Process() proc.ID { return proc.ID{PID: m.PID, StartTime: m.StartTime} }

// Client returns the connection settings for the cluster.
func (s State) Client() etcdclient.Config {
	c := etcdclient.Config{Endpoints: s.Endpoints}
	if s.TLS != nil {
		c.CACert, c.Cert, c.Key = s.TLS.CACert, s.TLS.Cert, s.TLS.Key
	}
	return c
}

// Running reports whether the etcdlab process that owns the cluster is alive.
func (s State) Running() bool { return s.Controller.Alive() }

// WriteStateFile writes s to path atomically, creating the directory.
func WriteStateFile(path string, s State) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("state file %s: %w", path, unwrapPath(err))
	}
	if err := writeJSON(path, s); err != nil {
		return fmt.Errorf("state file %s: %w", path, unwrapPath(err))
	}
	return nil
}

// ErrNoState is returned (wrapped) by ReadStateFile when there is no file.
var ErrNoState = errors.New("no cluster state")

// ReadStateFile reads a state file, with one-line errors for a missing,
// malformed or foreign file.
func ReadStateFile(path string) (State, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, fmt.Errorf("%w: %s does not exist (start a cluster with `etcdlab cluster up`)", ErrNoState, path)
	}
	if err != nil {
		return State{}, fmt.Errorf("state file %s: %w", path, unwrapPath(err))
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return State{}, fmt.Errorf("state file %s is not valid JSON: %w", path, err)
	}
	if s.SchemaVersion != StateSchemaVersion || len(s.Members) == 0 {
		return State{}, fmt.Errorf("state file %s is not an etcdlab cluster state (schema_version %d)", path, s.SchemaVersion)
	}
	return s, nil
}

// MemberCPUs are the members' CPU budgets by name (Options.CPUs and
// MemberCPUs as applied), nil when no member has one.
func (s State) MemberCPUs() map[string]float64 {
	var out map[string]float64
	for _, m := range s.Members {
		if m.CPUs > 0 {
			if out == nil {
				out = map[string]float64{}
			}
			out[m.Name] = m.CPUs
		}
	}
	return out
}
