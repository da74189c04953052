package bottleneck

import (
	"fmt"
	"strings"

	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// checkScraped is the statement of a check cell whose runs carry no
// server series: the check scraped the members itself, before and after
// each load level (result.CheckLevel: the worst member's WAL fsync and
// backend commit p99 during the level, the members' CPU), so the
// statement is made from those scrapes, the last level's (the highest
// load the check ran), rather than saying the metrics were not scraped.
// nil when the check observed none of them. Like every rule, it only
// reads its arguments.
func (j *judgement) checkScraped(cell *result.Cell) *result.Bottleneck {
	c := cell.Check
	if c == nil || len(c.Levels) == 0 {
		return nil
	}
	lv := c.Levels[len(c.Levels)-1]
	if lv.WalFsyncP99 == 0 && lv.BackendCommitP99 == 0 && lv.MembersCPUCores == 0 {
		return nil
	}
	at := fmt.Sprintf("at the check's level %s (%s writes/s offered, %s)", lv.Name, count(lv.Rate), plural(float64(lv.Clients), "client", "clients"))
	var figs []string
	if lv.WalFsyncP99 > 0 {
		j.f[figCheckWALFsyncP99Worst] = lv.WalFsyncP99
		figs = append(figs, fmt.Sprintf("the worst member's WAL fsync p99 %s (etcd's limit %s)", fsyncSecs(lv.WalFsyncP99), judge.LimitWALFsyncP99.Text()))
	}
	if lv.BackendCommitP99 > 0 {
		j.f[figCheckCommitP99Worst] = lv.BackendCommitP99
		figs = append(figs, fmt.Sprintf("backend commit p99 %s (etcd's limit %s)", fsyncSecs(lv.BackendCommitP99), judge.LimitBackendCommitP99.Text()))
	}
	if lv.MembersCPUCores > 0 {
		j.f[figCheckMembersCPU] = lv.MembersCPUCores
		figs = append(figs, fmt.Sprintf("the members together %s", cores2(lv.MembersCPUCores)))
	}
	said := join(figs)
	run, ok := levelRun(cell, lv.Name)
	if !ok {
		return nil
	}
	j.f[string(result.MetricThroughput)], j.f[figOfferedRate] = run.ThroughputRPS, lv.Rate
	achieved := fmt.Sprintf("%s req/s achieved, p50 %s", count(run.ThroughputRPS), secs(run.Latency.P50))
	fsyncOver := lv.WalFsyncP99 / judge.LimitWALFsyncP99.Value()
	commitOver := lv.BackendCommitP99 / judge.LimitBackendCommitP99.Value()
	if fsyncOver < 1 && commitOver < 1 {
		return j.done(ResourceUnknown, fmt.Sprintf("Unknown: nothing the check scraped was past its limit %s: %s; %s.", at, said, achieved))
	}
	over := fmt.Sprintf("WAL fsync p99 is %.1fx etcd's %s", fsyncOver, judge.LimitWALFsyncP99.Text())
	if commitOver > fsyncOver {
		over = fmt.Sprintf("backend commit p99 is %.1fx etcd's %s", commitOver, judge.LimitBackendCommitP99.Text())
	}
	if lv.Rate > 0 && run.ThroughputRPS >= judge.LimitRateFollowed.Value()*lv.Rate {
		return j.done(ResourceNone, fmt.Sprintf("Nothing limited throughput: the load was below capacity %s, %s; but the disk was past etcd's limits in the members' metrics the check scraped: %s; %s.",
			at, achieved, said, over))
	}
	return j.done(ResourceDisk, fmt.Sprintf("The disk limited throughput %s, %s: in the members' metrics the check scraped, %s; %s.", at, achieved, said, over))
}

// levelRun is the check's run of the level named name (measure/check
// names it "level NAME: …").
func levelRun(cell *result.Cell, name string) (result.Run, bool) {
	for _, r := range cell.Runs {
		if strings.HasPrefix(r.Name, "level "+name+":") {
			return r, true
		}
	}
	return result.Run{}, false
}

// join lists phrases as "a, b and c".
func join(p []string) string {
	switch len(p) {
	case 0:
		return ""
	case 1:
		return p[0]
	}
	s := p[0]
	for _, x := range p[1 : len(p)-1] {
		s += ", " + x
	}
	return s + " and " + p[len(p)-1]
}
