package doctor

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// reads is step 2: serializable and linearizable read latency per member;
// the gap between them is the ReadIndex round to the leader.
func (j *doctorJudge) reads() result.DoctorStep {
	st := result.DoctorStep{Name: "reads"}
	for _, m := range j.d.Members {
		if !m.Reachable {
			continue
		}
		for _, r := range []struct {
			id   judge.ID
			kind string
			f    *result.ReadFigure
		}{{judge.ReadSerializable, "serializable", m.ReadSerial}, {judge.ReadLinearizable, "linearizable", m.ReadLinear}} {
			if r.f == nil {
				st.Unseen = append(st.Unseen, fmt.Sprintf("%s: no %s read was tried", m.Name, r.kind))
				continue
			}
			v := result.Verdict{ID: string(r.id), What: fmt.Sprintf("%s: %s read latency", m.Name, r.kind), Value: r.f.P50, Unit: "s",
				Display:   fmt.Sprintf("p50 %s, max %s over %d reads", units.Seconds(r.f.P50), units.Seconds(r.f.Max), r.f.Samples),
				Threshold: "informational", Source: "etcdctl check perf; etcd-diagnosis", Status: result.Pass}
			if float64(r.f.Samples) < judge.LimitMedianMin.Value() {
				v.Display += fmt.Sprintf(" (too few for a median, which needs %s: not judged)", judge.LimitMedianMin.Text())
			}
			if r.f.Errors > 0 {
				v.Status = result.Warn
				v.Explanation = fmt.Sprintf("%d of %d reads failed or timed out", r.f.Errors, r.f.Errors+r.f.Samples)
			}
			st.Checks = append(st.Checks, v)
		}
	}
	j.starvation()
	return st
}

// starvation finds a member whose local reads stall while the others' do
// not and its TCP handshakes stay fast: the process is not running when
// asked (CPU starvation, a throttled cgroup, stop-the-world pauses). A
// busy machine slows everyone's reads a little; a starved member's stall
// (StallSeconds and more) in a good share of its probes.
//
// Its limits: judge.LimitStarvedShare of a member's local reads stalled
// (judge.LimitStarvedFail fails), at least judge.LimitStarvedRatio times
// the share on any other member, over judge.LimitStarvedMinReads reads or
// more (1 slow read of 3 is a loaded machine's hiccup), while the TCP
// handshake (answered by the kernel) stays under judge.LimitStall; and
// the member's WAL fsync median under judge.LimitSlowDiskP50 (a disk slow
// all the time, not a process stopped now and then).
func (j *doctorJudge) starvation() {
	stall := judge.LimitStall.Value()
	share := func(f *result.ReadFigure) float64 {
		if f == nil || f.Samples == 0 {
			return 0
		}
		return float64(f.Stalled) / float64(f.Samples)
	}
	minReads := judge.LimitStarvedMinReads.Value()
	for i, m := range j.d.Members {
		own := share(m.ReadSerial)
		few := j.fewButSlow(i)
		if !few && (own < judge.LimitStarvedShare.Value() || float64(m.ReadSerial.Samples) < minReads) {
			continue
		}
		others, othersMax, n := 0.0, 0.0, 0
		for k, o := range j.d.Members {
			if k != i && o.ReadSerial != nil && o.ReadSerial.Samples > 0 {
				others = max(others, share(o.ReadSerial))
				othersMax = max(othersMax, o.ReadSerial.Max)
				n++
			}
		}
		if n == 0 || own < judge.LimitStarvedRatio.Value()*others || (m.ConnectSeconds > 0 && m.ConnectSeconds >= stall) {
			continue
		}
		if x := m.Metrics; x != nil && x.WALFsyncP50 >= judge.LimitSlowDiskP50.Value() {
			// A disk that is slow all the time (its median fsync, not
			// only its tail) stalls reads too (page faults, the
			// backend's locks): the disk step finds it. A starved
			// process makes only the fsyncs it was stopped in slow: its
			// median stays low.
			continue
		}
		ev := []string{
			fmt.Sprintf("%d of %d serializable reads on %s took %s or more (p50 %s, max %s); on the other members at most %.0f%% did (max %s)",
				m.ReadSerial.Stalled, m.ReadSerial.Samples, m.Name, units.Seconds(stall), units.Seconds(m.ReadSerial.P50), units.Seconds(m.ReadSerial.Max), 100*others, units.Seconds(othersMax)),
			fmt.Sprintf("TCP connect to %s: %s (the kernel answers it, the process need not run)", m.Name, units.Seconds(m.ConnectSeconds)),
		}
		if few {
			ev = append(ev, fmt.Sprintf("only %d of its local reads completed in the window (%d failed), each waiting about %s, where every other member completed %s or more: too few for a share, but their median is a stall", m.ReadSerial.Samples, m.ReadSerial.Errors, units.Seconds(m.ReadSerial.P50), judge.LimitStarvedMinReads.Text()))
			own = max(own, judge.LimitStarvedFail.Value())
		}
		if m.Metrics != nil {
			ev = append(ev, fmt.Sprintf("%s used %.2f cores over the window", m.Name, m.Metrics.CPUCores))
		}
		status := result.Warn
		if own >= judge.LimitStarvedFail.Value() {
			status = result.Fail
		}
		j.stalled[m.Name] = true
		j.symptomOf(consequence{member: m.Name, effect: effectStalled}, result.Finding{Status: status, Cause: string(CauseCPU), Member: m.Name, Score: scoreAtThreshold.v() + scoreStarvedSlope.v()*own,
			Summary: fmt.Sprintf("%s stalls: %.0f%% of its local reads waited %s or more (up to %s), against at most %.0f%% elsewhere, while the network answered in %s",
				m.Name, 100*own, units.Seconds(stall), units.Seconds(m.ReadSerial.Max), 100*others, units.Seconds(m.ConnectSeconds)),
			Evidence: ev,
			Fix:      "give the member CPU: check its cgroup CPU limit and throttling, noisy neighbours on the node, swap, and long GC or VM pauses; etcd wants dedicated cores",
			Source:   "etcd FAQ (CPU starvation); etcdlab's read probes (a local read needs neither disk nor peers)", Versions: j.versions(m.Name)})
	}
}

