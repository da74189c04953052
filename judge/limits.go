package judge

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/etcdlab/etcdlab/result"
)

// LimitID names one number a rule judges against: etcd's 10 ms WAL fsync,
// the share of the cores from which CPU limits throughput, the share of
// stalled reads that makes a member starved. Every judging rule in
// etcdlab (the verdict thresholds, the disk job's tail rule, check perf's
// criteria, the bottleneck rules, the doctor's) reads its numbers from
// the limits table through these constants, so two rules that share a
// limit (a verdict and a finding on etcd's 10 ms) point at one row, and a
// misspelt ID does not compile.
type LimitID string

// Limit is one row of the limits table: a number, its unit ("s", "ratio",
// "count", "IOPS", "bytes", "x": a factor) and where it comes from.
type Limit struct {
	ID     LimitID
	What   string
	Value  float64
	Unit   string
	Source string
}

// etcd's own limits and the verdicts' bands.
const (
	LimitWALFsyncP99        LimitID = "etcd.wal_fsync.p99"
	LimitBackendCommitP99   LimitID = "etcd.backend_commit.p99"
	LimitPeerRTTWarn        LimitID = "etcd.peer_rtt.p99.warn"
	LimitPeerRTTFail        LimitID = "etcd.peer_rtt.p99.fail"
	LimitConnectWarn        LimitID = "network.connect.warn"
	LimitConnectFail        LimitID = "network.connect.fail"
	LimitDiskFsyncP999Warn  LimitID = "disk.fsync.p999.warn"
	LimitAny                LimitID = "count.any"
	LimitLeaderChangesFail  LimitID = "etcd.leader_changes.fail"
	LimitIOPSUsable         LimitID = "disk.iops.usable"
	LimitIOPSSmall          LimitID = "disk.iops.small"
	LimitIOPSMedium         LimitID = "disk.iops.medium"
	LimitIOPSLarge          LimitID = "disk.iops.large"
	LimitCheckRateShare     LimitID = "check.rate_share"
	LimitCheckSlowest       LimitID = "check.slowest"
	LimitCheckStddev        LimitID = "check.stddev"
	LimitQuotaWarn          LimitID = "etcd.quota.warn"
	LimitQuotaFail          LimitID = "etcd.quota.fail"
	LimitFragInUse          LimitID = "etcd.fragmentation.in_use"
	LimitFragMinSize        LimitID = "etcd.fragmentation.min_size"
	LimitGRPCErrorsWarn     LimitID = "etcd.grpc_errors.warn"
	LimitGRPCErrorsFail     LimitID = "etcd.grpc_errors.fail"
	LimitGRPCErrorsMinCount LimitID = "etcd.grpc_errors.min_requests"
	LimitGRPCSlowP99        LimitID = "etcd.grpc.p99"
	LimitAppliedLag         LimitID = "etcd.applied_index.lag"
	// LimitCompactionPause and LimitCompactionLong say when a compaction
	// in the window is a cause: the time its batches held the backend's
	// write lock, or a whole compaction's length.
	LimitCompactionPause LimitID = "doctor.compaction.pause"
	LimitCompactionLong  LimitID = "doctor.compaction.long"
	// LimitCatchUpRecent is how recently a member must have started for
	// its distance to the leader to be a catch-up after a restart.
	LimitCatchUpRecent LimitID = "doctor.catch_up.recent_start"
	// LimitDefragSecondsPerGiB is how long a defragmentation blocks a
	// member per GiB of its database in use, when the member has no
	// defragmentation of its own to go by.
	LimitDefragSecondsPerGiB LimitID = "maintenance.defrag.seconds_per_gib"
	// LimitExpensiveRange is the mean size of a member's Range answers
	// from which clients read too much per request (full listings).
	LimitExpensiveRange   LimitID = "etcd.range.mean_bytes"
	LimitQuantileP99Min   LimitID = "doctor.quantile.p99_min_observations"
	LimitQuantileP999Min  LimitID = "doctor.quantile.p999_min_observations"
	LimitMedianMin        LimitID = "doctor.median.min_observations"
	LimitOtherCPU         LimitID = "check.other_cpu"
	LimitStall            LimitID = "doctor.read.stall"
	LimitStarvedShare     LimitID = "doctor.starved.share"
	LimitStarvedFail      LimitID = "doctor.starved.share.fail"
	LimitStarvedRatio     LimitID = "doctor.starved.ratio"
	LimitStarvedMinReads  LimitID = "doctor.starved.min_reads"
	LimitSlowDiskP50      LimitID = "doctor.slow_disk.p50"
	LimitCPUSaturated     LimitID = "bottleneck.cpu"
	LimitMachineSaturated LimitID = "bottleneck.machine_cpu"
	LimitWALBusy          LimitID = "bottleneck.wal_busy"
	LimitFsyncRateShare   LimitID = "bottleneck.fsync_rate"
	LimitRTTShare         LimitID = "bottleneck.rtt_share"
	LimitRateFollowed     LimitID = "bottleneck.rate_followed"
	LimitFaultShare       LimitID = "bottleneck.fault_share"
	LimitMoreAtHigherLoad LimitID = "bottleneck.more_at_higher_load"
	LimitRateLimitShare   LimitID = "bottleneck.kube_rate_limit"
)

