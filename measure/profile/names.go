package profile

import (
	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/observe/metrics"
)

// The metrics a profile is derived from, beside those observe/metrics
// names. Each was checked in etcd's source at v3.4.45 (mvcc/metrics.go,
// mvcc/metrics_txn.go, lease/metrics.go, lease/lessor.go,
// etcdserver/api/v3rpc) and v3.7.1 (server/storage/mvcc, server/lease,
// server/etcdserver/api/v3rpc): the names are the same in both (and so in
// 3.5 and 3.6), except where a row names an older one (etcd 3.3 and
// earlier had the mvcc request counters only under etcd_debugging_).
const (
	// GRPCMsgSent counts messages sent on streams, by grpc_method:
	// LeaseKeepAlive's are the keepalives answered, one per keepalive
	// (grpc_server_msg_received_total is no count of them: etcd 3.6 and
	// later count every RecvMsg call there, the stream's closing io.EOF
	// included).
	GRPCMsgSent metrics.Name = "grpc_server_msg_sent_total"
	// MVCCPut, MVCCRange, MVCCDelete and MVCCTxn count the store's
	// operations (mvcc's metricsTxnWrite.End): a put, range or delete
	// inside a Txn counts as one of its own, MVCCTxn counts store
	// transactions of more than one operation. Writes are applied, so
	// counted, on every member; reads only on the member that served
	// them.
	MVCCPut    metrics.Name = "etcd_mvcc_put_total"
	MVCCRange  metrics.Name = "etcd_mvcc_range_total"
	MVCCDelete metrics.Name = "etcd_mvcc_delete_total"
	MVCCTxn    metrics.Name = "etcd_mvcc_txn_total"
	// OldMVCCPut is MVCCPut's name up to etcd 3.3 (3.4 exports both).
	OldMVCCPut metrics.Name = "etcd_debugging_mvcc_put_total"
	// PutBytes is a gauge that only grows: the key and value bytes of
	// every put this member applied (mvcc's totalPutSizeGauge adds
	// len(key)+len(value) per put).
	PutBytes metrics.Name = "etcd_debugging_mvcc_total_put_size_in_bytes"
	// Keys is the number of keys in the store (a gauge).
	Keys metrics.Name = "etcd_debugging_mvcc_keys_total"
	// Watchers and WatchStreams are gauges of open watchers and watch
	// streams on a member (watchable_store.go).
	Watchers     metrics.Name = "etcd_debugging_mvcc_watcher_total"
	WatchStreams metrics.Name = "etcd_debugging_mvcc_watch_stream_total"
	// CurrentRevision and CompactRevision are the store's revision and
	// its last compaction's (gauges).
	CurrentRevision metrics.Name = "etcd_debugging_mvcc_current_revision"
	CompactRevision metrics.Name = "etcd_debugging_mvcc_compact_revision"
	// CompactionDuration is a histogram observed once per compaction:
	// its count is the number of compactions.
	CompactionDuration metrics.Name = "etcd_debugging_mvcc_db_compaction_total_duration_milliseconds"
	// LeaseGranted and LeaseRevoked count leases granted and revoked
	// (applied on every member); LeaseRenewed the leases the leader
	// renewed (keepalives).
	LeaseGranted metrics.Name = "etcd_debugging_lease_granted_total"
	LeaseRevoked metrics.Name = "etcd_debugging_lease_revoked_total"
	LeaseRenewed metrics.Name = "etcd_debugging_lease_renewed_total"
	// LeaseTTL is a histogram of granted TTLs in seconds, observed at
	// every grant.
	LeaseTTL metrics.Name = "etcd_debugging_lease_ttl_total"
	// keepaliveMethod is the grpc_method of keepalives.
	keepaliveMethod = "LeaseKeepAlive"
	// watchMethod is the grpc_method of watch streams.
	watchMethod = "Watch"
)

// Families are the metric families FromWindow reads: a caller that
// scrapes with a metrics.Scraper keeps these (GRPCHandled and
// GRPCMsgSent may be sparse: they are read with SumBy).
func Families() []metrics.Name {
	return []metrics.Name{
		metrics.HasLeader, metrics.IsLeader, metrics.ServerVersion, metrics.GRPCHandled, GRPCMsgSent,
		MVCCPut, OldMVCCPut, MVCCRange, MVCCDelete, MVCCTxn, PutBytes, Keys, Watchers, WatchStreams,
		metrics.WatchEventsSent, CurrentRevision, CompactRevision, CompactionDuration,
		LeaseGranted, LeaseRevoked, LeaseRenewed, LeaseTTL,
		metrics.DBTotalSize, metrics.OldDBTotalSize, metrics.DBInUse, metrics.OldDBInUse, metrics.ClientGRPCSent,
	}
}

// grpcOps maps the unary gRPC methods etcd counts in GRPCHandled to the
// profile's operations.
func grpcOps() []struct{ method, op string } {
	return []struct{ method, op string }{
		{"Put", replay.OpPut}, {"Range", replay.OpRange}, {"DeleteRange", replay.OpDelete}, {"Txn", replay.OpTxn},
		{"LeaseGrant", replay.OpLeaseGrant}, {"LeaseRevoke", replay.OpLeaseRevoke},
	}
}
