package logscan

import (
	"testing"
	"time"
)

// TestParseLine reads one line of each format, wrapped as journald and
// kubectl print them, and lines in none.
func TestParseLine(t *testing.T) {
	t.Parallel()
	const zapSlow = `{"level":"warn","ts":"2024-05-02T10:11:12.345678Z","caller":"wal/wal.go:846","msg":"slow fdatasync","took":"1.234s","expected-duration":"1s"}`
	at := time.Date(2024, 5, 2, 10, 11, 12, 345678000, time.UTC)
	for _, tc := range []struct {
		name, line   string
		ok           bool
		outer, inner string
		ts           time.Time
		msg, err     string
		took, exceed time.Duration
		member, id   string
	}{
		{name: "zap", line: zapSlow, ok: true, inner: formatJSON, ts: at, msg: "slow fdatasync", took: 1234 * time.Millisecond},
		{name: "zap offset without colon", line: `{"level":"warn","ts":"2024-05-02T12:11:12.345678+0200","msg":"slow fdatasync","took":"2s"}`,
			ok: true, inner: formatJSON, ts: at, msg: "slow fdatasync", took: 2 * time.Second},
		{name: "zap epoch seconds and float durations (etcd 3.3)",
			line: `{"level":"warn","ts":1527101858.4149103,"caller":"etcdserver/raft.go:370","msg":"failed to send out heartbeat; took too long, server is overloaded likely from slow disk","heartbeat-interval":0.1,"expected-duration":0.2,"exceeded-duration":0.025771662}`,
			ok:   true, inner: formatJSON, ts: time.Unix(1527101858, 414910300), msg: "failed to send out heartbeat; took too long, server is overloaded likely from slow disk", exceed: 25771662 * time.Nanosecond},
		{name: "zap error and member id", line: `{"level":"warn","ts":"2024-05-02T10:11:12.345678Z","msg":"failed to publish local member to cluster through raft","local-member-id":"8e9e05c52164694d","error":"etcdserver: request timed out"}`,
			ok: true, inner: formatJSON, ts: at, msg: "failed to publish local member to cluster through raft", err: "etcdserver: request timed out", id: "8e9e05c52164694d"},
		{name: "zap start names the member", line: `{"level":"info","ts":"2024-05-02T10:11:12.345678Z","msg":"starting an etcd server","etcd-version":"3.6.16","name":"m2"}`,
			ok: true, inner: formatJSON, ts: at, msg: startingServer, member: "m2"},
		{name: "zap name elsewhere is not the member's", line: `{"level":"info","ts":"2024-05-02T10:11:12.345678Z","msg":"added member","name":"m9"}`,
			ok: true, inner: formatJSON, ts: at, msg: "added member"},
		{name: "zap field of another type", line: `{"level":"warn","ts":{"x":1},"msg":"slow fdatasync","took":["1s"],"error":{"a":1}}`,
			ok: true, inner: formatJSON, msg: "slow fdatasync"},
		{name: "console", line: "2024-05-02T10:11:12.345678Z\twarn\twal/wal.go:846\tslow fdatasync\t{\"took\": \"1.234s\", \"expected-duration\": \"1s\"}",
			ok: true, inner: formatConsole, ts: at, msg: "slow fdatasync", took: 1234 * time.Millisecond},
		{name: "console without fields", line: "2024-05-02T10:11:12.345678Z\tinfo\traft/node.go:370\traft.node: a elected leader a at term 2",
			ok: true, inner: formatConsole, ts: at, msg: "raft.node: a elected leader a at term 2"},
		{name: "capnslog", line: "2024-05-02 10:11:12.345678 W | wal: sync duration of 1.5s, expected less than 1s",
			ok: true, inner: formatText, ts: at, msg: "wal: sync duration of 1.5s, expected less than 1s"},
		{name: "capnslog name", line: "2024-05-02 10:11:12.345678 I | embed: name = m3", ok: true, inner: formatText, ts: at, msg: "embed: name = m3", member: "m3"},
		{name: "journald json", line: `{"__REALTIME_TIMESTAMP":"1714644672000001","_HOSTNAME":"h","MESSAGE":` + quote(zapSlow) + `}`,
			ok: true, outer: formatJournalJSON, inner: formatJSON, ts: at, msg: "slow fdatasync", took: 1234 * time.Millisecond},
		{name: "journald json plain message", line: `{"__REALTIME_TIMESTAMP":"1714644672345678","MESSAGE":"etcdserver: server is likely overloaded"}`,
			ok: true, outer: formatJournalJSON, ts: at, msg: "etcdserver: server is likely overloaded"},
		{name: "journald json binary message", line: `{"__REALTIME_TIMESTAMP":"1714644672345678","MESSAGE":[108,111,115,116,255]}`,
			ok: true, outer: formatJournalJSON, ts: at, msg: "lost\xff"},
		{name: "journald json null message", line: `{"__REALTIME_TIMESTAMP":"1714644672345678","MESSAGE":null}`,
			ok: true, outer: formatJournalJSON, ts: at},
		{name: "journald short-iso", line: "2024-05-02T10:11:12+0000 host etcd[123]: " + zapSlow,
			ok: true, outer: formatJournalShort, inner: formatJSON, ts: at, msg: "slow fdatasync", took: 1234 * time.Millisecond},
		{name: "journald short-iso-precise capnslog", line: "2024-05-02T10:11:12.999999+00:00 host etcd[123]: 2024-05-02 10:11:12.345678 W | etcdserver: server is likely overloaded",
			ok: true, outer: formatJournalShort, inner: formatText, ts: at, msg: "etcdserver: server is likely overloaded"},
		{name: "journald short-unix plain", line: "1714644672.345678 host etcd[123]: wal: sync duration of 2s, expected less than 1s",
			ok: true, outer: formatJournalShort, ts: at, msg: "wal: sync duration of 2s, expected less than 1s"},
		{name: "journald short has no year", line: "May 02 10:11:12 host etcd[123]: etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 50ms, to abc)",
			ok: true, outer: formatJournalShort, msg: "etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 50ms, to abc)"},
		{name: "journald short-precise", line: "May  2 10:11:12.345678 host etcd: " + zapSlow,
			ok: true, outer: formatJournalShort, inner: formatJSON, ts: at, msg: "slow fdatasync", took: 1234 * time.Millisecond},
		{name: "kubectl --timestamps keeps etcd's time", line: "2024-05-02T10:11:13.000000001Z " + zapSlow,
			ok: true, inner: formatJSON, ts: at, msg: "slow fdatasync", took: 1234 * time.Millisecond},
		{name: "kubectl --timestamps gives a time", line: `2024-05-02T10:11:12.345678Z {"level":"warn","msg":"slow fdatasync"}`,
			ok: true, inner: formatJSON, ts: at, msg: "slow fdatasync"},
		{name: "kubectl --timestamps capnslog", line: "2024-05-02T10:11:13Z 2024-05-02 10:11:12.345678 I | raft: raft.node: a lost leader a at term 3",
			ok: true, inner: formatText, ts: at, msg: "raft: raft.node: a lost leader a at term 3"},
		{name: "empty", line: ""},
		{name: "words", line: "hello world"},
		{name: "brace", line: "{"},
		{name: "json without msg", line: `{"foo":1}`},
		{name: "json msg not a string", line: `{"msg":5}`},
		{name: "journald without time", line: `{"MESSAGE":"slow fdatasync"}`},
		{name: "journald bad time", line: `{"MESSAGE":"slow fdatasync","__REALTIME_TIMESTAMP":"x"}`},
		{name: "time alone", line: "2024-05-02T10:11:12Z"},
		{name: "time and words", line: "2024-05-02T10:11:12Z hello world"},
		{name: "capnslog without level", line: "2024-05-02 10:11:12.345678 hello"},
		{name: "console bad level", line: "2024-05-02T10:11:12Z\tloud\tx.go:1\tslow fdatasync"},
		{name: "month without time", line: "May the force be with you: always"},
		{name: "binary", line: "\x00\xff\xfe{\"msg\x00"},
		{name: "number", line: "1714644672 host etcd[1]: x"},
	} {
		e, ok := parseLine(tc.line)
		if ok != tc.ok {
			t.Errorf("%s: recognised %v, want %v (%+v)", tc.name, ok, tc.ok, e)
			continue
		}
		if !ok {
			continue
		}
		if e.outer != tc.outer || e.inner != tc.inner || !e.ts.Equal(tc.ts) || e.msg != tc.msg || e.errText != tc.err ||
			e.took != tc.took || e.exceeded != tc.exceed || e.name != tc.member || e.localID != tc.id {
			t.Errorf("%s: got %+v", tc.name, e)
		}
	}
}

// quote returns s as a JSON string.
func quote(s string) string {
	out := []byte{'"'}
	for _, c := range []byte(s) {
		if c == '"' || c == '\\' {
			out = append(out, '\\')
		}
		out = append(out, c)
	}
	return string(append(out, '"'))
}

// TestParseUnix reads Unix times in seconds, milliseconds, microseconds
// and nanoseconds, and refuses what is none.
func TestParseUnix(t *testing.T) {
	t.Parallel()
	want := time.Unix(1714644672, 345000000)
	for _, s := range []string{"1714644672.345", "1714644672345", "1714644672345000", "1714644672345000000"} {
		if got, ok := parseUnix(s); !ok || !got.Equal(want) {
			t.Errorf("%s: %v %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "-1", "0", "x", "1e400", "9.9e18", "NaN"} {
		if got, ok := parseUnix(s); ok {
			t.Errorf("%s: read as %v", s, got)
		}
	}
}
