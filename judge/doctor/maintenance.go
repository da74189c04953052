package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// Maintenance in progress as a cause: a compaction pauses the backend
// between its batches, a member catching up serves stale data or nothing
// until it has the leader's; what they slow (applies, commits, the reads
// that wait for them, a member that does not answer) is their evidence
// (explains). A defragmentation is roots.go's defrag.

// compactionSource is where the compaction rule's evidence comes from.
const compactionSource = "etcd mvcc (kvstore_compaction.go: a compaction deletes in batches of --compaction-batch-limit keys, each holding the backend's write lock, " +
	"--compaction-sleep-interval apart); etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds, _total_duration_milliseconds, etcd_debugging_mvcc_compact_revision"

// compaction finds a compaction running during the window: its batches
// held the backends' write lock for judge.LimitCompactionPause or more,
// one that ended ran judge.LimitCompactionLong or more, or one was still
// running when the window ended. Every member compacts its own backend
// when the compaction is applied, so it is one finding: the cluster's
// when several members show it, else that member's. Shorter compactions
// are the step's informational checks.
func (j *doctorJudge) compaction(st *result.DoctorStep) {
	var on, ev []string
	worstPause := 0.0
	for _, m := range j.d.Members {
		x := m.Metrics
		if x == nil || (x.CompactionBatches == 0 && x.CompactionsFinished == 0 && x.CompactRevisionAfter <= x.CompactRevisionBefore) {
			continue
		}
		line := fmt.Sprintf("%s: %.0f compaction batches in the window held its backend's write lock %s together", m.Name, x.CompactionBatches, units.Seconds(x.CompactionPauseSeconds))
		if x.CompactionsFinished > 0 {
			line += fmt.Sprintf("; %.0f compaction ended, %s long, removing %.0f keys", x.CompactionsFinished, units.Seconds(x.CompactionSeconds), x.CompactionKeys)
		}
		if x.Compacting {
			line += "; still compacting at the end of the window"
			if x.CompactRevisionAfter > x.CompactRevisionBefore {
				line += fmt.Sprintf(" (to revision %.0f; the one before was %.0f)", x.CompactRevisionAfter, x.CompactRevisionBefore)
			}
		}
		long := x.CompactionPauseSeconds >= judge.LimitCompactionPause.Value() || x.CompactionSeconds >= judge.LimitCompactionLong.Value() || (x.Compacting && x.CompactionBatches >= 2)
		st.Checks = append(st.Checks, result.Verdict{ID: string(judge.ServerCompaction), What: m.Name + ": compaction during the window", Value: x.CompactionPauseSeconds, Unit: "s",
			Display:   line[len(m.Name)+2:],
			Threshold: fmt.Sprintf("a cause from %s of pauses, a %s compaction or one still running", judge.LimitCompactionPause.Text(), units.Seconds(judge.LimitCompactionLong.Value())),
			Source:    compactionSource, Status: result.Pass})
		if !long {
			continue
		}
		on = append(on, m.Name)
		ev = append(ev, line)
		worstPause = max(worstPause, x.CompactionPauseSeconds)
	}
	if len(on) == 0 {
		return
	}
	member, who := "", strings.Join(on, ", ")
	if len(on) == 1 {
		member = on[0]
	}
	j.find(result.Finding{Status: result.Warn, Cause: string(CauseCompaction), Member: member, Score: scoreCompaction.v(),
		Summary:  fmt.Sprintf("a compaction was running during the diagnosis on %s: its batches held the backend up to %s in the window, and applies and commits waited between them", who, units.Seconds(worstPause)),
		Evidence: ev,
		Fix: "compact in smaller steps and outside busy hours; shorter pauses with a lower --compaction-batch-limit or a longer --compaction-sleep-interval (etcd 3.6 and 3.7; 3.5: --experimental-compaction-batch-limit, " +
			"--experimental-compaction-sleep-interval; 3.4: --experimental-compaction-batch-limit only); a compaction frees pages without shrinking the file: defragment afterwards, one member at a time",
		Source: compactionSource, Versions: j.versions(on...)})
}

