package logscan

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// sortLike sorts messages as a census does: by member, then the most
// frequent first, then by key.
func sortLike(ms []result.LogMessage) {
	slices.SortFunc(ms, func(a, b result.LogMessage) int {
		return cmp.Or(cmp.Compare(a.Member, b.Member), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Key, b.Key))
	})
}

// sameCensus fails the test when got is not want; every message must
// have a text, which want takes from got.
func sameCensus(t *testing.T, name string, got, want result.LogCensus) {
	t.Helper()
	sortLike(want.Messages)
	if want.Messages == nil {
		want.Messages = []result.LogMessage{}
	}
	if want.Sources == nil {
		want.Sources = []string{}
	}
	if len(got.Messages) == len(want.Messages) {
		for i := range got.Messages {
			if got.Messages[i].Text == "" {
				t.Errorf("%s: %s has no text", name, got.Messages[i].Key)
			}
			want.Messages[i].Text = got.Messages[i].Text
			if m, ok := known4(want.Messages[i].Key); ok {
				want.Messages[i].Cause = m.cause
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("%s: got\n%s\nwant\n%s", name, g, w)
	}
}

// known4 returns the table's row for key.
func known4(key string) (known, bool) {
	for _, k := range messages {
		if k.key == key {
			return k, true
		}
	}
	return known{}, false
}

// gzipped returns b compressed.
func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// junkLines are lines in no format.
func junkLines(rng *rand.Rand, n int) []string {
	fixed := []string{"hello world", "{", `{"foo":1}`, "2024-05-02T10:11:12Z", "panic: runtime error", "\tgoroutine 1 [running]:", "{\"msg\":\"slow fdatasync\""}
	out := make([]string, n)
	for i := range out {
		if i%2 == 0 {
			out[i] = fixed[rng.IntN(len(fixed))]
			continue
		}
		b := make([]byte, 1+rng.IntN(200))
		for j := range b {
			b[j] = byte(rng.IntN(256))
			if b[j] == '\n' || b[j] == '\r' || b[j] == ' ' || b[j] == '\t' {
				b[j] = 'x'
			}
		}
		out[i] = string(b)
	}
	return out
}

// TestScanGenerated writes logs of random known messages in every format
// (mixed in one stream, as journald exports are), with junk between them,
// and checks the census against one worked out from the events.
func TestScanGenerated(t *testing.T) {
	t.Parallel()
	base := time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name          string
		seed          uint64
		events, junk  int
		gzip, crlf    bool
		minutes       int
		onlyFormat    string
		wantFormatLen int
	}{
		{name: "mixed", seed: 1, events: 600, junk: 40, minutes: 10},
		{name: "gzip", seed: 2, events: 300, junk: 0, minutes: 3, gzip: true},
		{name: "crlf", seed: 3, events: 100, junk: 5, minutes: 1, crlf: true},
		{name: "one minute", seed: 4, events: 50, junk: 1, minutes: 1},
		{name: "only text", seed: 5, events: 80, minutes: 2, onlyFormat: "text"},
	} {
		rng := rand.New(rand.NewPCG(tc.seed, 7))
		evs := generate(rng, base, tc.minutes, tc.events)
		if tc.onlyFormat != "" {
			evs = slices.DeleteFunc(evs, func(e event) bool { return !e.s.textual() })
			for i := range evs {
				evs[i].format = tc.onlyFormat
			}
		}
		junk := junkLines(rng, tc.junk)
		text := logOf(evs, junk)
		if tc.crlf {
			text = strings.ReplaceAll(text, "\n", "\r\n")
		}
		in := []byte(text)
		if tc.gzip {
			in = gzipped(t, in)
		}
		got, err := Scan(bytes.NewReader(in), "m5", Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sameCensus(t, tc.name, got, expect("m5", evs, len(junk)))
	}
}

// TestScanJunk feeds streams that hold nothing of etcd's: no error, no
// panic, every line counted and none recognised.
func TestScanJunk(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	random := make([]byte, 1<<20)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	long := strings.Repeat("x", 5<<20)
	nested := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, tc := range []struct {
		name         string
		in           string
		o            Options
		lines, unrec int
	}{
		{name: "empty", in: ""},
		{name: "blank lines", in: "\n\n  \r\n\t\n"},
		{name: "journalctl separators", in: "-- Boot 1a2b3c --\n-- No entries --\n-- x\n", lines: 1, unrec: 1},
		{name: "a 5 MiB line", in: long + "\n" + long, lines: 2, unrec: 2},
		{name: "a 5 MiB line of etcd's", in: `{"level":"warn","ts":"2024-05-02T10:11:12Z","msg":"slow fdatasync","took":"2s","x":"` + long + `"}`, lines: 1, unrec: 1},
		{name: "a line just over a small limit", in: "0123456789abcdefg\nshort\n", o: Options{MaxLineBytes: 16}, lines: 2, unrec: 2},
		{name: "deep JSON", in: "{\"a\":" + nested + "}\n" + nested, lines: 2, unrec: 2},
		{name: "NULs", in: strings.Repeat("\x00", 100000), lines: 1, unrec: 1},
		{name: "gzip magic, then junk", in: "\x1f\x8bjunk", lines: -1},
		{name: "random bytes", in: string(random), lines: -2},
	} {
		got, err := Scan(strings.NewReader(tc.in), "", tc.o)
		switch tc.lines {
		case -1: // a gzip header that is not one: the stream's own error
			if err == nil {
				t.Errorf("%s: no error", tc.name)
			}
			continue
		case -2: // lines as the bytes split them
			tc.lines = 0
			for _, l := range bytes.Split(random, []byte{'\n'}) {
				if len(bytes.TrimSpace(l)) > 0 {
					tc.lines++
				}
			}
			tc.unrec = tc.lines
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got.Lines != tc.lines || got.Unrecognised != tc.unrec || len(got.Messages) != 0 || len(got.Formats) != 0 || got.FirstUnix != 0 {
			t.Errorf("%s: %d lines, %d unrecognised, %v, formats %v; want %d, %d", tc.name, got.Lines, got.Unrecognised, got.Messages, got.Formats, tc.lines, tc.unrec)
		}
	}
}

// TestScanTruncatedGzip counts the lines before a gzip stream's cut, as
// of a log caught while being rotated.
func TestScanTruncatedGzip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 1))
	evs := generate(rng, time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC), 5, 2000)
	z := gzipped(t, []byte(logOf(evs, nil)))
	got, err := Scan(bytes.NewReader(z[:len(z)/2]), "m1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Lines == 0 || got.Lines >= len(evs) || got.Unrecognised > 1 {
		t.Fatalf("%d lines (%d unrecognised) of %d before the cut", got.Lines, got.Unrecognised, len(evs))
	}
}

