package agents

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// Merge combines agents' results (each an ordinary bench document with
// Agent set) into one bench result, as if one process had sent the whole
// load: run k of the merged result is every agent's run k together
// (requests and connections add up, latency percentiles come from one
// histogram holding every sample: load.MergeStats), timed by the
// reference agent's clock (the lowest index), the others' times moved by
// their measured clock offsets. What measures the cluster rather than the
// load (canaries, the members' metrics) comes from agent 0, the only one
// that measures it.
//
// missing gives reasons for agents known to have failed (a killed
// process); every index below the agents' count with no document is
// listed in Agents.Missing, never merged away silently. Merge is a pure
// function; errors are for documents that do not belong together.
func Merge(docs []*result.Document, missing map[int]string) (*result.Document, error) {
	if len(docs) == 0 {
		return nil, errors.New("no agent results to merge")
	}
	byIndex := map[int]*result.Document{}
	count := 0
	for i, d := range docs {
		if d.Kind != result.KindBench || d.Agent == nil || d.Bench == nil {
			return nil, fmt.Errorf("result %d is not a bench agent's result (bench --agents writes those)", i+1)
		}
		a := d.Agent
		if count == 0 {
			count = a.Count
		}
		if a.Count != count {
			return nil, fmt.Errorf("agents' results do not belong together: one of %d agents, another of %d", count, a.Count)
		}
		if a.Index < 0 || a.Index >= count {
			return nil, fmt.Errorf("agent index %d is not one of 0..%d", a.Index, count-1)
		}
		if byIndex[a.Index] != nil {
			return nil, fmt.Errorf("agent %d's result was given twice", a.Index)
		}
		ref := docs[0].Bench
		if d.Bench.Command != ref.Command || d.Bench.Prefix != ref.Prefix {
			return nil, fmt.Errorf("agents' results do not belong together: %s under %s and %s under %s", ref.Command, ref.Prefix, d.Bench.Command, d.Bench.Prefix)
		}
		byIndex[a.Index] = d
	}
	var present []int
	for i := range count {
		if byIndex[i] != nil {
			present = append(present, i)
		}
	}
	ref := byIndex[present[0]]
	out := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindBench, CreatedAt: ref.CreatedAt, Environment: ref.Environment, Bench: ref.Bench}
	ag := &result.Agents{Count: count, Merged: present, StartMode: ref.Agent.StartMode}
	for i := range count {
		if byIndex[i] == nil {
			reason := missing[i]
			if reason == "" {
				reason = "no result"
			}
			ag.Missing = append(ag.Missing, result.MissingAgent{Index: i, Reason: reason})
		}
	}
	offsets := clockOffsets(byIndex, present)
	var lo, hi float64
	var rtts []float64
	hosts := map[string]bool{}
	for _, i := range present {
		o := offsets[i].Seconds()
		lo, hi = math.Min(lo, o), math.Max(hi, o)
		rtts = append(rtts, byIndex[i].Agent.RoundTripSeconds)
		hosts[byIndex[i].Agent.Host] = true
	}
	sort.Float64s(rtts)
	rtt := time.Duration(rtts[len(rtts)/2] * 1e9).Round(time.Microsecond)
	compared := len(ref.Agent.Barriers)
	method := fmt.Sprintf("common view: when each agent saw the last agent arrive at the same barrier, a key event etcd delivers to every agent at once; "+
		"the median over %d barriers, uncertain by delivery differences, of the order of the agents' round trip to the cluster (median %s)", compared, rtt)
	var short string
	switch {
	case len(present) == 1:
		ag.ClockSkewMethod, short = "one agent: nothing to compare", "one agent"
	case len(hosts) == 1 && !hosts[""]:
		// One machine, one clock: what the method measures is its own
		// error, which must not move anybody's times.
		ag.ClockSkewMethod = fmt.Sprintf("every agent ran on %s, one clock: no skew; the %s measured up to %s between them, which is its error, and no time was moved",
			ref.Agent.Host, method, time.Duration((hi-lo)*1e9).Round(time.Microsecond))
		short = "all on " + ref.Agent.Host + ": one clock, no skew"
		offsets = map[int]time.Duration{}
	case compared == 0:
		ag.ClockSkewMethod, short = "no barrier to compare the agents' clocks at", "clock skew not measured"
	default:
		ag.ClockSkewSeconds = hi - lo
		ag.ClockSkewMethod = method
		short = fmt.Sprintf("clock skew %s (at %d barriers, uncertain by about %s)", time.Duration(ag.ClockSkewSeconds*1e9).Round(time.Microsecond), compared, rtt)
	}
	runs, notes, err := mergeRuns(byIndex, present, offsets)
	if err != nil {
		return nil, err
	}
	out.Runs = runs
	out.Summaries = result.Summarize(runs)
	for _, i := range present {
		d := byIndex[i]
		var reqs, errs int64
		var start time.Time
		for k, r := range d.Runs {
			reqs += r.Requests
			errs += r.ErrorCount()
			if k == 0 {
				start = r.Start
			}
		}
		ag.PerAgent = append(ag.PerAgent, result.AgentShare{Index: i, Host: d.Agent.Host, Requests: reqs, Errors: errs,
			ClockOffsetSeconds: offsets[i].Seconds(), RoundTripSeconds: d.Agent.RoundTripSeconds, Start: start})
	}
	out.Agents = ag
	out.Notes = append([]string{fmt.Sprintf("merged from %d of %d agents (%s start); %s", len(present), count, ag.StartMode, short)},
		append(agentNotes(byIndex, present), notes...)...)
	if len(ag.Missing) > 0 {
		out.Notes = append(out.Notes, MissingNote(ag))
	}
	return out, nil
}

// MissingNote says which agents are missing from a merged result and what
// share of the load it therefore covers.
func MissingNote(ag *result.Agents) string {
	var parts []string
	for _, m := range ag.Missing {
		parts = append(parts, fmt.Sprintf("agent %d (%s)", m.Index, m.Reason))
	}
	return fmt.Sprintf("MISSING: %s; this result covers %d of %d agents' load", strings.Join(parts, ", "), len(ag.Merged), ag.Count)
}

// clockOffsets returns each agent's clock minus the reference agent's
// (the first present), the median over the barriers both saw.
func clockOffsets(byIndex map[int]*result.Document, present []int) map[int]time.Duration {
	ref := byIndex[present[0]].Agent
	seen := map[string]time.Time{}
	for _, b := range ref.Barriers {
		seen[b.Name] = b.Seen
	}
	out := map[int]time.Duration{}
	for _, i := range present[1:] {
		var ds []time.Duration
		for _, b := range byIndex[i].Agent.Barriers {
			if r, ok := seen[b.Name]; ok {
				ds = append(ds, b.Seen.Sub(r))
			}
		}
		if len(ds) > 0 {
			slices.Sort(ds)
			out[i] = ds[len(ds)/2]
		}
	}
	return out
}

// agentNotes gathers the agents' notes, each once, saying which agents
// wrote it.
func agentNotes(byIndex map[int]*result.Document, present []int) []string {
	var order []string
	who := map[string][]string{}
	for _, i := range present {
		for _, n := range byIndex[i].Notes {
			if who[n] == nil {
				order = append(order, n)
			}
			who[n] = append(who[n], fmt.Sprint(i))
		}
	}
	var out []string
	for _, n := range order {
		if len(who[n]) == len(present) {
			out = append(out, n)
			continue
		}
		out = append(out, fmt.Sprintf("agent %s: %s", strings.Join(who[n], ","), n))
	}
	return out
}