// catchUpSource is where the catch-up rule's evidence comes from.
const catchUpSource = "etcd raft: a follower behind the leader's compacted log gets a snapshot of the database (etcdserver keeps 5,000 entries for slow followers, SnapshotCatchUpEntries); " +
	"etcd_network_snapshot_send_inflights_total, etcd_network_snapshot_receive_inflights_total, etcd_server_snapshot_apply_in_progress_total; etcdctl endpoint status (applied index)"

// catchUp finds a member coming back behind the leader: the leader (or
// any member) sending it a snapshot, the member receiving or applying
// one, its applied index judge.LimitAppliedLag or more behind the
// leader's at the start of the window and closer at its end, or a member
// that did not answer at the start answering at the end (it was
// restarting). What it causes (it does not answer, its applied index
// lags, its peers failed to send to it, its reads wait) is its evidence.
func (j *doctorJudge) catchUp() {
	leadStart, leadEnd := j.appliedHeads()
	for _, m := range j.d.Members {
		if m.IsLeader {
			continue
		}
		var ev []string
		for _, s := range j.d.Members {
			if s.Metrics != nil && m.ID != "" && slices.Contains(s.Metrics.SnapshotSendTo, m.ID) {
				role := ""
				if s.IsLeader {
					role = " (the leader)"
				}
				ev = append(ev, fmt.Sprintf("%s%s sent %s a snapshot of its database during the window (etcd_network_snapshot_send_inflights_total or _send_success{To=\"%s\"})", s.Name, role, m.Name, m.ID))
			}
		}
		if x := m.Metrics; x != nil && x.SnapshotReceiving {
			ev = append(ev, m.Name+" received a snapshot during the window (etcd_network_snapshot_receive_inflights_total or _receive_success)")
		}
		if x := m.Metrics; x != nil && x.SnapshotApplying {
			ev = append(ev, m.Name+" was applying a snapshot at the start or the end of the window (etcd_server_snapshot_apply_in_progress_total 1): it applies nothing else until it has")
		}
		lagStart, lagEnd := int64(-1), int64(-1)
		if m.Reachable && leadStart > 0 {
			lagStart = int64(leadStart) - int64(m.RaftAppliedIndex)
		}
		if m.AnsweredAtEnd && leadEnd > 0 {
			lagEnd = int64(leadEnd) - int64(m.AppliedAtEnd)
		}
		if lagStart >= int64(judge.LimitAppliedLag.Value()) && lagEnd >= 0 && lagEnd < lagStart {
			ev = append(ev, fmt.Sprintf("its applied index was %d entries behind the leader's at the start of the window and %d at its end (etcdctl endpoint status; %s behind is a cause)", lagStart, max(lagEnd, 0), judge.LimitAppliedLag.Text()))
		}
		recent := m.UptimeSeconds > 0 && m.UptimeSeconds < judge.LimitCatchUpRecent.Value()
		cameBack := !m.Reachable && m.AnsweredAtEnd && (!m.Unresponsive || recent)
		if cameBack {
			line := fmt.Sprintf("%s answered no Status at the start of the window (%s) and answered at its end", m.Name, m.Error)
			if lagEnd >= 0 {
				line += fmt.Sprintf(", %d entries behind the leader's applied index", max(lagEnd, 0))
			}
			ev = append(ev, line)
		}
		if len(ev) == 0 {
			continue
		}
		if recent {
			ev = append(ev, fmt.Sprintf("its process started %s before the end of the window (process_start_time_seconds)", units.Seconds(m.UptimeSeconds)))
		}
		status, score := result.Warn, scoreCatchUp.v()
		if !m.Reachable || (m.Metrics != nil && m.Metrics.SnapshotApplying) {
			status = result.Fail
		}
		if !m.Reachable {
			score += scoreCatchUpDown.v()
		}
		j.catchingUp[m.Name] = true
		j.find(result.Finding{Status: status, Cause: string(CauseCatchUp), Member: m.Name, Score: score,
			Summary:  fmt.Sprintf("%s is catching up with the leader (%s): it serves stale data or nothing until its applied index reaches the leader's", m.Name, catchUpHow(ev)),
			Evidence: ev,
			Fix: "let it finish and restart no other member meanwhile (the cluster has one member less of fault tolerance); a member down long enough to need a snapshot costs the leader a send of the whole database: " +
				"keep downtime short, a smaller database (compact, defragment) makes the snapshot shorter",
			Source: catchUpSource, Versions: j.versions(m.Name)})
	}
}