// TestSinceUntil keeps the messages logged within the bounds, and those
// without a timestamp.
func TestSinceUntil(t *testing.T) {
	t.Parallel()
	base := time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(5, 5))
	evs := generate(rng, base, 10, 500)
	for _, tc := range []struct {
		name         string
		since, until time.Duration // after base; negative: no bound
	}{
		{name: "since", since: 3 * time.Minute, until: -1},
		{name: "until", since: -1, until: 4*time.Minute + 30*time.Second},
		{name: "both", since: 2 * time.Minute, until: 5 * time.Minute},
		{name: "none", since: -1, until: -1},
		{name: "empty window", since: 5 * time.Minute, until: 4 * time.Minute},
	} {
		var o Options
		if tc.since >= 0 {
			o.Since = base.Add(tc.since)
		}
		if tc.until >= 0 {
			o.Until = base.Add(tc.until)
		}
		var kept []event
		for _, ev := range evs {
			timed := ev.format != "journald-plain"
			if !timed || (o.Since.IsZero() || !ev.at.Before(o.Since)) && (o.Until.IsZero() || !ev.at.After(o.Until)) {
				kept = append(kept, ev)
			}
		}
		got, err := Scan(strings.NewReader(logOf(evs, nil)), "m1", o)
		if err != nil {
			t.Fatal(err)
		}
		want := expect("m1", kept, 0)
		want.Lines = len(evs)
		sameCensus(t, tc.name, got, want)
	}
}

// TestScanMember names a stream's member: the caller's name first, then
// the one etcd logged at start, the source's, the member ID, "stdin".
func TestScanMember(t *testing.T) {
	t.Parallel()
	const slow = `{"level":"warn","ts":"2024-05-02T10:11:12Z","msg":"slow fdatasync","took":"2s"}` + "\n"
	const started = `{"level":"info","ts":"2024-05-02T10:11:10Z","msg":"starting an etcd server","name":"etcd-0"}` + "\n"
	const id = `{"level":"info","ts":"2024-05-02T10:11:11Z","msg":"published local member to cluster through raft","local-member-id":"8e9e05c52164694d"}` + "\n"
	const capnslog = "2024-05-02 10:11:10.000000 I | embed: name = infra1\n"
	for _, tc := range []struct {
		name, log, source, option, want string
	}{
		{name: "option wins", log: started + slow, source: "m2", option: "x", want: "x"},
		{name: "etcd's name", log: slow + id + started, source: "m2", want: "etcd-0"},
		{name: "capnslog's name", log: capnslog + slow, source: "m2", want: "infra1"},
		{name: "source", log: id + slow, source: "m2", want: "m2"},
		{name: "member id", log: slow + id, want: "8e9e05c52164694d"},
		{name: "nothing", log: slow, want: "stdin"},
	} {
		got, err := Scan(strings.NewReader(tc.log), tc.source, Options{Member: tc.option})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Messages) != 1 || got.Messages[0].Member != tc.want || got.Messages[0].Count != 1 {
			t.Errorf("%s: %+v, want member %s", tc.name, got.Messages, tc.want)
		}
	}
}