// cpuMemory is step 3: each member's CPU (cores used over the window), RSS
// and goroutines, for the record; starvation is judged from the reads.
func (j *doctorJudge) cpuMemory() result.DoctorStep {
	st := result.DoctorStep{Name: "cpu-memory"}
	for _, m := range j.d.Members {
		if m.Metrics == nil {
			if m.Reachable {
				st.Unseen = append(st.Unseen, fmt.Sprintf("%s's metrics: %s", m.Name, m.MetricsError))
			}
			continue
		}
		st.Checks = append(st.Checks, result.Verdict{ID: string(judge.ProcessCPU), What: m.Name + ": CPU used (process_cpu_seconds_total)", Value: m.Metrics.CPUCores, Unit: "cores",
			Display:   fmt.Sprintf("%.2f cores, RSS %s, %.0f goroutines", m.Metrics.CPUCores, ibytes(m.Metrics.RSSBytes), m.Metrics.Goroutines),
			Threshold: "informational (the member's cores are not visible from here)", Source: "cluster-etcd-operator performance-metrics.md", Status: result.Pass})
	}
	return st
}

// network is step 4: TCP connect time from here, the peer round trip, peer
// send failures and slow read indexes.
func (j *doctorJudge) network() result.DoctorStep {
	st := result.DoctorStep{Name: "network"}
	worstRTT, rttFrom, sinceStart := 0.0, "", false
	for _, m := range j.d.Members {
		if m.ConnectSeconds > 0 {
			v := check(judge.NetworkConnect, m.Name, m.ConnectSeconds, units.Seconds)
			st.Checks = append(st.Checks, v)
			if v.Status == result.Fail {
				j.find(result.Finding{Status: result.Fail, Cause: string(CauseNetwork), Member: m.Name, Score: m.ConnectSeconds / judge.LimitConnectFail.Value(),
					Summary:  fmt.Sprintf("TCP connects to %s take %s from here", m.Name, units.Seconds(m.ConnectSeconds)),
					Evidence: []string{v.What + " " + v.Display + " (" + v.Threshold + ")"}, Fix: v.Explanation, Source: v.Source})
			}
		}
		if m.Metrics == nil {
			continue
		}
		if m.Metrics.PeerRTTP99 > 0 {
			st.Checks = append(st.Checks, check(judge.ServerPeerRTTP99, m.Name, m.Metrics.PeerRTTP99, units.Seconds))
			if m.Metrics.PeerRTTP99 > worstRTT {
				worstRTT, rttFrom, sinceStart = m.Metrics.PeerRTTP99, m.Name, m.Metrics.PeerRTTSinceStart
			}
		}
		if m.Metrics.PeerSendFailures > 0 {
			j.symptom(result.Finding{Status: result.Warn, Cause: string(CauseNetwork), Member: m.Name, Score: scorePeerSendFailures.v(),
				Summary:  fmt.Sprintf("%s failed to send to its peers %.0f times in %s", m.Name, m.Metrics.PeerSendFailures, units.Seconds(j.d.WindowSeconds)),
				Evidence: []string{fmt.Sprintf("etcd_network_peer_sent_failures_total +%.0f", m.Metrics.PeerSendFailures)},
				Fix:      "a peer is down or unreachable from this member", Source: "etcd mixin etcdMembersDown", Versions: j.versions(m.Name)},
				consequence{anyMember: true, effect: effectLostPeers})
		}
	}
	j.cutOff()
	t, _ := judge.Lookup(judge.ServerPeerRTTP99)
	j.farMember(t.Fail)
	gap, gapOn := j.quorumRound()
	if gap >= t.Fail && worstRTT < t.Fail {
		if root := j.waitRoot(gapOn); root != nil {
			// The read gap is the root's consequence, not the network's.
			root.Evidence = append(root.Evidence, j.gapExplained(gapOn, gap, root))
			gap = 0
		}
	}
	if gap >= t.Fail && worstRTT < t.Fail {
		ev := []string{fmt.Sprintf("a linearizable read costs %s more than a serializable one (p50) on %s, the member where it costs least: the ReadIndex round, which confirms leadership with a quorum of members (peer round trip < %s)", units.Seconds(gap), gapOn, units.Seconds(t.Fail))}
		if worstRTT > 0 {
			ev = append(ev, fmt.Sprintf("etcd's own peer round trip p99 %s on %s (probed every few seconds; recent changes show late)", units.Seconds(worstRTT), rttFrom))
		}
		j.find(result.Finding{Status: result.Fail, Cause: string(CauseNetwork), Score: gap / t.Fail,
			Summary:  fmt.Sprintf("the members are about %s apart: every linearizable read pays a quorum round trip of that much", units.Seconds(gap)),
			Evidence: ev, Fix: t.Advice, Source: t.Source + "; etcd's ReadIndex (server/etcdserver/v3_server.go)", Versions: j.versions()})
	}
	if worstRTT >= t.Fail {
		when := "over the window"
		if sinceStart {
			when = "since the member started (no probe in the window)"
		}
		ev := []string{fmt.Sprintf("peer round trip p99 %s on %s, %s (%s)", units.Seconds(worstRTT), rttFrom, when, "< "+units.Seconds(t.Fail))}
		if gap, who := j.readIndexGap(); gap > 0 {
			ev = append(ev, fmt.Sprintf("a linearizable read costs %s more than a serializable one on %s (the ReadIndex round to the leader)", units.Seconds(gap), who))
		}
		j.find(result.Finding{Status: result.Fail, Cause: string(CauseNetwork), Score: worstRTT / t.Fail,
			Summary:  fmt.Sprintf("the members are %s apart (peer round trip p99)", units.Seconds(worstRTT)),
			Evidence: ev, Fix: t.Advice, Source: t.Source, Versions: j.versions()})
	}
	return st
}