// catchUpHow says how a member catches up, from its evidence.
func catchUpHow(ev []string) string {
	all := strings.Join(ev, " ")
	switch {
	case strings.Contains(all, "snapshot"):
		return "a snapshot of the database"
	case strings.Contains(all, "behind the leader's at the start"):
		return "from the leader's log"
	}
	return "it was restarting"
}

// appliedHeads are the highest applied index any member reported at the
// start of the window and at its end (the leader's, or ahead of it).
func (j *doctorJudge) appliedHeads() (start, end uint64) {
	for _, m := range j.d.Members {
		if m.Reachable {
			start = max(start, m.RaftAppliedIndex)
		}
		if m.AnsweredAtEnd {
			end = max(end, m.AppliedAtEnd)
		}
	}
	return start, end
}

// defragLength says how long the next defragmentation of each member
// whose database is over judge.LimitFragMinSize would block it, at the
// best rate doctor has: the member's own past defragmentations
// (etcd_disk_backend_defrag_duration_seconds), else the disk job's best
// write bandwidth (--data-dir), else judge.LimitDefragSecondsPerGiB. It
// is a line of the member's fragmentation finding, else an informational
// check: a length, not a fault.
func (j *doctorJudge) defragLength(st *result.DoctorStep) {
	const gib = 1 << 30
	for _, m := range j.d.Members {
		if !m.Reachable || float64(m.DBSize) <= judge.LimitFragMinSize.Value() {
			continue
		}
		inUse := float64(m.DBInUse)
		if inUse <= 0 {
			inUse = float64(m.DBSize)
		}
		var secs float64
		var rate string
		switch bw := j.diskBandwidth(); {
		case m.Metrics != nil && m.Metrics.Defrags > 0:
			per := m.Metrics.DefragSeconds / m.Metrics.Defrags
			secs = per
			rate = fmt.Sprintf("its own %.0f defragmentations since it started took %s each on average (etcd_disk_backend_defrag_duration_seconds; the sizes they ran at are not in the metrics: taken as today's)", m.Metrics.Defrags, units.Seconds(per))
		case bw > 0:
			secs = inUse / bw
			rate = fmt.Sprintf("the disk job's best write bandwidth under %s, %s/s, for the %s in use it copies (a defragmentation writes in large transactions: an upper bound of its rate)", j.diskDir, ibytes(bw), ibytes(inUse))
		default:
			perGiB := judge.LimitDefragSecondsPerGiB.Value()
			secs = perGiB * inUse / gib
			rate = fmt.Sprintf("the default %.1f s per GiB in use (%s), not this disk's: doctor --data-dir on the member's node measures it", perGiB, judge.LimitOf(judge.LimitDefragSecondsPerGiB).Source)
		}
		line := fmt.Sprintf("at this rate, defragmenting %s's %s (%s in use) would block it for about %s: %s", m.Name, ibytes(float64(m.DBSize)), ibytes(inUse), about(secs), rate)
		if f := j.findingOf(CauseFragmentation, m.Name); f != nil && f.Member == m.Name {
			f.Evidence = append(f.Evidence, line)
			continue
		}
		st.Checks = append(st.Checks, result.Verdict{ID: string(judge.ServerDefragLength), What: m.Name + ": the next defragmentation's length", Value: secs, Unit: "s",
			Display: "about " + about(secs) + " (" + rate + ")", Threshold: "informational", Source: "etcd maintenance guide (defragmentation blocks the member); " + judge.LimitOf(judge.LimitDefragSecondsPerGiB).Source, Status: result.Pass})
	}
}

// diskBandwidth is the best bandwidth of the disk job's writing runs
// (doctor --data-dir), 0 without.
func (j *doctorJudge) diskBandwidth() float64 {
	bw := 0.0
	if j.diskDoc == nil {
		return 0
	}
	for _, job := range j.diskDoc.Jobs {
		if job.WriteOps > 0 || job.ReadOps == 0 {
			bw = max(bw, job.BandwidthBytesS)
		}
	}
	return bw
}

// about is an estimate's seconds without false precision: tenths from a
// second up.
func about(secs float64) string {
	if secs >= 1 {
		return fmt.Sprintf("%.1f s", secs)
	}
	return units.Seconds(secs)
}
