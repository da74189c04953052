package agents

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
)

// mergeRuns merges run k of every agent that has it, for every k; notes
// say where some agents had fewer runs (one stopped early).
func mergeRuns(byIndex map[int]*result.Document, present []int, offsets map[int]time.Duration) ([]result.Run, []string, error) {
	n := 0
	for _, i := range present {
		n = max(n, len(byIndex[i].Runs))
	}
	hosts := map[string]bool{}
	for _, i := range present {
		hosts[byIndex[i].Agent.Host] = true
	}
	var runs []result.Run
	var notes []string
	for k := range n {
		var parts []result.Run
		var shifts []time.Duration
		var who []string
		for _, i := range present {
			if k < len(byIndex[i].Runs) {
				parts = append(parts, byIndex[i].Runs[k])
				shifts = append(shifts, offsets[i])
				who = append(who, fmt.Sprint(i))
			}
		}
		var zero *result.Run // agent 0 measured the cluster
		if d := byIndex[0]; d != nil && k < len(d.Runs) {
			zero = &d.Runs[k]
		}
		bc := byIndex[present[0]].Bench
		r, err := mergeRun(parts, shifts, zero, bc, len(hosts) == 1)
		if err != nil {
			return nil, nil, fmt.Errorf("run %d: %w", k+1, err)
		}
		if len(parts) < len(present) {
			notes = append(notes, fmt.Sprintf("run %q has only agents %s: the others stopped before it", r.Name, strings.Join(who, ",")))
		}
		runs = append(runs, r)
	}
	return runs, notes, nil
}

// mergeRun merges one run of several agents; shifts are their clock
// offsets from the reference agent, taken off their times.
func mergeRun(parts []result.Run, shifts []time.Duration, zero *result.Run, bc *result.BenchConfig, oneHost bool) (result.Run, error) {
	out := result.Run{Iteration: parts[0].Iteration}
	var stats []result.Stats
	ops := map[string][]result.Stats{}
	var opOrder []string
	var stopped []string
	var machine float64
	for j, p := range parts {
		start, end := p.Start.Add(-shifts[j]), p.End.Add(-shifts[j])
		if j == 0 || start.Before(out.Start) {
			out.Start = start
		}
		if end.After(out.End) {
			out.End = end
		}
		out.Conns += p.Conns
		out.Clients += p.Clients
		out.LoadCPUCores += p.LoadCPUCores
		out.LoadCoresLimit += p.LoadCoresLimit
		machine += p.MachineCPUCores
		stats = append(stats, shifted(p.Stats, shifts[j]))
		for _, o := range p.Ops {
			if ops[o.Name] == nil {
				opOrder = append(opOrder, o.Name)
			}
			ops[o.Name] = append(ops[o.Name], shifted(o.Stats, shifts[j]))
		}
		if p.StoppedEarly != "" {
			stopped = append(stopped, p.StoppedEarly)
		}
	}
	elapsed := out.End.Sub(out.Start)
	st, err := load.MergeStats(stats, elapsed)
	if err != nil {
		return out, err
	}
	out.Stats = st
	for _, name := range opOrder {
		s, err := load.MergeStats(ops[name], elapsed)
		if err != nil {
			return out, fmt.Errorf("%s: %w", name, err)
		}
		out.Ops = append(out.Ops, result.Op{Name: name, Stats: s})
	}
	if oneHost {
		out.MachineCPUCores = machine / float64(len(parts)) // each agent measured the same machine
	}
	out.StoppedEarly = strings.Join(stopped, "; ")
	// The cluster's side: agent 0 measured it, alone.
	if zero != nil {
		out.Canary, out.ClusterUnavailability, out.Server = zero.Canary, zero.ClusterUnavailability, zero.Server
	}
	out.Name = fmt.Sprintf("%s conns=%d clients=%d", bc.Command, out.Conns, out.Clients)
	if bc.Iterations > 1 {
		out.Name += fmt.Sprintf(" iteration=%d", out.Iteration)
	}
	return out, nil
}

// shifted returns s with its times moved by -d; per-second points move
// by whole seconds, once the offset reaches half a second.
func shifted(s result.Stats, d time.Duration) result.Stats {
	if d == 0 {
		return s
	}
	secs := int64(math.Round(d.Seconds()))
	if secs != 0 {
		ts := make([]result.Second, len(s.TimeSeries))
		for i, p := range s.TimeSeries {
			p.UnixSecond -= secs
			ts[i] = p
		}
		s.TimeSeries = ts
	}
	if u := s.ClientUnavailability; u != nil {
		c := *u
		c.Windows = make([]result.Window, len(u.Windows))
		for i, w := range u.Windows {
			w.Start = w.Start.Add(-d)
			c.Windows[i] = w
		}
		s.ClientUnavailability = &c
	}
	return s
}