// Sources of etcdlab's own rules.
const (
	srcBottleneck = "etcdlab's bottleneck rules (docs/experiment-reports.md)"
	srcDoctor     = "etcdlab doctor's rules (docs/doctor.md)"
	srcCheck      = "etcdlab check's rules (README, etcdlab check)"
	srcCheckPerf  = "etcdctl check perf (etcdctl/ctlv3/command/check.go)"
)

// limits is the table; it is never written.
var limits = map[LimitID]Limit{ //nolint:gochecknoglobals // constant table
	LimitWALFsyncP99:        {What: "etcd's WAL fsync p99 limit", Value: 0.010, Unit: "s", Source: srcEtcdFAQ},
	LimitBackendCommitP99:   {What: "etcd's backend commit p99 limit", Value: 0.025, Unit: "s", Source: "etcd FAQ"},
	LimitPeerRTTWarn:        {What: "peer round trip p99 close to the limit", Value: 0.040, Unit: "s", Source: "etcd-tools workflow.md (40+ ms close)"},
	LimitPeerRTTFail:        {What: "peer round trip p99 limit", Value: 0.050, Unit: "s", Source: "OpenShift etcd docs (< 50 ms)"},
	LimitConnectWarn:        {What: "TCP connect time, about", Value: 0.002, Unit: "s", Source: "etcd-tools etcd-analyzer.sh (about 2 ms)"},
	LimitConnectFail:        {What: "TCP connect time, at most", Value: 0.008, Unit: "s", Source: "etcd-tools etcd-analyzer.sh (no more than 8 ms); field report 003"},
	LimitDiskFsyncP999Warn:  {What: "fdatasync p99.9 close to etcd's WAL fsync limit", Value: 0.0085, Unit: "s", Source: srcEtcdTools},
	LimitAny:                {What: "any occurrence", Value: 1, Unit: "count", Source: "etcd FAQ; etcd mixin; kube-burner alerts"},
	LimitLeaderChangesFail:  {What: "leader changes", Value: 4, Unit: "count", Source: "etcd mixin etcdHighNumberOfLeaderChanges (>= 4)"},
	LimitIOPSUsable:         {What: "sequential fdatasync IOPS below which a disk is unusable", Value: 50, Unit: "IOPS", Source: srcEtcdTiers},
	LimitIOPSSmall:          {What: "sequential fdatasync IOPS for a small/medium cluster", Value: 300, Unit: "IOPS", Source: srcEtcdTiers},
	LimitIOPSMedium:         {What: "sequential fdatasync IOPS for a medium/large cluster", Value: 500, Unit: "IOPS", Source: srcEtcdTiers},
	LimitIOPSLarge:          {What: "sequential fdatasync IOPS for a large cluster under heavy load", Value: 800, Unit: "IOPS", Source: srcEtcdTiers},
	LimitCheckRateShare:     {What: "share of a level's rate a check perf level must exceed", Value: 0.9, Unit: "ratio", Source: srcCheckPerf},
	LimitCheckSlowest:       {What: "slowest request of a check perf level, at most", Value: 0.5, Unit: "s", Source: srcCheckPerf},
	LimitCheckStddev:        {What: "latency standard deviation of a check perf level, at most", Value: 0.1, Unit: "s", Source: srcCheckPerf},
	LimitQuotaWarn:          {What: "database size against the backend quota, warn from", Value: 0.80, Unit: "ratio", Source: "etcdlab (time to act before the mixin fires)"},
	LimitQuotaFail:          {What: "database size against the backend quota, fail from", Value: 0.95, Unit: "ratio", Source: "etcd mixin etcdDatabaseQuotaLowSpace"},
	LimitFragInUse:          {What: "share of the database file in use below which it is fragmented", Value: 0.5, Unit: "ratio", Source: "etcd mixin etcdDatabaseHighFragmentationRatio"},
	LimitFragMinSize:        {What: "database file size from which fragmentation is judged", Value: 100 << 20, Unit: "bytes", Source: "etcd mixin etcdDatabaseHighFragmentationRatio"},
	LimitGRPCErrorsWarn:     {What: "failed unary gRPC requests, warn from", Value: 0.01, Unit: "ratio", Source: "etcd mixin etcdHighNumberOfFailedGRPCRequests"},
	LimitGRPCErrorsFail:     {What: "failed unary gRPC requests, fail from", Value: 0.05, Unit: "ratio", Source: "etcd mixin etcdHighNumberOfFailedGRPCRequests"},
	LimitGRPCErrorsMinCount: {What: "unary gRPC requests needed to judge their failures", Value: 100, Unit: "count", Source: srcDoctor},
	LimitGRPCSlowP99:        {What: "a gRPC method's p99", Value: 0.150, Unit: "s", Source: "etcd mixin etcdGRPCRequestsSlow"},
	LimitAppliedLag:         {What: "entries a member's applied index may trail the others'", Value: 5000, Unit: "count", Source: srcDoctor},
	LimitCompactionPause:    {What: "time a compaction's batches held the backend's write lock in the window from which it is a cause", Value: 0.100, Unit: "s", Source: "etcd's backend commits every 100 ms (--backend-batch-interval): a compaction holding its lock that long delays a commit; " + srcDoctor},
	LimitCompactionLong:     {What: "length of a compaction that ended in the window from which it is a cause", Value: 1, Unit: "s", Source: srcDoctor},
	LimitCatchUpRecent:      {What: "a member started this recently (or restarted in the window) is coming back", Value: 300, Unit: "s", Source: srcDoctor},
	// Measured: perf/defrag-curve.sh on this machine's disk (the disk
	// class), five sizes from 0.07 to 1.1 GiB in use, the median of the
	// points' seconds per GiB in use (28 November 2026): 6.7; the full
	// run's eight points 6.4 (docs/maintenance.md).
	LimitDefragSecondsPerGiB: {What: "seconds a defragmentation blocks a member per GiB of its database in use (the median rate measured on a shared virtual disk with 2 cores; a dedicated SSD is faster)", Value: 6.7, Unit: "s/GiB", Source: "measured by etcdlab's maintenance experiment (perf/defrag-curve.sh, the disk class), docs/maintenance.md"},
	LimitExpensiveRange:      {What: "mean bytes per Range answer from which reads are expensive (listings without a limit)", Value: 256 << 10, Unit: "bytes", Source: "Kubernetes API priority and fairness (LIST is the expensive request); etcd's --max-request-bytes default 1.5 MiB for one request; " + srcDoctor},
	LimitQuantileP99Min:      {What: "observations a p99 needs (in the window, else since the member started)", Value: 100, Unit: "count", Source: srcDoctor},
	LimitQuantileP999Min:     {What: "observations a p99.9 needs (in the window, else since the member started)", Value: 1000, Unit: "count", Source: srcDoctor},
	LimitOtherCPU:            {What: "cores other processes may use during a check level before the machine counts as busy", Value: 0.5, Unit: "cores", Source: srcCheck},
	LimitMedianMin:           {What: "observations a median needs (in the window, else since the member started)", Value: 10, Unit: "count", Source: srcDoctor},
	LimitStall:               {What: "time from which a read counts as stalled", Value: result.StallSeconds, Unit: "s", Source: srcDoctor},
	LimitStarvedShare:        {What: "share of a member's local reads that stalled from which it is starved", Value: 0.15, Unit: "ratio", Source: srcDoctor},
	LimitStarvedFail:         {What: "share of stalled local reads from which starvation fails", Value: 0.30, Unit: "ratio", Source: srcDoctor},
	LimitStarvedRatio:        {What: "times the stalled share on any other member", Value: 3, Unit: "x", Source: srcDoctor},
	LimitStarvedMinReads:     {What: "local reads needed to judge starvation", Value: 8, Unit: "count", Source: srcDoctor},
	LimitSlowDiskP50:         {What: "WAL fsync median of a disk slow all the time (half etcd's p99 limit)", Value: 0.005, Unit: "s", Source: srcDoctor},
	LimitCPUSaturated:        {What: "share of the cores available from which CPU limits throughput", Value: 0.85, Unit: "ratio", Source: srcBottleneck},
	LimitMachineSaturated:    {What: "share of a shared machine's cores from which its CPU limits throughput", Value: 0.9, Unit: "ratio", Source: srcBottleneck},
	LimitWALBusy:             {What: "share of the run in WAL fsync from which the disk limits", Value: 0.7, Unit: "ratio", Source: srcBottleneck},
	LimitFsyncRateShare:      {What: "share of the disk job's fdatasync IOPS from which the disk limits", Value: 0.8, Unit: "ratio", Source: srcBottleneck},
	LimitRTTShare:            {What: "share of the p50 latency the round trip takes from which the network limits", Value: 0.5, Unit: "ratio", Source: srcBottleneck},
	LimitRateFollowed:        {What: "share of the offered rate achieved from which the load was below capacity", Value: 0.95, Unit: "ratio", Source: srcBottleneck},
	LimitFaultShare:          {What: "share of the run unavailable from which a fault limited throughput", Value: 0.02, Unit: "ratio", Source: srcBottleneck},
	LimitMoreAtHigherLoad:    {What: "throughput a higher load must reach to show the load was below capacity", Value: 1.15, Unit: "x", Source: srcBottleneck},
	LimitRateLimitShare:      {What: "share of the time to Ready from which a client rate limit set it", Value: 0.7, Unit: "ratio", Source: srcBottleneck},
}

// LimitOf returns the row of id; a row every constant has (the package's
// tests hold them together).
func LimitOf(id LimitID) Limit {
	l := limits[id]
	l.ID = id
	return l
}

// Value is id's number, in its row's unit.
func (id LimitID) Value() float64 { return limits[id].Value }

// Text renders id's number as messages quote it: "10 ms", "80%", "50".
func (id LimitID) Text() string {
	l := limits[id]
	switch l.Unit {
	case "s":
		return strconv.FormatFloat(math.Round(l.Value*1e6)/1e3, 'f', -1, 64) + " ms"
	case "ratio":
		return fmt.Sprintf("%.0f%%", 100*l.Value)
	}
	return strconv.FormatFloat(l.Value, 'f', -1, 64)
}

// Limits returns every row, ordered by ID.
func Limits() []Limit {
	out := make([]Limit, 0, len(limits))
	for id := range limits {
		out = append(out, LimitOf(id))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