// waitRoot returns the root finding that explains slow linearizable reads
// on member: the leader's own disk or CPU finding (every ReadIndex waits
// for the leader to confirm its leadership and for the member to apply up
// to the read index), else the member's (it applies late behind its own
// disk, or stalls); nil when neither has one, and the read gap can be the
// network's.
func (j *doctorJudge) waitRoot(member string) *result.Finding {
	for _, m := range j.d.Members {
		if j.leads(m.Name) {
			if f := j.rootOf(m.Name); f != nil {
				return f
			}
		}
	}
	return j.rootOf(member)
}

// rootOf is member's own finding of a cause that makes a ReadIndex wait
// (explains[effectReadIndex]: its disk or CPU), or nil.
func (j *doctorJudge) rootOf(member string) *result.Finding {
	for i := range j.findings {
		f := &j.findings[i]
		// A compaction is every member's: the cluster's finding.
		if (f.Member == member || (f.Member == "" && Cause(f.Cause) == CauseCompaction)) && slices.Contains(explains[effectReadIndex], Cause(f.Cause)) {
			return f
		}
	}
	return nil
}

// gapExplained is the evidence line that folds member's read gap into
// root, naming what rules the network out: the other members' gaps and
// the TCP connects.
func (j *doctorJudge) gapExplained(member string, gap float64, root *result.Finding) string {
	who := "its"
	if root.Member != member {
		who = root.Member + "'s"
	}
	line := fmt.Sprintf("%s's linearizable reads cost %s more than its serializable ones: the ReadIndex waits on %s %s, not the network", member, units.Seconds(gap), who, root.Cause)
	var others []string
	for _, m := range j.d.Members {
		if m.Name == member || !medians(m) {
			continue
		}
		if g := m.ReadLinear.P50 - m.ReadSerial.P50; g >= 0 { // a stalled member's local reads can be the slower
			others = append(others, fmt.Sprintf("%s %s", m.Name, units.Seconds(g)))
		}
	}
	if len(others) > 0 {
		line += " (the same gap elsewhere: " + strings.Join(others, ", ") + ")"
	}
	if c := j.worstConnect(); c > 0 {
		line += fmt.Sprintf("; TCP connects %s at most", units.Seconds(c))
	}
	return line
}

