package logscan

import (
	"strings"
	"testing"
	"time"
)

// sample is one known message as etcd logs it: msg (zap's "msg", or
// capnslog's text after the level), err (zap's "error"), and the
// duration it reports (took, or zap's field when field is set).
type sample struct {
	key, msg, err, field string
	took                 time.Duration
}

// samples are etcd's wordings (see the package documentation for their
// sources), and wordings that must not be taken for them. A %s in msg is
// where the duration goes.
func samples() []sample {
	return []sample{
		{key: "slow-fdatasync", msg: "slow fdatasync", field: "took", took: 1234567891},
		{key: "slow-fdatasync", msg: "wal: sync duration of %s, expected less than 1s", took: 1500 * time.Millisecond},
		{key: "heartbeat-late", msg: "leader failed to send out heartbeat on time; took too long, leader is overloaded likely from slow disk", field: "exceeded-duration", took: 180 * time.Millisecond},
		{key: "heartbeat-late", msg: "failed to send out heartbeat; took too long, server is overloaded likely from slow disk", field: "exceeded-duration", took: 25 * time.Millisecond},
		{key: "heartbeat-late", msg: "etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for %s, to 8e9e05c52164694d)", took: 218166193},
		{key: "heartbeat-late", msg: "etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for %s)", took: 50 * time.Millisecond},
		{key: "server-overloaded", msg: "etcdserver: server is likely overloaded"},
		{key: "readindex-slow", msg: "waiting for ReadIndex response took too long, retrying"},
		{key: "readindex-slow", msg: "etcdserver: waiting for ReadIndex response took too long, retrying (sent-request-id: 7587, retry-timeout: 500ms)"},
		{key: "readindex-slow", msg: "etcdserver: timed out waiting for read index response (local node might have slow network) timeout: 7s"},
		{key: "apply-took-too-long", msg: "apply request took too long", field: "took", took: 114101529},
		{key: "apply-took-too-long", msg: `etcdserver: read-only range request "key:\"/registry/took too long (9s) to execute\" " with result "range_response_count:0 size:6" took too long (%s) to execute`, took: 1402338729},
		{key: "apply-took-too-long", msg: `etcdserver: request "header:<ID:7587 > txn:<> " with result "size:20" took too long (%s) to execute`, took: 106821 * time.Nanosecond},
		{key: "apply-took-too-long", msg: "etcdserver: apply entries took too long [%s for 1 entries]", took: 221680793},
		{key: "defrag-finished", msg: "finished defragmenting directory", field: "took", took: 1278275759},
		{key: "defrag-finished", msg: "defragmented", field: "took", took: 52764022},
		{key: "defrag-finished", msg: "etcdserver: finished defragmenting the storage backend"},
		{key: "compaction-finished", msg: "finished scheduled compaction", field: "took", took: 2345678901},
		{key: "compaction-finished", msg: "mvcc: finished scheduled compaction at 300001 (took %s)", took: 1500 * time.Millisecond},
		{key: "snapshot-sent", msg: "sent database snapshot to writer"},
		{key: "snapshot-sent", msg: "rafthttp: database snapshot [index: 12001, to: 8e9e05c52164694d] sent out successfully"},
		{key: "snapshot-received", msg: "received and saved database snapshot"},
		{key: "snapshot-received", msg: "rafthttp: successfully received and saved database snapshot [index: 12001, from: 91bc, raft message size: 8.2 kB, db size: 2.1 MB, took: %s]", took: 350 * time.Millisecond},
		{key: "snapshot-applied", msg: "applied snapshot"},
		{key: "snapshot-applied", msg: "etcdserver: raft applied incoming snapshot at index 12001"},
		{key: "", msg: "applying snapshot"},
		{key: "", msg: "failed to send database snapshot to writer"},
		{key: "", msg: "sending database snapshot to client"},
		{key: "sending-buffer-full", msg: "dropped internal Raft message since sending buffer is full (overloaded network)"},
		{key: "sending-buffer-full", msg: "dropped internal Raft message since sending buffer is full"},
		{key: "sending-buffer-full", msg: "rafthttp: dropped internal raft message to 8e9e since pipeline's sending buffer is full (bad/overloaded network)"},
		{key: "receiving-buffer-full", msg: "dropped Raft message since receiving buffer is full (overloaded network)"},
		{key: "lost-tcp-streaming", msg: "lost TCP streaming connection with remote peer"},
		{key: "lost-tcp-streaming", msg: "rafthttp: lost the TCP streaming connection with peer 8e9e (stream MsgApp v2 reader)"},
		{key: "lost-leader", msg: "raft.node: 8e9e05c52164694d lost leader 8e9e05c52164694d at term 3"},
		{key: "elected-leader", msg: "raft: raft.node: 8e9e05c52164694d elected leader 8e9e05c52164694d at term 2"},
		{key: "elected-leader", msg: "raft.node: 8e9e changed leader from 8e9e to 91bc at term 4"},
		{key: "clock-difference", msg: "prober found high clock drift"},
		{key: "clock-difference", msg: "rafthttp: the clock difference against peer 8e9e is too high [1.5s > 1s]"},
		{key: "database-space-exceeded", msg: "message exceeded backend quota; raising alarm"},
		{key: "database-space-exceeded", msg: "etcdserver: applying raft message exceeded backend quota"},
		{key: "database-space-exceeded", msg: "failed to apply request", err: "etcdserver: mvcc: database space exceeded"},
		{key: "request-timed-out", msg: "failed to publish local member to cluster through raft", err: "etcdserver: request timed out"},
		{key: "request-timed-out", msg: "etcdserver: publish error: etcdserver: request timed out, possibly due to previous leader failure"},
		{key: "request-timed-out", msg: "etcdserver: request timed out, waiting for the applied index took too long"},
		{key: "request-timed-out", msg: "etcdserver: request timed out, leader transfer took too long"},
		{key: "", msg: "raft.node: 8e9e became leader at term 2"},
		{key: "", msg: "starting an etcd server"},
		{key: "", msg: "a thing took too long"},
		{key: "", msg: "request stats", err: "context canceled"},
		{key: "", msg: "sync duration of 2s"},
		{key: "", msg: "lost leader"},
		{key: "", msg: "slow request", err: "slow fdatasync"},
	}
}

// render returns the message with its duration written in.
func (s sample) render() string {
	if strings.Contains(s.msg, "%s") {
		return strings.Replace(s.msg, "%s", s.took.String(), 1)
	}
	return s.msg
}

// TestLookup matches each wording to its key and reads the duration it
// writes; zap's durations come from fields, not the text.
func TestLookup(t *testing.T) {
	t.Parallel()
	for _, s := range samples() {
		msg := s.render()
		k, v := lookup(msg, s.err)
		if s.key == "" {
			if k != nil {
				t.Errorf("%q (error %q) matched %s", msg, s.err, k.key)
			}
			continue
		}
		if k == nil || k.key != s.key {
			t.Errorf("%q (error %q): got %v, want %s", msg, s.err, k, s.key)
			continue
		}
		e := entry{msg: msg}
		switch s.field {
		case "took":
			e.took, e.hasTook = s.took, true
		case "exceeded-duration":
			e.exceeded, e.hasExceeded = s.took, true
		}
		d, ok := e.field(v.field)
		if !ok {
			d, ok = v.tookIn(msg)
		}
		if want := s.took != 0; ok != want || d != s.took {
			t.Errorf("%q: took %v (%v), want %v", msg, d, ok, s.took)
		}
	}
}
