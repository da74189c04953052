// Package logscan reads etcd members' logs and counts the known messages
// that point to a cause (a slow disk, a slow network, leader changes, a
// full quota): step 7 of `etcdlab doctor`, a read-only diagnosis. It fills
// a result.LogCensus: per member and message, how many, per minute, and
// the durations the messages report.
//
// # Formats
//
// Each line is read on its own, so a file may mix formats:
//   - "json": etcd's zap logger (3.4 with --logger=zap, 3.5, 3.6):
//     {"level":"warn","ts":"2024-05-02T10:11:12.345678Z","msg":"slow
//     fdatasync","took":"1.2s",...}; "ts" may be a number of seconds;
//     a duration may be a number of seconds (etcd 3.3's zap logging).
//   - "console": zap's console encoder (3.6 --log-format=console): time,
//     level, caller, message and fields as JSON, separated by tabs.
//   - "text": capnslog (3.4 without --logger=zap): "2021-03-04
//     05:06:07.123456 W | wal: sync duration of 1.5s, expected less than
//     1s". capnslog writes local time without a zone; it is read as UTC.
//   - "journald-json": journalctl -o json; the etcd line is MESSAGE, the
//     time its own or __REALTIME_TIMESTAMP.
//   - "journald-short": journalctl -o short, short-iso, short-precise or
//     short-unix: "TIME host etcd[123]: LINE". A LINE in no etcd format is
//     matched as it is. Plain short output has no year, so such lines have
//     no timestamp unless LINE has one.
//
// kubectl and oc logs print the etcd lines as they are; with --timestamps
// each line starts with an RFC 3339 time and a space, which is used when
// the line has no time of its own. Blank lines and journalctl's
// separators ("-- Boot 1a2b… --") are skipped.
//
// # Members
//
// Each source (a file, or stdin) is one member's log. Its member is
// Options.Member if set; else the name etcd logged when it started (zap's
// "starting an etcd server" line has a "name" field, capnslog logs "embed:
// name = NAME"), the first in the source; else the file's name without
// its extensions ("etcd-m1.log.gz" → "etcd-m1"); else the first
// "local-member-id" the log states; else "stdin". Sources of the same
// member add up.
//
// # Known messages
//
// A line's message ("msg" in zap) is matched against the table below in
// order; the first match is its key. "database space exceeded" and
// "request timed out" are also looked for in zap's "error" field, where
// etcd logs errors its clients got. "took" is the duration the message
// reports, summarised as min, median and max seconds. Sources are etcd's
// release branches: 3.4 at 6e72c68a3, 3.5 at bce5895a9, 3.6 at b622889a5
// (paths as in each branch), raft 3.6 is go.etcd.io/raft/v3 v3.6.0.
// etcd 3.7.3 (with raft v3.7.0) logs each 3.6 message of the table with
// the same text and fields (checked in its module source), at the 3.6
// paths with other line numbers.
//
//	key / cause              text (variant)                          took               source
//	slow-fdatasync  disk     "slow fdatasync" (zap)                  took               3.4 wal/wal.go:809; 3.5 server/wal/wal.go:806; 3.6 server/storage/wal/wal.go:846
//	                         "sync duration of D, expected less      D                  3.4 wal/wal.go:814
//	                         than 1s" (capnslog)
//	heartbeat-late  disk     "leader failed to send out heartbeat    exceeded-duration  3.4 etcdserver/raft.go:453; 3.5 server/etcdserver/raft.go:429; 3.6 server/etcdserver/raft.go:388
//	                         on time; took too long, leader is
//	                         overloaded likely from slow disk"
//	                         "failed to send out heartbeat on time   D                  3.4 etcdserver/raft.go:460
//	                         (exceeded the 100ms timeout for D,
//	                         to ID)" (capnslog)
//	server-overloaded disk   "server is likely overloaded"                              3.4 etcdserver/raft.go:461 (capnslog; follows the
//	                         (capnslog)                                                 heartbeat warning, which zap words "leader is overloaded likely from slow disk")
//	readindex-slow  network  "waiting for ReadIndex response took                       3.4 etcdserver/v3_server.go:1005,1010; 3.5 server/etcdserver/v3_server.go:1026; 3.6 :1017
//	                         too long, retrying"
//	                         "timed out waiting for read index                          3.4 etcdserver/v3_server.go:1023,1027; 3.5 :1040; 3.6 :1031
//	                         response (local node might have slow
//	                         network)"
//	apply-took-too-long disk "apply request took too long" (zap)     took               3.4 etcdserver/util.go:168; 3.5 server/etcdserver/util.go:184; 3.6 server/etcdserver/txn/util.go:94
//	                         "[read-only range ]request "..." with   D                  3.4 etcdserver/util.go:183
//	                         result "..." took too long (D) to
//	                         execute" (capnslog)
//	                         "apply entries took too long [D for N   D                  3.0 etcdserver/server.go:621
//	                         entries]" (capnslog)
//	compaction-finished      "finished scheduled compaction" (zap)    took               3.4 mvcc/kvstore_compaction.go:60; 3.5 server/mvcc/kvstore_compaction.go:72; 3.6 server/storage/mvcc/kvstore_compaction.go:71
//	                compaction "finished scheduled compaction at REV   D                  3.4 mvcc/kvstore_compaction.go:69
//	                         (took D)" (capnslog)
//	snapshot-sent   catch-up "sent database snapshot to writer"                         3.4 etcdserver/snapshot_merge.go:71; 3.5 server/etcdserver/snapshot_merge.go:67; 3.6 :65
//	                         "database snapshot [index: I, to: ID]                      3.4 etcdserver/api/rafthttp/snapshot_sender.go:145
//	                         sent out successfully" (capnslog)
//	snapshot-received        "[successfully ]received and saved      D (capnslog)       3.4 etcdserver/api/rafthttp/http.go:306 (capnslog :315); 3.5 server/etcdserver/api/rafthttp/http.go:287; 3.6 :297
//	                catch-up database snapshot"
//	snapshot-applied         "applied snapshot" (zap), "raft                            3.6 server/etcdserver/server.go:1022; 3.4 etcdserver/raft.go:306 (capnslog)
//	                catch-up applied incoming snapshot" (capnslog)
//	sending-buffer-full      "... sending buffer is full ..."                           3.4 etcdserver/api/rafthttp/peer.go:255,263,268, remote.go:61,69,74;
//	                network                                                             3.5 server/etcdserver/api/rafthttp/peer.go:256,268, remote.go:61,72; 3.6 peer.go:255, remote.go:61,72
//	receiving-buffer-full    "... receiving buffer is full                              3.4 etcdserver/api/rafthttp/stream.go:554,562,567; 3.5 server/.../stream.go:531,542; 3.6 :530,541
//	                network  (overloaded network)"
//	lost-tcp-streaming       "lost TCP streaming connection with                        3.4 etcdserver/api/rafthttp/stream.go:194,225,437; 3.5 server/.../stream.go:195,224,422; 3.6 :194,223,421
//	                network  remote peer" (zap)
//	                         "lost the TCP streaming connection                         3.4 etcdserver/api/rafthttp/stream.go:200,231,444
//	                         with peer" (capnslog)
//	lost-leader     leader   "raft.node: ID lost leader ID at term"                     3.4 raft/node.go:333; 3.5 raft/node.go:335; raft 3.6 node.go:376
//	elected-leader  leader   "raft.node: ID elected leader ID at                        3.4 raft/node.go:327,329; 3.5 raft/node.go:329,331; raft 3.6 node.go:370,372
//	                         term", "raft.node: ID changed leader
//	                         from ID to ID at term"
//	clock-difference clock   "prober found high clock drift" (zap)                      3.4 etcdserver/api/rafthttp/probing_status.go:87; 3.5 and 3.6 server/.../probing_status.go:83
//	                         "the clock difference against peer ID                      3.4 etcdserver/api/rafthttp/probing_status.go:95
//	                         is too high" (capnslog)
//	database-space-exceeded  "etcdserver: mvcc: database space                          3.4 etcdserver/api/v3rpc/rpctypes/error.go:32; 3.5 api/v3rpc/rpctypes/error.go:32; 3.6 :34
//	                quota    exceeded" (msg or error)
//	                         "message exceeded backend quota;                           3.4 etcdserver/server.go:2395 (capnslog 2401); 3.5 server/etcdserver/server.go:2391; 3.6 :2024
//	                         raising alarm"
//	request-timed-out        "etcdserver: request timed out[, ...]"                     3.4 etcdserver/errors.go:26; 3.5 server/etcdserver/errors.go:26; 3.6 server/etcdserver/errors/errors.go:26
//	                leader   (msg or error)
//
// Causes follow etcd's FAQ (etcd.io/docs/v3.5/faq): "apply entries took
// too long" and "failed to send out heartbeat on time" are "usually
// caused by a slow disk", then CPU starvation (and, for heartbeats, a slow
// network); each key carries its first cause only.
//
// # Counting
//
// etcd 3.4's capnslog logs server-overloaded right after each
// heartbeat-late, so the two count the same events there.
//
// Lines counts every non-blank line read; Unrecognised those in no format
// above (and those longer than Options.MaxLineBytes). Lines whose
// timestamp falls outside [Since, Until] are counted there but not in
// messages, formats or FirstUnix and LastUnix, which bound the timestamps
// of the lines kept. PerMinute buckets the messages by their timestamp;
// a message without one is counted but not bucketed. Messages are sorted
// by member, then by count, the largest first.
package logscan
