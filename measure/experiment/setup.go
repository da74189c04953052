package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/topology"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
)

// setupEnv is what a setup's cluster options depend on besides the file.
type setupEnv struct {
	// DataDir is where "disk" and "slow:" storage put the cluster ("":
	// ./.etcdlab, the current directory's disk).
	DataDir string
}

// setupError is a bad setup field, with its YAML name.
type setupError struct {
	field, msg string
}

func (e *setupError) Error() string { return e.field + ": " + e.msg }

func asSetupError(err error, target **setupError) bool { return errors.As(err, target) }

func badField(field, format string, args ...any) error {
	return &setupError{field: field, msg: fmt.Sprintf(format, args...)}
}

// storageKinds are Storage's forms.
const (
	StorageDisk  = "disk"
	StorageTmpfs = "tmpfs"
	storageDir   = "dir:"
	storageSlow  = "slow:"
)

// clusterOptions builds the options of a local setup's cluster. Its errors
// are *setupError naming the field at fault.
func (s *Spec) clusterOptions(st *Setup, env setupEnv) (cluster.Options, error) {
	o := cluster.Options{Members: 3, TLS: st.TLS, PortBase: st.PortBase, BaseDir: env.DataDir}
	if st.Topology != "" && st.TopologySpec != nil {
		return o, badField("topology_spec", "give a topology or a topology_spec, not both")
	}
	if st.Topology != "" || st.TopologySpec != nil {
		t, err := s.topologyOf(st)
		if err != nil {
			return o, err
		}
		if st.Members != 0 && t.Members != 0 && st.Members != t.Members {
			return o, badField("members", "%d, but topology %s has %d members", st.Members, st.Topology, t.Members)
		}
		if st.Storage != "" && (t.Storage.FsyncDelay != "" || t.Storage.Tmpfs || len(t.Storage.Members) > 0) {
			return o, badField("storage", "topology %s already places the storage", st.Topology)
		}
		if st.Members != 0 {
			o.Members = st.Members
		}
		if err := t.Apply(&o, st.Etcd.HeartbeatMs != 0, st.Etcd.ElectionMs != 0); err != nil {
			return o, badField("topology", "%s", err.Error())
		}
	} else if st.Members != 0 {
		o.Members = st.Members
	}
	o.Leader = st.Leader
	if st.Etcd.Version != "" {
		o.Etcd = topology.EtcdIn(st.Etcd.Version, s.relPath("."))
	}
	for name, v := range st.Etcd.Members {
		if o.MemberEtcd == nil {
			o.MemberEtcd = map[string]string{}
		}
		o.MemberEtcd[name] = topology.EtcdIn(v, s.relPath("."))
	}
	if st.CPUs != 0 {
		o.CPUs = st.CPUs
	}
	if len(st.MemberCPUs) > 0 && o.MemberCPUs == nil {
		o.MemberCPUs = map[string]float64{}
	}
	maps.Copy(o.MemberCPUs, st.MemberCPUs)
	mergeTuning(&o, st.Etcd)
	if err := o.Tuning.Validate(); err != nil {
		return o, badField("etcd", "%s", job.ErrText(err, yamlTuningName))
	}
	switch {
	case st.Storage == "" || st.Storage == StorageDisk:
	case st.Storage == StorageTmpfs:
		if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
			return o, badField("storage", "tmpfs: /dev/shm is not available")
		}
		o.BaseDir = topology.TmpfsDir
	case strings.HasPrefix(st.Storage, storageDir):
		dir := strings.TrimPrefix(st.Storage, storageDir)
		if dir == "" {
			return o, badField("storage", "dir: needs a path (dir:/var/lib/etcd-test)")
		}
		o.BaseDir = dir
	case strings.HasPrefix(st.Storage, storageSlow):
		d, err := slowfs.ParseDelayIn(strings.TrimPrefix(st.Storage, storageSlow), s.relPath("."))
		if err != nil {
			return o, badField("storage", "slow: %v", err)
		}
		o.FsyncDelay = d
	default:
		return o, badField("storage", "%q: want disk, tmpfs, dir:PATH or slow:DELAY (slow:10ms, slow:lognormal:p50=23ms,p99=268ms)", st.Storage)
	}
	if s.partitions(st) && o.Links == nil {
		o.Links = topology.PassThrough()
	}
	if err := o.Validate(); err != nil {
		field := "members"
		switch {
		case strings.Contains(err.Error(), "PortBase"):
			field = "port_base"
		case strings.HasPrefix(err.Error(), "Leader "):
			field = "leader"
		case strings.Contains(err.Error(), "MemberEtcd"):
			field = "etcd"
		case strings.Contains(err.Error(), "MemberCPUs"):
			field = "member_cpus"
		case strings.Contains(err.Error(), "CPUs"):
			field = "cpus"
		}
		return o, badField(field, "%s", job.ErrText(err, yamlClusterName))
	}
	return o, nil
}