// worstConnect is the slowest TCP connect to a member.
func (j *doctorJudge) worstConnect() float64 {
	worst := 0.0
	for _, m := range j.d.Members {
		worst = max(worst, m.ConnectSeconds)
	}
	return worst
}

// quorumRound is the smallest p50 gap between a member's linearizable and
// serializable reads (a serializable read is local; a linearizable one
// adds the ReadIndex round: the leader confirms its leadership with a
// quorum's heartbeat answers, and a follower asks the leader first), over
// the members whose local reads are fast beside it (a fifth of the gap at
// most, so the gap is not the member's own slowness), and that member.
func (j *doctorJudge) quorumRound() (float64, string) {
	gap, who := math.Inf(1), ""
	for _, m := range j.d.Members {
		if !medians(m) {
			continue
		}
		g := m.ReadLinear.P50 - m.ReadSerial.P50
		if j.stalled[m.Name] || m.ReadSerial.P50 >= judge.LimitStall.Value() {
			continue // its own slowness, not the round
		}
		if g < gap {
			gap, who = g, m.Name
		}
	}
	if who == "" {
		return 0, ""
	}
	return gap, who
}

// readIndexGap is the largest p50 gap between a member's linearizable and
// serializable reads, and that member.
func (j *doctorJudge) readIndexGap() (float64, string) {
	gap, who := 0.0, ""
	for _, m := range j.d.Members {
		if m.ReadLinear != nil && m.ReadSerial != nil && m.ReadLinear.Samples > 0 && m.ReadSerial.Samples > 0 {
			if g := m.ReadLinear.P50 - m.ReadSerial.P50; g > gap {
				gap, who = g, m.Name
			}
		}
	}
	return gap, who
}

