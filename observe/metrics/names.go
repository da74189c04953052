package metrics

// Name is the name of a Prometheus metric family, as etcd exposes it.
type Name string

// The metrics etcdlab reads. etcd 3.4, 3.5, 3.6 and 3.7 expose each of
// them under the same name unless its comment says otherwise (checked
// against etcd's source: server/etcdserver/metrics.go, server/storage/wal,
// server/storage/backend, server/storage/mvcc, server/etcdserver/api/
// rafthttp and v3rpc, and the CHANGELOGs of 3.1 to 3.6; for 3.7, a 3.7.3
// member's /metrics and its module source; the youngest here,
// etcd_server_is_leader, etcd_server_slow_apply_total and
// etcd_server_slow_read_indexes_total, came with 3.4 and were backported to
// late 3.1 to 3.3 releases). Histograms are in seconds.
const (
	// HasLeader is 1 while the member knows a leader; that a scrape has it
	// tells an etcd member from another Prometheus exporter.
	HasLeader Name = "etcd_server_has_leader"
	// IsLeader is 1 while the member is the leader (etcd 3.4 and later).
	IsLeader Name = "etcd_server_is_leader"
	// ServerVersion is a gauge set to 1 whose label server_version is the
	// member's version ("3.7.3").
	ServerVersion Name = "etcd_server_version"
	// ServerVersionLabel is ServerVersion's label that holds the version.
	ServerVersionLabel = "server_version"
	// WALFsyncDuration is the histogram of WAL fsync latency.
	WALFsyncDuration Name = "etcd_disk_wal_fsync_duration_seconds"
	// BackendCommitDuration is the histogram of bbolt commit latency.
	BackendCommitDuration Name = "etcd_disk_backend_commit_duration_seconds"
	// PeerRoundTripTime is the histogram of round trips to each peer,
	// observed about every 30 s.
	PeerRoundTripTime Name = "etcd_network_peer_round_trip_time_seconds"
	// SlowApplies counts applies that took over 100 ms.
	SlowApplies Name = "etcd_server_slow_apply_total"
	// SlowReadIndexes counts read indexes (linearizable reads) that took
	// too long to be confirmed by the leader.
	SlowReadIndexes Name = "etcd_server_slow_read_indexes_total"
	// LeaderChanges counts the leader changes the member saw.
	LeaderChanges Name = "etcd_server_leader_changes_seen_total"
	// ProposalsPending is a gauge: proposals waiting to be committed.
	ProposalsPending Name = "etcd_server_proposals_pending"
	// ProposalsFailed counts failed Raft proposals.
	ProposalsFailed Name = "etcd_server_proposals_failed_total"
	// HeartbeatSendFailures counts heartbeats the leader failed to send.
	HeartbeatSendFailures Name = "etcd_server_heartbeat_send_failures_total"
	// GRPCHandled counts finished RPCs by grpc_code, grpc_method,
	// grpc_service and grpc_type (unary, server_stream, bidi_stream...).
	// etcd 3.4 and 3.5 export it through go-grpc-prometheus, 3.6 through
	// go-grpc-middleware's providers/prometheus: same name, same labels.
	// Every method is pre-registered with every code, so most series stay
	// at 0.
	GRPCHandled Name = "grpc_server_handled_total"
	// WatchEventsSent counts the events a member sent to its watchers
	// (mvcc's totalEventsCounter, the same name from 3.4 to 3.7).
	WatchEventsSent Name = "etcd_debugging_mvcc_events_total"
	// GRPCCodeLabel and GRPCTypeLabel are GRPCHandled's labels for the
	// status code ("OK", "Unavailable") and the RPC type ("unary").
	GRPCCodeLabel = "grpc_code"
	GRPCTypeLabel = "grpc_type"
	// DBTotalSize is the physically allocated size of the bbolt file.
	// etcd 3.4 renamed it from OldDBTotalSize, the name up to 3.3 (3.5's
	// source has only the new name).
	DBTotalSize    Name = "etcd_mvcc_db_total_size_in_bytes"
	OldDBTotalSize Name = "etcd_debugging_mvcc_db_total_size_in_bytes"
	// DBInUse is the part of the bbolt file in use (what a defragment
	// would leave); etcd 3.3 named it OldDBInUse.
	DBInUse    Name = "etcd_mvcc_db_total_size_in_use_in_bytes"
	OldDBInUse Name = "etcd_debugging_mvcc_db_total_size_in_use_in_bytes"
	// ClientGRPCSent and ClientGRPCReceived count the bytes of gRPC
	// messages etcd sent to and received from clients (message sizes, not
	// wire bytes: no HTTP/2 framing or TLS).
	ClientGRPCSent     Name = "etcd_network_client_grpc_sent_bytes_total"
	ClientGRPCReceived Name = "etcd_network_client_grpc_received_bytes_total"
	// DefragInflight is 1 while the member defragments its backend (etcd
	// 3.5 and newer).
	DefragInflight Name = "etcd_disk_defrag_inflight"
	// PeerSent and PeerReceived count the bytes a member sent to and
	// received from its peers (labels To and From).
	PeerSent     Name = "etcd_network_peer_sent_bytes_total"
	PeerReceived Name = "etcd_network_peer_received_bytes_total"
	// ProcessCPUSeconds is the member process's CPU time (Go's process
	// collector; user and system, at the kernel's clock tick, 10 ms).
	ProcessCPUSeconds Name = "process_cpu_seconds_total"
	// ProcessResidentMemory is the member process's resident set size.
	ProcessResidentMemory Name = "process_resident_memory_bytes"
	// ProcessStartTime is when the member process started (Unix seconds);
	// a change between two scrapes means the member restarted and its
	// counters began again from zero.
	ProcessStartTime Name = "process_start_time_seconds"
	// QuotaBackendBytes is the member's backend quota (etcd 3.4 and later).
	QuotaBackendBytes Name = "etcd_server_quota_backend_bytes"
	// PeerSentFailures counts failed sends to each peer (label To).
	PeerSentFailures Name = "etcd_network_peer_sent_failures_total"
	// GRPCHandling is the histogram of gRPC handling time by grpc_method
	// and grpc_type; etcd exports it only with --metrics=extensive.
	GRPCHandling Name = "grpc_server_handling_seconds"
	// GRPCMethodLabel is its (and GRPCHandled's) method label ("Range").
	GRPCMethodLabel = "grpc_method"
	// Goroutines is the member process's goroutine count (Go collector).
	Goroutines Name = "go_goroutines"
	// CompactionPause is the histogram (milliseconds) of the time each
	// batch of a physical compaction held the backend's write lock,
	// observed as each batch ends: its count grows while a compaction
	// runs. CompactionTotal is the histogram (milliseconds) of whole
	// compactions, observed when one ends; CompactionKeys counts the
	// keys compactions removed (added when one ends). All three are
	// mvcc/kvstore_compaction.go's (3.4 mvcc/, 3.5 server/mvcc/, 3.6 and
	// 3.7 server/storage/mvcc/), the same names from 3.4 to 3.7.
	CompactionPause Name = "etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds"
	CompactionTotal Name = "etcd_debugging_mvcc_db_compaction_total_duration_milliseconds"
	CompactionKeys  Name = "etcd_debugging_mvcc_db_compaction_keys_total"
	// CompactRevision is the revision of the last compaction the member
	// scheduled (set when it is scheduled, before the backend's part
	// runs), CurrentRevision the store's revision (gauges, 3.4 to 3.7).
	CompactRevision Name = "etcd_debugging_mvcc_compact_revision"
	CurrentRevision Name = "etcd_debugging_mvcc_current_revision"
	// SnapshotSendInflights is a gauge per peer (label To, the peer's
	// member ID in hex) of the snapshots the member is sending it (the
	// leader sending a member that is too far behind its log the whole
	// database); SnapshotSendSuccess counts the sends that ended well.
	// SnapshotReceiveInflights and SnapshotReceiveSuccess are the
	// receiver's (label From). rafthttp/metrics.go, 3.4 to 3.7.
	SnapshotSendInflights    Name = "etcd_network_snapshot_send_inflights_total"
	SnapshotSendSuccess      Name = "etcd_network_snapshot_send_success"
	SnapshotReceiveInflights Name = "etcd_network_snapshot_receive_inflights_total"
	SnapshotReceiveSuccess   Name = "etcd_network_snapshot_receive_success"
	// SnapshotPeerLabel is the send metrics' peer label.
	SnapshotPeerLabel = "To"
	// SnapshotApplyInProgress is 1 while the member applies a snapshot
	// it received (etcdserver/metrics.go, 3.4 to 3.7).
	SnapshotApplyInProgress Name = "etcd_server_snapshot_apply_in_progress_total"
	// DefragDuration is the histogram (seconds) of the member's past
	// defragmentations (backend/metrics.go, 3.4 to 3.7).
	DefragDuration Name = "etcd_disk_backend_defrag_duration_seconds"
)
