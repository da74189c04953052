package agents

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
)

// agentDocs builds n agents' results of one run from real recorders, the
// samples spread over the agents at random, each agent's clock off by
// offsets[i] (its times and barriers read that much late), and the
// statistics of one recorder that saw every sample.
func agentDocs(t *testing.T, n int, hosts []string, offsets []time.Duration) ([]*result.Document, result.Stats) {
	t.Helper()
	start := time.Unix(1_800_000_000, 0)
	one := load.NewRecorder(1, start)
	recs := make([]*load.Recorder, n)
	for i := range recs {
		recs[i] = load.NewRecorder(1, start.Add(offsets[i]))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 50_000 {
		sent := start.Add(time.Duration(rng.Int64N(int64(5 * time.Second))))
		lat := time.Duration(math.Exp(rng.NormFloat64()+math.Log(3e6))) * time.Nanosecond
		a := rng.IntN(n)
		one.Record(i, 0, sent, sent.Add(lat), nil)
		recs[a].Record(i, 0, sent.Add(offsets[a]), sent.Add(offsets[a]+lat), nil)
	}
	var docs []*result.Document
	for i, r := range recs {
		st := r.Stats(0, 5*time.Second)
		docs = append(docs, &result.Document{
			SchemaVersion: result.SchemaVersion, Kind: result.KindBench,
			Bench: &result.BenchConfig{Command: "put", Prefix: "/p/", Iterations: 1},
			Agent: &result.AgentRun{Index: i, Count: n, Host: hosts[i], StartMode: "cluster", RoundTripSeconds: 0.002,
				Barriers: []result.Barrier{{Name: "run-0", Seen: start.Add(offsets[i])}, {Name: "end", Seen: start.Add(5*time.Second + offsets[i])}}},
			Runs:  []result.Run{{Name: "put", Conns: 2, Clients: 10, Iteration: 1, Start: start.Add(offsets[i]), End: start.Add(5*time.Second + offsets[i]), Stats: st}},
			Notes: []string{"same for all", "only " + string(rune('a'+i))},
		})
	}
	return docs, one.Stats(0, 5*time.Second)
}

func TestMerge(t *testing.T) {
	t.Parallel()
	offsets := []time.Duration{0, 2 * time.Second, -time.Second} // whole seconds: per-second points move by whole seconds
	docs, want := agentDocs(t, 3, []string{"pod-a", "pod-b", "pod-c"}, offsets)
	got, err := Merge(docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := got.Runs[0]
	if r.Requests != want.Requests || r.Conns != 6 || r.Clients != 30 || r.Name != "put conns=6 clients=30" {
		t.Errorf("run %s: %d requests, want %d", r.Name, r.Requests, want.Requests)
	}
	if r.Latency.P50 != want.Latency.P50 || r.Latency.P99 != want.Latency.P99 || r.Latency.P999 != want.Latency.P999 || r.Latency.Max != want.Latency.Max {
		t.Errorf("latency %+v, one recorder %+v", r.Latency, want.Latency)
	}
	// Times are on agent 0's clock: the others' offsets are taken off.
	if !r.Start.Equal(time.Unix(1_800_000_000, 0)) || r.DurationSeconds != 5 {
		t.Errorf("run from %s for %g s", r.Start, r.DurationSeconds)
	}
	if len(r.TimeSeries) != len(want.TimeSeries) || r.TimeSeries[0].UnixSecond != want.TimeSeries[0].UnixSecond {
		t.Errorf("series %d seconds from %d, want %d from %d", len(r.TimeSeries), r.TimeSeries[0].UnixSecond, len(want.TimeSeries), want.TimeSeries[0].UnixSecond)
	}
	a := got.Agents
	if math.Abs(a.ClockSkewSeconds-3) > 1e-9 || a.PerAgent[1].ClockOffsetSeconds != 2 || a.PerAgent[2].ClockOffsetSeconds != -1 {
		t.Errorf("skew %g, offsets %+v", a.ClockSkewSeconds, a.PerAgent)
	}
	if !strings.HasPrefix(got.Notes[0], "merged from 3 of 3 agents (cluster start); clock skew 3s (at 2 barriers") || got.Notes[1] != "same for all" || got.Notes[2] != "agent 0: only a" {
		t.Errorf("notes %q", got.Notes)
	}
}

// TestMergeOneHost: agents on one machine share its clock, so what the
// barriers show between them is the method's error and moves nothing.
func TestMergeOneHost(t *testing.T) {
	t.Parallel()
	docs, _ := agentDocs(t, 2, []string{"vm", "vm"}, []time.Duration{0, 0})
	docs[1].Agent.Barriers[0].Seen = docs[1].Agent.Barriers[0].Seen.Add(3 * time.Millisecond)
	docs[1].Agent.Barriers[1].Seen = docs[1].Agent.Barriers[1].Seen.Add(3 * time.Millisecond)
	got, err := Merge(docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Agents.ClockSkewSeconds != 0 || got.Agents.PerAgent[1].ClockOffsetSeconds != 0 || !strings.Contains(got.Agents.ClockSkewMethod, "one clock") {
		t.Errorf("agents %+v", got.Agents)
	}
}

func TestMergeMissingAndMismatched(t *testing.T) {
	t.Parallel()
	docs, _ := agentDocs(t, 3, []string{"a", "b", "c"}, []time.Duration{0, 0, 0})
	got, err := Merge([]*result.Document{docs[0], docs[2]}, map[int]string{1: "killed by signal 9 (killed)"})
	if err != nil {
		t.Fatal(err)
	}
	a := got.Agents
	if len(a.Missing) != 1 || a.Missing[0].Index != 1 || a.Missing[0].Reason != "killed by signal 9 (killed)" || len(a.Merged) != 2 {
		t.Fatalf("agents %+v", a)
	}
	if last := got.Notes[len(got.Notes)-1]; !strings.HasPrefix(last, "MISSING: agent 1 (killed") || !strings.Contains(last, "2 of 3") {
		t.Errorf("note %q", last)
	}
	if got.Runs[0].Requests != docs[0].Runs[0].Requests+docs[2].Runs[0].Requests {
		t.Errorf("merged %d requests", got.Runs[0].Requests)
	}
	other, _ := agentDocs(t, 2, []string{"a", "b"}, []time.Duration{0, 0})
	plain := *docs[0]
	plain.Agent = nil
	prefix := *docs[1]
	b := *prefix.Bench
	b.Prefix = "/q/"
	prefix.Bench = &b
	for name, in := range map[string][]*result.Document{
		"twice":            {docs[0], docs[0]},
		"different counts": {docs[0], other[1]},
		"not an agent's":   {&plain},
		"other prefix":     {docs[0], &prefix},
		"nothing":          nil,
	} {
		if _, err := Merge(in, nil); err == nil {
			t.Errorf("%s: merged", name)
		}
	}
}

func TestReadResults(t *testing.T) {
	t.Parallel()
	docs, _ := agentDocs(t, 2, []string{"a", "b"}, []time.Duration{0, 0})
	var logs, js bytes.Buffer
	for i, d := range docs {
		logs.WriteString("[pod/etcdlab-bench-" + string(rune('0'+i)) + "/agent] note: something\n")
		var line bytes.Buffer
		if err := WriteLine(&line, d); err != nil {
			t.Fatal(err)
		}
		logs.WriteString("2026-11-23T22:00:00Z " + line.String())
		if err := result.Write(&js, d); err != nil {
			t.Fatal(err)
		}
	}
	for name, in := range map[string]string{"kubectl logs": logs.String(), "concatenated JSON": js.String()} {
		got, err := ReadResults(strings.NewReader(in))
		if err != nil || len(got) != 2 || got[1].Agent.Index != 1 {
			t.Errorf("%s: %v, %d results", name, err, len(got))
		}
	}
	for name, in := range map[string]string{
		"empty":          "  \n",
		"no result":      "just logs\nand more\n",
		"broken marker":  "ok\n" + Marker + "{\"schema_version\":2,\n",
		"broken JSON":    "{\"schema_version\":",
		"unknown schema": "{\"schema_version\":99}",
	} {
		if _, err := ReadResults(strings.NewReader(in)); err == nil {
			t.Errorf("%s: read", name)
		} else if name == "broken marker" && !strings.Contains(err.Error(), "line 2") {
			t.Errorf("broken marker: %v does not name the line", err)
		}
	}
}