// disk is step 5: WAL fsync p99 and p99.9 and backend commit p99 per
// member over the window, and etcd's disk job where doctor ran it.
func (j *doctorJudge) disk() result.DoctorStep {
	st := result.DoctorStep{Name: "disk"}
	j.defrag()
	j.compaction(&st)
	for _, v := range j.diskJob {
		st.Checks = append(st.Checks, v)
		if v.Status == result.Fail && v.ID == string(judge.DiskFsyncP99) {
			limit := judge.LimitWALFsyncP99.Value()
			j.find(result.Finding{Status: result.Fail, Cause: string(CauseDisk), Score: v.Value / limit,
				Summary:  fmt.Sprintf("the disk under %s: fdatasync p99 %s in etcd's disk job, %.1fx etcd's %s", j.diskDir, v.Display, v.Value/limit, judge.LimitWALFsyncP99.Text()),
				Evidence: []string{v.What + " " + v.Display + " (" + v.Threshold + ")"}, Fix: v.Explanation, Source: v.Source})
		}
	}
	for _, m := range j.d.Members {
		x := m.Metrics
		if x == nil {
			continue
		}
		if x.WALFsyncSinceStart && !x.WALFsyncMedianSinceStart && j.slowMedian(&st, m) {
			// Too few in the window for a p99, enough for its median:
			// today's figure, not the member's life's.
			continue
		}
		if x.WALFsyncP99 == 0 {
			if !j.slowMedian(&st, m) {
				st.Unseen = append(st.Unseen, fmt.Sprintf("%s's WAL fsync: %.0f in the window and too few since the member started to make a p99", m.Name, x.WALFsyncs))
			}
			continue
		}
		fs := check(judge.ServerWALFsyncP99, m.Name, x.WALFsyncP99, func(v float64) string { return units.Quantile(v, result.LowestDiskBucket) })
		if x.WALFsyncSinceStart {
			fs.Display += " (since start: too few in the window)"
		}
		st.Checks = append(st.Checks, fs)
		cm := check(judge.ServerBackendCommitP99, m.Name, x.CommitP99, func(v float64) string { return units.Quantile(v, result.LowestDiskBucket) })
		if x.CommitSinceStart {
			cm.Display += " (since start)"
		}
		if x.CommitP99 > 0 {
			st.Checks = append(st.Checks, cm)
		}
		if fs.Status != result.Fail && cm.Status != result.Fail {
			continue
		}
		if j.stalled[m.Name] {
			// A process that is not running while it fsyncs or commits
			// makes those slow too: the stall explains them.
			if f := j.findingOf(CauseCPU, m.Name); f != nil {
				f.Evidence = append(f.Evidence, fmt.Sprintf("its WAL fsync p99 %s and backend commit p99 %s include the stalls (a local read, which needs no disk, stalls too)",
					units.Quantile(x.WALFsyncP99, result.LowestDiskBucket), units.Quantile(x.CommitP99, result.LowestDiskBucket)))
			}
			continue
		}
		when := fmt.Sprintf("%.0f fsyncs in the window", x.WALFsyncs)
		if x.WALFsyncSinceStart {
			when = fmt.Sprintf("since the member started (%.0f fsyncs in the window, too few for a p99)", x.WALFsyncs)
		}
		tail := ""
		if x.WALFsyncP999 > 0 { // a p99.9 needs judge.LimitQuantileP999Min fsyncs
			tail = ", p99.9 " + units.Quantile(x.WALFsyncP999, result.LowestDiskBucket)
		}
		ev := []string{fmt.Sprintf("WAL fsync p99 %s%s on %s, %s (etcd asks for under %s)", units.Quantile(x.WALFsyncP99, result.LowestDiskBucket), tail, m.Name, when, judge.LimitWALFsyncP99.Text())}
		if x.CommitP99 > 0 {
			ev = append(ev, fmt.Sprintf("backend commit p99 %s (etcd asks for under %s)", units.Quantile(x.CommitP99, result.LowestDiskBucket), judge.LimitBackendCommitP99.Text()))
		}
		if x.SlowApplies > 0 || x.HeartbeatFailures > 0 {
			ev = append(ev, fmt.Sprintf("%.0f slow applies and %.0f late heartbeats in the window", x.SlowApplies, x.HeartbeatFailures))
		}
		t, _ := judge.Lookup(judge.ServerWALFsyncP99)
		score := max(x.WALFsyncP99/judge.LimitWALFsyncP99.Value(), x.CommitP99/judge.LimitBackendCommitP99.Value())
		status := result.Fail
		if x.WALFsyncSinceStart {
			// Nothing was written in the window: the figure is from the
			// member's whole life (its start included), not today's load.
			score /= scoreSinceStart.v()
			status = result.Warn
		}
		explainedBy := effectSlowWAL
		if fs.Status != result.Fail {
			// The same disk syncs the WAL within etcd's limit: what makes
			// the backend's commits slow is what they write (a fragmented
			// or huge database, a defragmentation, expensive requests) or
			// a starved process, and the disk is named only when nothing
			// else explains it.
			explainedBy = effectSlowCommit
			status = result.Warn
			ev = append(ev, fmt.Sprintf("its WAL fsync p99 %s is within etcd's %s on the same disk: the disk syncs fast, the commits are slow for what they write", units.Quantile(x.WALFsyncP99, result.LowestDiskBucket), judge.LimitWALFsyncP99.Text()))
		}
		var explain func(result.Finding) string
		if fs.Status != result.Fail {
			name, commit, wal := m.Name, units.Quantile(x.CommitP99, result.LowestDiskBucket), units.Quantile(x.WALFsyncP99, result.LowestDiskBucket)
			explain = func(root result.Finding) string {
				return fmt.Sprintf("%s's backend commit p99 %s while its WAL fsync p99 is %s on the same disk: the commits are slow for what they write, which %s explains, not for the disk", name, commit, wal, rootName(root))
			}
		}
		j.symptomOf(consequence{member: m.Name, effect: explainedBy, explain: explain}, result.Finding{Status: status, Cause: string(CauseDisk), Member: m.Name, Score: score,
			Summary:  diskSummary(m.Name, x),
			Evidence: ev, Fix: diskFix,
			Source: t.Source, Versions: j.versions(m.Name)})
	}
	return st
}

