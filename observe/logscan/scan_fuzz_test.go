package logscan

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// FuzzScan feeds Scan logs in any mix of formats: it never panics, a
// stream read from memory that is not gzip is no error, the census adds
// up (no more messages than recognised lines, per-minute counts within
// the count, took's min ≤ median ≤ max, the time range in order), it is
// valid JSON, and, as each line is read on its own, the log twice over
// counts everything twice with the same time range and durations.
func FuzzScan(f *testing.F) {
	const zapSlow = `{"level":"warn","ts":"2024-05-02T10:11:12.345678Z","caller":"wal/wal.go:846","msg":"slow fdatasync","took":"1.234s","expected-duration":"1s"}`
	for _, s := range []string{
		zapSlow,
		`{"level":"info","ts":"2024-05-02T10:11:12.345678Z","msg":"starting an etcd server","etcd-version":"3.6.16","name":"m2"}` + "\n" + zapSlow,
		`{"level":"warn","ts":1527101858.4149103,"msg":"failed to send out heartbeat; took too long, server is overloaded likely from slow disk","exceeded-duration":0.025771662}`,
		`{"level":"warn","ts":"2024-05-02T10:11:12Z","msg":"failed to publish","local-member-id":"8e9e05c52164694d","error":"etcdserver: request timed out"}`,
		"2024-05-02T10:11:12.345678Z\twarn\twal/wal.go:846\tslow fdatasync\t{\"took\": \"1.234s\"}",
		"2024-05-02 10:11:12.345678 W | wal: sync duration of 1.5s, expected less than 1s\n2024-05-02 10:11:13.000000 I | embed: name = m3",
		"2024-05-02 10:11:12.345678 W | etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 50ms, to abc)\n2024-05-02 10:11:12.345679 W | etcdserver: server is likely overloaded",
		`{"__REALTIME_TIMESTAMP":"1714644672000001","_HOSTNAME":"h","MESSAGE":"raft.node: a lost leader a at term 3"}`,
		`{"__REALTIME_TIMESTAMP":"1714644672345678","MESSAGE":[108,111,115,116,255]}`,
		"2024-05-02T10:11:12+0000 host etcd[123]: " + zapSlow,
		"1714644672.345678 host etcd[123]: wal: sync duration of 2s, expected less than 1s",
		"May 02 10:11:12 host etcd[123]: etcdserver: request timed out",
		"2024-05-02T10:11:12.123456789Z " + zapSlow,
		"-- Boot 1a2b --\n\n   \nnot a log line",
		"2024-05-02 10:11:12.345678 W | etcdserver: apply entries took too long [1.5s for 3 entries]",
		`2024-05-02 10:11:12.345678 W | etcdserver: read-only range request "key:\"/a\"" with result "range_response_count:1" took too long (150ms) to execute`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.HasPrefix(s, "\x1f\x8b") {
			t.Skip("gzip: a corrupt stream is an error")
		}
		once := scan(t, s)
		twice := scan(t, s+"\n"+s)
		if twice.Lines != 2*once.Lines || twice.Unrecognised != 2*once.Unrecognised {
			t.Fatalf("twice over: %d lines, %d unrecognised; once: %d, %d", twice.Lines, twice.Unrecognised, once.Lines, once.Unrecognised)
		}
		if twice.FirstUnix != once.FirstUnix || twice.LastUnix != once.LastUnix || !reflect.DeepEqual(twice.Formats, once.Formats) {
			t.Fatalf("twice over: time range or formats changed: %+v; once %+v", twice, once)
		}
		if len(twice.Messages) != len(once.Messages) {
			t.Fatalf("twice over: %d messages, once %d", len(twice.Messages), len(once.Messages))
		}
		for i, m := range once.Messages {
			d := twice.Messages[i]
			if d.Member != m.Member || d.Key != m.Key || d.Count != 2*m.Count || !reflect.DeepEqual(d.Took, m.Took) || len(d.PerMinute) != len(m.PerMinute) {
				t.Fatalf("twice over: %+v; once %+v", d, m)
			}
			for j, pm := range m.PerMinute {
				if d.PerMinute[j] != (result.MinuteCount{Unix: pm.Unix, Count: 2 * pm.Count}) {
					t.Fatalf("twice over, %s per minute: %+v; once %+v", m.Key, d.PerMinute, m.PerMinute)
				}
			}
		}
	})
}

// scan scans s and checks that its census adds up.
func scan(t *testing.T, s string) result.LogCensus {
	t.Helper()
	c, err := Scan(strings.NewReader(s), "", Options{})
	if err != nil {
		t.Fatalf("error from a plain stream: %v", err)
	}
	if c.Unrecognised < 0 || c.Unrecognised > c.Lines {
		t.Fatalf("%d unrecognised of %d lines", c.Unrecognised, c.Lines)
	}
	if c.FirstUnix > c.LastUnix {
		t.Fatalf("first %v after last %v", c.FirstUnix, c.LastUnix)
	}
	n := 0
	for _, m := range c.Messages {
		n += m.Count
		perMinute := 0
		for _, pm := range m.PerMinute {
			perMinute += pm.Count
		}
		if m.Count <= 0 || perMinute > m.Count || m.Member == "" || m.Key == "" {
			t.Fatalf("message %+v", m)
		}
		if tk := m.Took; tk != nil && !(tk.Min <= tk.Median && tk.Median <= tk.Max && !math.IsInf(tk.Max, 0)) {
			t.Fatalf("%s took %+v", m.Key, *tk)
		}
	}
	if n > c.Lines-c.Unrecognised {
		t.Fatalf("%d messages in %d recognised lines", n, c.Lines-c.Unrecognised)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Fatalf("census is not JSON: %v", err)
	}
	return c
}
