package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// cutOff finds a member that answers clients but has no leader while the
// others agree on one: it is cut off from its peers (a partition), the
// root of its failed linearizable reads, of "no leader" and of the
// members' disagreement. Its TCP connect from here rules out a member
// that is down; the others' agreement rules out an election in progress.
func (j *doctorJudge) cutOff() {
	votes := map[string][]string{}
	for _, m := range j.d.Members {
		if m.Reachable && m.LeaderID != "" && m.LeaderID != "0" {
			votes[m.LeaderID] = append(votes[m.LeaderID], m.Name)
		}
	}
	leader, agree := "", []string(nil)
	for id, names := range votes {
		if len(names) > len(agree) {
			leader, agree = id, names
		}
	}
	if 2*len(agree) <= len(j.d.Members) {
		return // no majority agrees: not one member's isolation
	}
	leaderName := leader
	for _, m := range j.d.Members {
		if m.ID == leader {
			leaderName = m.Name
		}
	}
	for _, m := range j.d.Members {
		if !m.Reachable || slices.Contains(agree, m.Name) || j.catchingUp[m.Name] {
			continue
		}
		ev := []string{fmt.Sprintf("%s reports leader %s; %s agree on %s", m.Name, or0(m.LeaderID), strings.Join(agree, " and "), leaderName)}
		if m.Metrics != nil && !m.Metrics.HasLeader {
			ev = append(ev, m.Name+": etcd_server_has_leader 0")
		}
		if r := m.ReadLinear; r != nil && r.Errors > 0 {
			ev = append(ev, fmt.Sprintf("%d of its %d linearizable reads failed (they need the leader); its serializable reads answered", r.Errors, r.Errors+r.Samples))
		}
		if m.ConnectSeconds > 0 {
			ev = append(ev, fmt.Sprintf("TCP connect to %s from here: %s: the member runs and its client port answers, so it is not down", m.Name, units.Seconds(m.ConnectSeconds)))
		}
		j.find(result.Finding{Status: result.Fail, Cause: string(CauseNetwork), Member: m.Name, Score: scoreCutOff.v(),
			Summary:  fmt.Sprintf("%s is cut off from its peers: it has no leader while %s agree on %s", m.Name, strings.Join(agree, " and "), leaderName),
			Evidence: ev,
			Fix:      "restore the network between this member and its peers (firewall rules, routes, the peer port); the cluster runs without its vote meanwhile",
			Source:   "etcd_server_has_leader (etcd mixin etcdNoLeader); etcdctl endpoint status", Versions: j.versions(m.Name)})
	}
}

func or0(id string) string {
	if id == "" || id == "0" {
		return "none (0)"
	}
	return id
}

// farMember finds the member whose linearizable reads cost much more
// than everyone else's: its ReadIndex round to the leader is long. It is
// the network's (that member is far from the leader) unless that
// member's own disk or CPU, or the leader's, explains it (a symptom,
// folded). fail is the peer round-trip limit.
func (j *doctorJudge) farMember(fail float64) {
	gaps := map[string]float64{}
	worst, second := "", 0.0
	for _, m := range j.d.Members {
		if !medians(m) || m.IsLeader {
			continue
		}
		gaps[m.Name] = m.ReadLinear.P50 - m.ReadSerial.P50
	}
	for name, g := range gaps {
		if worst == "" || g > gaps[worst] {
			worst = name
		}
	}
	if worst == "" || gaps[worst] < fail {
		return
	}
	var others []string
	for _, m := range j.d.Members {
		if m.Name == worst || !medians(m) {
			continue
		}
		g := m.ReadLinear.P50 - m.ReadSerial.P50
		second = max(second, g)
		others = append(others, fmt.Sprintf("%s %s", m.Name, units.Seconds(g)))
	}
	if len(others) == 0 || gaps[worst]-second < fail/2 {
		return // everyone pays it: the quorum round, judged in network
	}
	slices.Sort(others)
	w := j.member(worst)
	ev := []string{
		fmt.Sprintf("%s's linearizable reads cost %s more than its serializable ones (p50 over %d reads); on the others: %s", worst, units.Seconds(gaps[worst]), w.ReadLinear.Samples, strings.Join(others, ", ")),
		fmt.Sprintf("its serializable reads take %s (p50): it answers from its own data promptly, it waits only for the leader", units.Seconds(w.ReadSerial.P50)),
	}
	if c := w.ConnectSeconds; c > 0 {
		ev = append(ev, fmt.Sprintf("TCP connect to %s from here: %s (the clients' path is not the peers')", worst, units.Seconds(c)))
	}
	gap := gaps[worst]
	explain := func(root result.Finding) string { return j.gapExplained(worst, gap, &root) }
	j.symptomOf(consequence{member: worst, effect: effectReadGap, explain: explain}, result.Finding{Status: result.Fail, Cause: string(CauseNetwork), Member: worst, Score: scoreAtThreshold.v() + gaps[worst]/fail,
		Summary:  fmt.Sprintf("%s is about %s from the leader: each of its linearizable reads waits that long for the ReadIndex round", worst, units.Seconds(gaps[worst])),
		Evidence: ev,
		Fix:      "place the member closer to the others (etcd wants round trips under 50 ms between members), or send this member's clients elsewhere; check the route and any middlebox between it and the leader",
		Source:   judge.LimitOf(judge.LimitPeerRTTFail).Source + "; etcd's ReadIndex (server/etcdserver/v3_server.go)", Versions: j.versions(worst)})
}