// topologyOf reads the setup's topology: its preset or file, or the
// one written in the setup.
func (s *Spec) topologyOf(st *Setup) (*topology.Topology, error) {
	if st.TopologySpec == nil {
		t, err := topology.Load(s.topologyPath(st.Topology))
		if err != nil {
			return nil, badField("topology", "%s", err.Error())
		}
		return t, nil
	}
	b, err := json.Marshal(st.TopologySpec)
	if err != nil {
		return nil, badField("topology_spec", "%v", err)
	}
	t, err := topology.Parse(b)
	if err != nil {
		return nil, badField("topology_spec", "%s", err.Error())
	}
	t.Dir = s.relPath(".")
	return t, nil
}

// topologyPath finds a topology file relative to the experiment file; a
// preset name is returned as it is.
func (s *Spec) topologyPath(t string) string {
	if !strings.ContainsAny(t, "/.") {
		return t
	}
	return s.relPath(t)
}

// relPath resolves a path in the file relative to the file's directory
// (a built-in's are taken as they are).
func (s *Spec) relPath(p string) string {
	if p == "" || filepath.IsAbs(p) || s.file == "" || s.builtin {
		return p
	}
	return filepath.Join(filepath.Dir(s.file), p)
}

// partitions reports whether a timeline run on setup st (the file's, or
// an incident's on st) partitions a member, which needs an emulated
// network.
func (s *Spec) partitions(st *Setup) bool {
	for _, f := range s.faultsOn(st) {
		if action, _ := f.Action(); about(action).Emulated {
			return true
		}
	}
	return false
}

// faultsOn is every fault step run on setup st: the file's timeline and
// the timelines of the jobs that run there (an incident's).
func (s *Spec) faultsOn(st *Setup) []Fault {
	faults := slices.Clone(s.Faults)
	for _, w := range s.Workloads {
		if len(w.Setups) == 0 || slices.Contains(w.Setups, st.Name) {
			faults = append(faults, w.faults...)
		}
	}
	return faults
}

// mergeTuning lays the file's tuning over the topology's.
func mergeTuning(o *cluster.Options, e Tuning) {
	t := &o.Tuning
	if e.HeartbeatMs != 0 {
		t.HeartbeatMs = e.HeartbeatMs
	}
	if e.ElectionMs != 0 {
		t.ElectionMs = e.ElectionMs
	}
	if e.SnapshotCount != 0 {
		t.SnapshotCount = e.SnapshotCount
	}
	if e.QuotaBackendBytes != 0 {
		t.QuotaBackendBytes = e.QuotaBackendBytes
	}
	if e.AutoCompactionMode != "" {
		t.AutoCompactionMode = e.AutoCompactionMode
	}
	if e.AutoCompactionRetention != "" {
		t.AutoCompactionRetention = e.AutoCompactionRetention
	}
	if e.Metrics != "" {
		t.Metrics = e.Metrics
	}
	if e.CompactionBatchLimit != 0 {
		t.CompactionBatchLimit = e.CompactionBatchLimit
	}
	if e.CompactionSleepInterval != 0 {
		t.CompactionSleepInterval = e.CompactionSleepInterval.D()
	}
}

// yamlTuningName names member.Tuning's fields as the file does.
func yamlTuningName(field string) string {
	return map[string]string{
		"HeartbeatMs": "heartbeat_interval_ms", "ElectionMs": "election_timeout_ms", "SnapshotCount": "snapshot_count",
		"QuotaBackendBytes": "quota_backend_bytes", "AutoCompactionMode": "auto_compaction_mode",
		"AutoCompactionRetention": "auto_compaction_retention", "Metrics": "metrics", "LogLevel": "log_level",
		"CompactionBatchLimit": "compaction_batch_limit", "CompactionSleepInterval": "compaction_sleep_interval",
	}[field]
}

// yamlClusterName names cluster.Options' fields as the file does.
func yamlClusterName(field string) string {
	return map[string]string{"Members": "members", "PortBase": "port_base", "Host": "host", "CPUs": "cpus", "MemberCPUs": "member_cpus", "Leader": "leader", "Etcd": "etcd.version", "MemberEtcd": "etcd.members"}[field]
}