// complaints is step 6: what the members count against themselves over
// the window: slow applies, slow read indexes, late heartbeats, leader
// changes, failed and pending proposals, gRPC errors.
func (j *doctorJudge) complaints() result.DoctorStep {
	st := result.DoctorStep{Name: "complaints"}
	j.expensiveReads()
	var changes float64
	var noLeader []string
	seen := 0
	for _, m := range j.d.Members {
		x := m.Metrics
		if x == nil {
			continue
		}
		seen++
		for _, c := range []struct {
			id judge.ID
			v  float64
		}{{judge.ServerSlowApplies, x.SlowApplies}, {judge.ServerHeartbeatFailures, x.HeartbeatFailures}, {judge.ServerProposalsFailed, x.ProposalsFailed}} {
			st.Checks = append(st.Checks, check(c.id, m.Name, c.v, units.Count))
		}
		changes = max(changes, x.LeaderChanges)
		if !x.HasLeader {
			noLeader = append(noLeader, m.Name)
		}
		if x.GRPCRequests >= judge.LimitGRPCErrorsMinCount.Value() {
			grpcErrWarn, grpcErrFail := judge.LimitGRPCErrorsWarn.Value(), judge.LimitGRPCErrorsFail.Value()
			ratio := x.GRPCErrors / x.GRPCRequests
			v := result.Verdict{ID: string(judge.ServerGRPCErrors), What: m.Name + ": failed unary gRPC requests", Value: ratio, Unit: "ratio",
				Display: fmt.Sprintf("%.1f%% of %.0f", 100*ratio, x.GRPCRequests), Threshold: fmt.Sprintf("< %s (warn from %s)", judge.LimitGRPCErrorsFail.Text(), judge.LimitGRPCErrorsWarn.Text()),
				Source: judge.LimitOf(judge.LimitGRPCErrorsFail).Source, Status: result.Pass}
			if ratio >= grpcErrWarn {
				v.Status = result.Warn
				if ratio >= grpcErrFail {
					v.Status = result.Fail
				}
				j.symptomOf(consequence{anyMember: true, effect: effectFailures}, result.Finding{Status: v.Status, Cause: string(CauseRequests), Member: m.Name, Score: ratio / grpcErrFail,
					Summary:  fmt.Sprintf("%.1f%% of %s's unary requests failed", 100*ratio, m.Name),
					Evidence: []string{v.What + " " + v.Display}, Fix: "see the codes in grpc_server_handled_total: Unavailable and DeadlineExceeded point to the leader, disk or network findings above", Source: v.Source})
			}
			st.Checks = append(st.Checks, v)
		}
		methods := make([]string, 0, len(x.GRPCUnaryP99))
		for method := range x.GRPCUnaryP99 {
			methods = append(methods, method)
		}
		slices.Sort(methods)
		for _, method := range methods {
			p99 := x.GRPCUnaryP99[method]
			grpcSlow := judge.LimitGRPCSlowP99.Value()
			v := result.Verdict{ID: string(judge.ServerGRPCP99), What: fmt.Sprintf("%s: %s p99 (grpc_server_handling_seconds)", m.Name, method), Value: p99, Unit: "s",
				Display: units.Seconds(p99), Threshold: "< " + units.Seconds(grpcSlow), Source: judge.LimitOf(judge.LimitGRPCSlowP99).Source, Status: result.Pass}
			if p99 >= grpcSlow {
				v.Status = result.Warn
				v.Explanation = "requests are slow: the symptom the findings above explain (disk, network, CPU), or expensive requests"
			}
			st.Checks = append(st.Checks, v)
		}
		if x.SlowReadIndexes > 0 {
			if root := j.waitRoot(m.Name); root != nil {
				root.Evidence = append(root.Evidence, fmt.Sprintf("%s waited too long for ReadIndex %.0f times (etcd_server_slow_read_indexes_total): a consequence of %s, not the network",
					m.Name, x.SlowReadIndexes, rootName(*root)))
				continue
			}
			j.symptomOf(consequence{member: m.Name, effect: effectSlow}, result.Finding{Status: result.Warn, Cause: string(CauseNetwork), Member: m.Name, Score: scoreSlowReadIndex.v(),
				Summary:  fmt.Sprintf("%s waited too long for ReadIndex %.0f times", m.Name, x.SlowReadIndexes),
				Evidence: []string{fmt.Sprintf("etcd_server_slow_read_indexes_total +%.0f", x.SlowReadIndexes)},
				Fix:      "a slow leader or a slow network between this member and the leader", Source: "etcd server/etcdserver (waiting for ReadIndex response took too long)", Versions: j.versions(m.Name)})
		}
	}
	if seen == 0 {
		// A counter nobody read is not a zero: no PASS without data.
		st.Checks = append(st.Checks, judge.Unmeasured(judge.ServerLeaderChanges, "no member's metrics were read"))
		return st
	}
	lc := check(judge.ServerLeaderChanges, "", changes, units.Count)
	st.Checks = append(st.Checks, lc)
	if lc.Status != result.Pass {
		j.symptomOf(consequence{anyMember: true, effect: effectElections}, result.Finding{Status: lc.Status, Cause: string(CauseLeader), Score: scoreLeaderChanges.v() + changes/scoreLeaderChangesPer.v(),
			Summary:  fmt.Sprintf("the leader changed %.0f times in %s", changes, units.Seconds(j.d.WindowSeconds)),
			Evidence: append([]string{lc.What + " " + lc.Display}, j.electionsRuledOut()...),
			Fix:      lc.Explanation + "; when no disk, CPU or network finding explains them, the election timeout is too low for the round trip and its hiccups: etcd's tuning guide wants the heartbeat about one round trip and the election timeout at least ten", Source: lc.Source + "; etcd tuning guide", Versions: j.versions()})
	}
	if len(noLeader) > 0 {
		slices.Sort(noLeader)
		j.symptomOf(consequence{anyMember: true, effect: effectLostPeers}, result.Finding{Status: result.Fail, Cause: string(CauseLeader), Score: scoreNoLeader.v(), Summary: fmt.Sprintf("%v had no leader at the end of the window", noLeader),
			Evidence: []string{"etcd_server_has_leader 0"}, Fix: "without a leader nothing commits: the network between members, their disks or lost quorum", Source: "etcd mixin etcdNoLeader"})
	}
	return st
}

