// Package load generates load on an etcd cluster and measures it honestly:
// bounded-memory HDR histograms, closed loop by default, open loop with
// latency from the intended send time, per-request deadlines, errors counted
// by gRPC code. It is the engine behind `etcdlab bench` and the load phases
// of `etcdlab check`.
//
// The pieces, each written once:
//
//   - a Workload (Put, Range, TxnPut, TxnMixed, LeaseKeepalive) gives each
//     simulated client a Client, which builds the Request for a sequence
//     number: a Method and an etcd protobuf message;
//   - the scheduler (run.go) hands out sequence numbers, closed loop or open
//     loop with a backlog;
//   - the dispatcher (dispatch.go) is where a finished request is recorded
//     and its client's next request starts, with the back-off after
//     Unavailable and the auth token refresh;
//   - the recorder (recorder.go) turns completions into result statistics;
//   - a transport sends requests asynchronously: wire (package load/wire; a
//     client is a record, not a goroutine) or gRPC-go (a goroutine per
//     client; streams and token refresh). Choose picks one and says why.
//
// Open connects a Session (a workload on a set of connections) and
// Session.Run measures one run.
package load
