package judge

// Verdicts of the doctor's steps judged by its own rules, beside the
// table's (its server checks use the table's IDs).
const (
	// ServerDBQuota is the largest database against its member's backend
	// quota (LimitQuotaWarn, LimitQuotaFail).
	ServerDBQuota ID = "server.db_quota"
	// ReadSerializable and ReadLinearizable are a member's read latency,
	// for the record.
	ReadSerializable ID = "read.serializable"
	ReadLinearizable ID = "read.linearizable"
	// ProcessCPU is a member's CPU, RSS and goroutines, for the record.
	ProcessCPU ID = "process.cpu"
	// ServerGRPCErrors is the share of a member's unary gRPC requests that
	// failed (LimitGRPCErrorsWarn, LimitGRPCErrorsFail).
	ServerGRPCErrors ID = "server.grpc_errors"
	// ServerGRPCP99 is one gRPC method's p99 on a member
	// (LimitGRPCSlowP99).
	ServerGRPCP99 ID = "server.grpc_p99"
	// ServerCompaction is a compaction seen in the window, for the
	// record (a cause from LimitCompactionPause, LimitCompactionLong).
	ServerCompaction ID = "server.compaction"
	// ServerDefragLength is how long the next defragmentation of a large
	// database would block its member, for the record.
	ServerDefragLength ID = "server.defrag_length"
)

// LogsID is the verdict on one known log message: "logs." and the
// message's key (observe/logscan's table: "logs.slow-fdatasync").
func LogsID(key string) ID { return ID("logs." + key) }
