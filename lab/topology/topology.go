// Package topology describes an emulated deployment of a local cluster —
// members, the WAN links between them and to clients, each member's
// storage, and etcd's tuning — as a YAML file or a named preset derived
// from the field reports, and turns it into cluster.Options.
package topology

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/result"
	"sigs.k8s.io/yaml"
)

// Topology is the YAML form (docs/topologies.md documents every field).
type Topology struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// Source says where the numbers come from.
	Source  string `json:"source,omitempty"`
	Members int    `json:"members,omitempty"`
	// RTT is the round trip between every pair of members (each direction
	// gets half), unless Links say otherwise.
	RTT *result.Duration `json:"rtt,omitempty"`
	// ClientRTT is the round trip between the clients and every member.
	ClientRTT *result.Duration `json:"client_rtt,omitempty"`
	Links     []Link           `json:"links,omitempty"`
	Storage   Storage          `json:"storage,omitempty"`
	Etcd      Etcd             `json:"etcd,omitempty"`
	// CPUs is each member's CPU budget in cores (a cgroup CPU quota; root),
	// MemberCPUs the budget of the members it names.
	CPUs       float64            `json:"cpus,omitempty"`
	MemberCPUs map[string]float64 `json:"member_cpus,omitempty"`
	// Dir is where relative paths in the topology (fit:file=PATH) are
	// found: Load sets it to a file's directory; "" is the current one.
	Dir string `json:"-"`
}

// Link sets the links between two ends (members m1..mN, or "client"):
// both directions with Between, or one with From and To. RTT splits
// evenly over the two directions; Delay is one-way.
type Link struct {
	Between []string        `json:"between,omitempty"`
	From    string          `json:"from,omitempty"`
	To      string          `json:"to,omitempty"`
	RTT     result.Duration `json:"rtt,omitempty"`
	Delay   result.Duration `json:"delay,omitempty"`
	Jitter  result.Duration `json:"jitter,omitempty"`
	// Bandwidth is a rate such as "100Mbit" or "10MB" (per second).
	Bandwidth string `json:"bandwidth,omitempty"`
	// Loss is the fraction of chunks lost once (0..1), each costing a TCP
	// retransmission timeout.
	Loss float64 `json:"loss,omitempty"`
}

// Storage places the members' data.
type Storage struct {
	// FsyncDelay is added to every fsync/fdatasync (slowfs, root and FUSE):
	// "10ms", "lognormal:p50=20ms,p99=270ms", "fit:p50=2ms,p99=6.4ms" or
	// "fit:file=FIO-OUTPUT" (slowfs.ParseDelay).
	FsyncDelay string `json:"fsync_delay,omitempty"`
	// ReadDelay is added to every read that reaches the disk (a page-cache
	// miss, an O_DIRECT read), WriteDelay to every O_DIRECT write, on
	// every member's disk; same forms as FsyncDelay.
	ReadDelay  string `json:"read_delay,omitempty"`
	WriteDelay string `json:"write_delay,omitempty"`
	// WALOnly limits FsyncDelay to the WAL.
	WALOnly bool `json:"wal_only,omitempty"`
	// FsyncBy is how FsyncDelay is added: "fuse" (empty: slowfs, whose
	// own cost puts a 1.4-2.8 ms floor under an fsync) or "seccomp" (the
	// members' own fsync/fdatasync calls held by seccomp user notification,
	// emulate/syscalldelay: a few microseconds of its own, for delays
	// under a millisecond; only the members' syncs, not another process's
	// in their dirs). cluster.Options.FsyncBy.
	FsyncBy string `json:"fsync_by,omitempty"`
	// Tmpfs puts the data in memory (/dev/shm): syncs cost nothing, the
	// PMEM article's best case.
	Tmpfs bool `json:"tmpfs,omitempty"`
	// Members overrides FsyncDelay per member.
	Members map[string]MemberStorage `json:"members,omitempty"`
}

// MemberStorage is one member's disk.
type MemberStorage struct {
	FsyncDelay string `json:"fsync_delay,omitempty"`
}

// Etcd is the members' tuning. Zero values follow the etcd tuning guide for
// the emulated round trips (heartbeat about the largest RTT, election
// timeout at least ten times it), unless Defaults keeps etcd's 100/1000 ms.
//
// Version is the etcd the members run (a version built from etcd's
// modules, 3.5.35, or a binary's path, relative to the topology file's
// directory), Members the etcd of the members it names (a mixed cluster):
// cluster.Options.Etcd and MemberEtcd. Empty: the etcd in etcdlab.
type Etcd struct {
	HeartbeatMs uint              `json:"heartbeat_interval_ms,omitempty"`
	ElectionMs  uint              `json:"election_timeout_ms,omitempty"`
	Defaults    bool              `json:"defaults,omitempty"`
	Version     string            `json:"version,omitempty"`
	Members     map[string]string `json:"members,omitempty"`
}

// Parse reads a topology from YAML, refusing unknown fields. Its errors,
// and those of every function here that reads a topology or a rate, are
// invalid-input errors (package invalid), one line each.
func Parse(b []byte) (*Topology, error) {
	var t Topology
	if err := yaml.UnmarshalStrict(b, &t); err != nil {
		return nil, invalid.Errorf("%s", oneLine(err.Error()))
	}
	return &t, nil
}

// Load reads a preset by name, or a YAML file by path.
func Load(nameOrPath string) (*Topology, error) {
	if b, ok := preset(nameOrPath); ok {
		return Parse(b)
	}
	b, err := os.ReadFile(nameOrPath)
	if err != nil {
		if os.IsNotExist(err) && !strings.ContainsAny(nameOrPath, "/.") {
			return nil, invalid.Errorf("no preset or file %q (presets: %s)", nameOrPath, strings.Join(Presets(), ", "))
		}
		return nil, invalid.Errorf("topology: %v", err)
	}
	t, err := Parse(b)
	if err != nil {
		return nil, invalid.Errorf("topology %s: %v", nameOrPath, err)
	}
	t.Dir = filepath.Dir(nameOrPath)
	return t, nil
}

// Marshal writes the topology as YAML.
func (t *Topology) Marshal() ([]byte, error) { return yaml.Marshal(t) }

// ParseRate reads "100Mbit", "1Gbit", "10MB", "500kB" or "1000B"
// (optionally followed by "/s") as bytes per second.
func ParseRate(s string) (int64, error) {
	in := strings.TrimSuffix(strings.TrimSpace(s), "/s")
	units := []struct {
		suffix string
		mult   float64
	}{{"Gbit", 1e9 / 8}, {"Mbit", 1e6 / 8}, {"kbit", 1e3 / 8}, {"bit", 1.0 / 8}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}, {"B", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(in, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || !(v > 0) { // NaN too
				break
			}
			// Under 1 B/s would be 0, which means no limit at all; past
			// int64 a rate is no number.
			switch r := v * u.mult; {
			case r < 1:
				return 0, invalid.Errorf("bandwidth %q is under 1 B/s", s)
			case r >= math.MaxInt64:
				return 0, invalid.Errorf("bandwidth %q is too large", s)
			default:
				return int64(r), nil
			}
		}
	}
	return 0, invalid.Errorf("bandwidth %q: write a positive rate like 100Mbit or 10MB", s)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.TrimPrefix(s, "error unmarshaling JSON: while decoding JSON: ")
	return s
}