// member is the member called name.
func (j *doctorJudge) member(name string) result.DoctorMember {
	for _, m := range j.d.Members {
		if m.Name == name {
			return m
		}
	}
	return result.DoctorMember{Name: name}
}

// defrag finds a member that was defragmenting during the window: a
// defragmentation holds the backend's lock while it rewrites the file,
// so the member's reads, applies and commits wait for it; its slow disk
// figures and stalled reads are its symptoms.
func (j *doctorJudge) defrag() {
	for _, m := range j.d.Members {
		if m.Metrics == nil || !m.Metrics.Defragmenting {
			continue
		}
		ev := []string{m.Name + ": etcd_disk_defrag_inflight 1 at the start or the end of the window"}
		if m.DBSize > 0 {
			ev = append(ev, fmt.Sprintf("its database: %s, %s in use", ibytes(float64(m.DBSize)), ibytes(float64(m.DBInUse))))
		}
		j.find(result.Finding{Status: result.Fail, Cause: string(CauseDefrag), Member: m.Name, Score: scoreDefrag.v(),
			Summary:  fmt.Sprintf("%s was defragmenting its database during the diagnosis: it answers nothing that needs its backend until that ends", m.Name),
			Evidence: ev,
			Fix:      "defragment one member at a time, never the leader under load (move the leadership first), outside busy hours; etcd 3.6's --experimental-... settings or a smaller database make it shorter",
			Source:   "etcd maintenance guide (defragmentation blocks the member)", Versions: j.versions(m.Name)})
	}
}

// expensiveReads finds clients reading too much per request: the mean
// size of the members' Range answers over the window (the bytes they sent
// clients over the Ranges they answered) past judge's
// LimitExpensiveRange. Listings without a limit cost the serving member
// CPU and memory, and every other request waits behind them.
func (j *doctorJudge) expensiveReads() {
	var bytes, ranges float64
	var on []string
	for _, m := range j.d.Members {
		if x := m.Metrics; x != nil && x.Ranges > 0 {
			bytes += x.ClientSentBytes
			ranges += x.Ranges
			if x.ClientSentBytes/x.Ranges >= judge.LimitExpensiveRange.Value() {
				on = append(on, fmt.Sprintf("%s %s over %.0f", m.Name, ibytes(x.ClientSentBytes/x.Ranges), x.Ranges))
			}
		}
	}
	if ranges == 0 || bytes/ranges < judge.LimitExpensiveRange.Value() {
		return
	}
	secs := max(j.d.WindowSeconds, 1)
	ev := []string{fmt.Sprintf("etcd_network_client_grpc_sent_bytes_total over grpc_server_handled_total{grpc_method=\"Range\"}: %s per Range (%s)", ibytes(bytes/ranges), judge.LimitExpensiveRange.Text())}
	if len(on) > 0 {
		ev = append(ev, "by member: "+strings.Join(on, "; "))
	}
	j.find(result.Finding{Status: result.Fail, Cause: string(CauseRequests), Score: scoreExpensiveReads.v() + min(scoreExpensiveReadsMore.v(), bytes/ranges/judge.LimitExpensiveRange.Value()/scoreExpensiveReadsPer.v()),
		Summary:  fmt.Sprintf("clients read %s per Range on average (%.0f ranges, %s/s sent to clients): listings without a limit", ibytes(bytes/ranges), ranges, ibytes(bytes/secs)),
		Evidence: ev,
		Fix:      "paginate listings (limit and continue), read from a watch cache or an informer instead of listing, and find the client (kube-apiserver audit logs, etcd's 'apply request took too long' lines name the keys)",
		Source:   judge.LimitOf(judge.LimitExpensiveRange).Source, Versions: j.versions()})
}

// unresponsive is a member that took the TCP connection (the kernel
// answers it) but did not answer its Status in time: its process is not
// running when asked (CPU starvation, a cgroup limit, a stop, swap), or
// its backend is held by a defragmentation (a symptom that finding
// takes). It is not down: a member that is down refuses the connection.
func (j *doctorJudge) unresponsive(m result.DoctorMember) {
	ev := []string{fmt.Sprintf("Status from %s: %s, after the TCP connection was accepted", m.Endpoint, m.Error)}
	if m.ConnectSeconds > 0 {
		ev = append(ev, fmt.Sprintf("TCP connect to %s: %s during the window (the kernel answers it, the process need not run)", m.Name, units.Seconds(m.ConnectSeconds)))
	}
	j.symptomOf(consequence{member: m.Name, effect: effectStalled}, result.Finding{Status: result.Fail, Cause: string(CauseCPU), Member: m.Name, Score: scoreUnresponsive.v(),
		Summary:  fmt.Sprintf("%s takes connections but answers nothing: its process is not running when asked", m.Name),
		Evidence: ev,
		Fix:      "give the member CPU: check its cgroup CPU limit and throttling, noisy neighbours on the node, swap, a stopped process (SIGSTOP, a debugger), and long GC or VM pauses",
		Source:   "etcdlab's connect and Status probes (a down member refuses the connection)", Versions: j.versions(m.Name)})
}
