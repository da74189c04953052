// Package check answers "is this etcd fast enough?": on this machine (a
// disk probe, then a real local cluster) or on a live cluster, it loads
// etcd at etcdctl check perf's levels, reads the members' metrics, and
// judges everything against thresholds with their sources.
package check

import (
	"fmt"
	"strings"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"

	"github.com/etcdlab/etcdlab/result"
)

// Level is one of etcdctl check perf's load levels.
type Level struct {
	Name    string
	Rate    float64 // writes per second
	Clients int
}

// Levels are etcdctl check perf's (check.go): s, m, l, xl. Each call
// returns a copy: the table cannot be changed from outside.
func Levels() [4]Level {
	return [...]Level{{"s", 150, 50}, {"m", 1000, 200}, {"l", 8000, 500}, {"xl", 15000, 1000}}
}

// levelIndex finds a level by name; ok is false for a name no level has.
func levelIndex(name string) (int, bool) {
	for i, l := range Levels() {
		if l.Name == name {
			return i, true
		}
	}
	return 0, false
}

// judgeLevel applies check perf's criteria to a level's run: no errors,
// throughput above a share of the target, slowest request and standard
// deviation under their limits (judge's LimitCheck* rows). Latency here is measured from each
// request's intended send time (open loop), which is stricter than check
// perf's.
func judgeLevel(l Level, run result.Run) result.CheckLevel {
	out := result.CheckLevel{Name: l.Name, Rate: l.Rate, Clients: l.Clients, Passed: true}
	fail := func(format string, args ...any) {
		out.Passed = false
		out.Why = append(out.Why, fmt.Sprintf(format, args...))
	}
	var errs int64
	for _, n := range run.Errors {
		errs += n
	}
	if errs > 0 {
		fail("%d requests failed (%v)", errs, run.Errors)
	}
	if run.ThroughputRPS <= judge.LimitCheckRateShare.Value()*l.Rate {
		fail("throughput %.0f writes/s is not above %s of %.0f", run.ThroughputRPS, judge.LimitCheckRateShare.Text(), l.Rate)
	}
	if slowest := judge.LimitCheckSlowest.Value(); run.Latency.Max > slowest {
		fail("slowest request took %.3f s (limit %g s)", run.Latency.Max, slowest)
	}
	if stddev := judge.LimitCheckStddev.Value(); run.Latency.Stddev > stddev {
		fail("latency standard deviation %.3f s (limit %g s)", run.Latency.Stddev, stddev)
	}
	if run.StoppedEarly != "" {
		fail("stopped early: %s", run.StoppedEarly)
	}
	return out
}

// judgeServerDuring fails a level whose WAL fsync or backend commit p99,
// on the worst member during the level, broke etcd's thresholds: a load is
// only sustained if etcd stays within them. diskFast, when not empty, is
// the disk probe's measurement that rules the disk out (its fdatasync p99
// under etcd's limit), said instead of the advice to check the disk.
func judgeServerDuring(l *result.CheckLevel, diskFast string) {
	for _, c := range []struct {
		id judge.ID
		v  float64
	}{{judge.ServerWALFsyncP99, l.WalFsyncP99}, {judge.ServerBackendCommitP99, l.BackendCommitP99}} {
		t, _ := judge.Lookup(c.id)
		if c.v >= t.Fail {
			l.Passed = false
			advice := t.Advice
			if diskFast != "" {
				advice = "not the disk: " + diskFast + "; what stalls the members is CPU (see the level's CPU figures)"
			}
			l.Why = append(l.Why, fmt.Sprintf("%s was %s during the level (limit %s: %s)", t.What, units.Seconds(c.v), units.Seconds(t.Fail), advice))
		}
	}
}

// busy says whether the machine was busy with other processes during a
// level that failed (judge's LimitOtherCPU), and adds the figure to its
// reasons: the level then says nothing of the hardware.
func busy(l *result.CheckLevel) bool {
	if l.Passed || l.OtherCPUCores < judge.LimitOtherCPU.Value() {
		return false
	}
	l.Why = append(l.Why, fmt.Sprintf("the machine was busy: other processes used %.1f cores during the level (the members %.1f, etcdlab %.1f)",
		l.OtherCPUCores, l.MembersCPUCores, l.LoadCPUCores))
	return true
}

// capacityVerdict judges the escalation: PASS when at least the first
// level was sustained, FAIL when even it was not. The level that failed
// after others passed is the cluster's limit, said in the explanation.
func capacityVerdict(levels []result.CheckLevel, first, last Level) result.Verdict {
	v := result.Verdict{ID: string(judge.LoadCapacity), What: fmt.Sprintf("highest check perf level sustained (tried %s to %s)", first.Name, last.Name),
		Unit: "level", Threshold: fmt.Sprintf("at least %s: %.0f writes/s with %d clients", first.Name, first.Rate, first.Clients),
		Source: fmt.Sprintf("etcdctl check perf (> %s of the rate, slowest <= %g s, stddev <= %g s, no errors); etcd FAQ (WAL fsync p99 < %s, commit p99 < %s during the level)",
			judge.LimitCheckRateShare.Text(), judge.LimitCheckSlowest.Value(), judge.LimitCheckStddev.Value(), judge.LimitWALFsyncP99.Text(), judge.LimitBackendCommitP99.Text()), Status: result.Pass}
	highest := ""
	var failed *result.CheckLevel
	for i := range levels {
		if levels[i].Passed {
			highest = levels[i].Name
			v.Value = levels[i].Rate
		} else {
			failed = &levels[i]
		}
	}
	switch {
	case len(levels) == 0:
		v.Status, v.Display = result.Skip, "-"
		v.Explanation = "could not measure: no load level ran"
	case highest == "" && failed.OtherCPUCores >= judge.LimitOtherCPU.Value():
		v.Status, v.Display = result.Warn, "none (machine busy)"
		v.Explanation = fmt.Sprintf("level %s failed while other processes used %.1f cores of this machine: %s; this says the machine was busy, not that the hardware is too slow: run the check again when it is idle",
			failed.Name, failed.OtherCPUCores, strings.Join(failed.Why, "; "))
	case highest == "":
		v.Status, v.Display = result.Fail, "none"
		v.Explanation = fmt.Sprintf("even level %s failed: %s; the cluster cannot sustain a small cluster's load on this hardware (see the disk and server verdicts for why)",
			failed.Name, strings.Join(failed.Why, "; "))
	case failed != nil:
		v.Display = fmt.Sprintf("%s (%.0f writes/s)", highest, v.Value)
		v.Explanation = fmt.Sprintf("the limit: level %s failed: %s", failed.Name, strings.Join(failed.Why, "; "))
	default:
		v.Display = fmt.Sprintf("%s (%.0f writes/s)", highest, v.Value)
	}
	return v
}