// diskFix is the fix of a slow disk under a member's WAL.
const diskFix = "move etcd's data (at least the WAL) to SSD/NVMe or a dedicated volume with provisioned IOPS; no network or shared storage, no other I/O on it"

// slowMedian judges a member whose WAL fsyncs are too few for a p99 (a
// quiet cluster) by the median they support: when even the lower edge of
// the median's bucket is past etcd's p99 limit, the p99 is too, since it
// is at least the median. It adds the check and the disk finding (or, for
// a stalled member, evidence to its CPU finding) and reports whether it
// judged anything.
func (j *doctorJudge) slowMedian(st *result.DoctorStep, m result.DoctorMember) bool {
	x := m.Metrics
	limit := judge.LimitWALFsyncP99.Value()
	if x.WALFsyncMedianN < judge.LimitMedianMin.Value() || x.WALFsyncMedianFloor < limit {
		return false
	}
	where := fmt.Sprintf("%.0f fsyncs in the window", x.WALFsyncMedianN)
	if x.WALFsyncMedianSinceStart {
		where = fmt.Sprintf("%.0f fsyncs since the member started (%.0f in the window)", x.WALFsyncMedianN, x.WALFsyncs)
	}
	t, _ := judge.Lookup(judge.ServerWALFsyncP99)
	v := result.Verdict{ID: string(judge.ServerWALFsyncP99), What: m.Name + ": " + t.What, Value: x.WALFsyncMedianFloor, Unit: "s",
		Display:   "at least " + units.Quantile(x.WALFsyncMedianFloor, result.LowestDiskBucket) + " (the median's floor, over " + where + ")",
		Threshold: "< " + judge.LimitWALFsyncP99.Text(), Source: t.Source, Status: result.Fail, Explanation: t.Advice}
	st.Checks = append(st.Checks, v)
	if j.stalled[m.Name] {
		if f := j.findingOf(CauseCPU, m.Name); f != nil {
			f.Evidence = append(f.Evidence, "its slow WAL fsyncs include the stalls (a local read, which needs no disk, stalls too)")
		}
		return true
	}
	status, score := result.Fail, x.WALFsyncMedianFloor/limit
	if x.WALFsyncMedianSinceStart {
		// As for a p99 since start: the member's whole life, not today's load.
		status, score = result.Warn, score/scoreSinceStart.v()
	}
	j.symptomOf(consequence{member: m.Name, effect: effectSlowWAL}, result.Finding{Status: status, Cause: string(CauseDisk), Member: m.Name, Score: score,
		Summary: fmt.Sprintf("the disk of %s: half of its %.0f WAL fsyncs took at least %s, past etcd's %s p99 limit", m.Name, x.WALFsyncMedianN,
			units.Quantile(x.WALFsyncMedianFloor, result.LowestDiskBucket), judge.LimitWALFsyncP99.Text()),
		Evidence: []string{
			fmt.Sprintf("WAL fsync median on %s: at least %s over %s", m.Name, units.Quantile(x.WALFsyncMedianFloor, result.LowestDiskBucket), where),
			fmt.Sprintf("too few for a p99 (it needs %s observations); a median needs %s, and the p99 is at least the median", judge.LimitQuantileP99Min.Text(), judge.LimitMedianMin.Text()),
		},
		Fix:    diskFix,
		Source: t.Source, Versions: j.versions(m.Name)})
	return true
}

// diskSummary names the figure that failed: WAL fsync against etcd's
// limit (judge.LimitWALFsyncP99), else backend commit against its own
// (judge.LimitBackendCommitP99).
func diskSummary(name string, x *result.DoctorMetrics) string {
	if wal := judge.LimitWALFsyncP99.Value(); x.WALFsyncP99 >= wal {
		return fmt.Sprintf("the disk of %s: WAL fsync p99 %s, %.1fx etcd's %s", name, units.Quantile(x.WALFsyncP99, result.LowestDiskBucket), x.WALFsyncP99/wal, judge.LimitWALFsyncP99.Text())
	}
	return fmt.Sprintf("the disk of %s: backend commit p99 %s, %.1fx etcd's %s (WAL fsync p99 %s)", name,
		units.Quantile(x.CommitP99, result.LowestDiskBucket), x.CommitP99/judge.LimitBackendCommitP99.Value(), judge.LimitBackendCommitP99.Text(), units.Quantile(x.WALFsyncP99, result.LowestDiskBucket))
}

// electionsRuledOut are the measurements that rule out the causes of
// leader changes other than the elections' own tuning: every member's WAL
// fsync, its local reads (no stall), and the peers' round trip as the
// read-index gaps show it.
func (j *doctorJudge) electionsRuledOut() []string {
	var walWorst, serialWorst float64
	var walOn, serialOn string
	for _, m := range j.d.Members {
		if x := m.Metrics; x != nil && x.WALFsyncP99 > walWorst {
			walWorst, walOn = x.WALFsyncP99, m.Name
		}
		if r := m.ReadSerial; r != nil && r.P50 > serialWorst {
			serialWorst, serialOn = r.P50, m.Name
		}
	}
	var out []string
	if walOn != "" {
		out = append(out, fmt.Sprintf("the disks: the slowest WAL fsync p99 is %s (%s; etcd asks for under %s)", units.Quantile(walWorst, result.LowestDiskBucket), walOn, judge.LimitWALFsyncP99.Text()))
	}
	// A median past a stall rules nothing out, even where the starvation
	// rule did not fire (too few reads, or the others slow as well).
	if serialOn != "" && len(j.stalled) == 0 && serialWorst < judge.LimitStall.Value() {
		out = append(out, fmt.Sprintf("the CPU: no member stalls, the slowest local reads' p50 is %s (%s)", units.Seconds(serialWorst), serialOn))
	}
	if gap, who := j.quorumRound(); who != "" {
		out = append(out, fmt.Sprintf("the round trip: a linearizable read costs %s more than a serializable one on %s", units.Seconds(gap), who))
	}
	return out
}

// medians reports whether member m's serializable and linearizable read
// probes are enough for their medians (judge.LimitMedianMin each): the
// read-index gap is a difference of medians.
func medians(m result.DoctorMember) bool {
	need := int(judge.LimitMedianMin.Value())
	return m.ReadLinear != nil && m.ReadSerial != nil && m.ReadLinear.Samples >= need && m.ReadSerial.Samples >= need
}

// fewButSlow reports whether member i completed too few local reads for
// a share (judge.LimitStarvedMinReads) because each took a stall or
// more (their median is past judge.LimitStall, or none completed in time
// and some were tried), while every other member
// that answered completed enough reads without stalling: so starved that
// its probes could not keep up.
func (j *doctorJudge) fewButSlow(i int) bool {
	minReads, stall := judge.LimitStarvedMinReads.Value(), judge.LimitStall.Value()
	r := j.d.Members[i].ReadSerial
	if r == nil || r.Samples+r.Errors == 0 || float64(r.Samples) >= minReads {
		return false
	}
	if r.Samples > 0 && r.P50 < stall {
		return false // what completed was prompt: no stall
	}
	others := 0
	for k, o := range j.d.Members {
		if k == i || !o.Reachable {
			continue
		}
		if o.ReadSerial == nil || float64(o.ReadSerial.Samples) < minReads || o.ReadSerial.P50 >= stall {
			return false
		}
		others++
	}
	return others > 0
}
