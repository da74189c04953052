package result

import "time"

// KindUpgrade is a Document of `etcdlab cluster upgrade`: one rolling
// upgrade (or downgrade) of a lab cluster, in Document.Upgrade.
const KindUpgrade = "upgrade"

// Upgrade is a rolling upgrade (or downgrade), as it happened: what
// lab/cluster's Cluster.Upgrade returns, what `etcdlab cluster upgrade`
// writes (a KindUpgrade document), and what an experiment's fault
// timeline records of an "upgrade" or "downgrade" step during a measured
// run (FaultEvent.Upgrade, where the client figures are filled too): each
// member's replacement with what the cluster saw, and what the load's
// clients saw inside each replacement's window. It is a plain value.
type Upgrade struct {
	// To is the etcd version the members moved to; Downgrade says it was
	// older than theirs.
	To        string `json:"to"`
	Downgrade bool   `json:"downgrade,omitempty"`
	// DowngradeBegan and DowngradeEnabled bound, for a downgrade, the
	// `downgrade validate` and `enable` calls and the wait until every
	// member's storage was at the target version; DowngradeSeconds is
	// their span, DowngradeUnavailability what the canary saw meanwhile.
	DowngradeBegan          time.Time       `json:"downgrade_began,omitzero"`
	DowngradeEnabled        time.Time       `json:"downgrade_enabled,omitzero"`
	DowngradeSeconds        float64         `json:"downgrade_enable_seconds,omitempty"`
	DowngradeUnavailability *Unavailability `json:"downgrade_unavailability,omitempty"`
	// Steps are the members' replacements in their order: followers
	// first, the leader last.
	Steps []UpgradeStep `json:"steps"`
	// ClusterVersionSeconds is how long after the last step every member
	// said the cluster version was the new one; Seconds the whole move.
	ClusterVersionSeconds float64 `json:"cluster_version_seconds,omitempty"`
	Seconds               float64 `json:"seconds"`
	// ClientErrorsOutside counts the load's failed requests sent between
	// the first step's start and the move's end but in no step's window
	// (at the run's one-second resolution, see UpgradeStep.ClientErrors):
	// 0 when every failure fell inside a member's replacement.
	ClientErrorsOutside int64 `json:"client_errors_outside,omitempty"`
}

// UpgradeStep is one member's replacement, as it happened. Its window,
// [Began, Ready], spans everything the step did: the leadership hand-over
// (WasLeader, to HandedTo), the stop, the start and the catch-up.
type UpgradeStep struct {
	Member    string    `json:"member"`
	From      string    `json:"from"`
	To        string    `json:"to"`
	WasLeader bool      `json:"was_leader,omitempty"`
	HandedTo  string    `json:"handed_to,omitempty"`
	Began     time.Time `json:"began"`
	// Stopped is when the old process had exited, Started when the new
	// one was started (zero in results written before they were kept),
	// Ready when it answered healthy with its applied index at the
	// leader's commit index of the moment it first answered.
	Stopped time.Time `json:"stopped,omitzero"`
	Started time.Time `json:"started,omitzero"`
	Ready   time.Time `json:"ready"`
	// DownSeconds is from the stop signal to Ready: the member served no
	// client in between.
	DownSeconds float64 `json:"down_seconds"`
	// ClusterUnavailability is what the upgrade's canary saw during the
	// step (linearizable reads every 100 ms): the windows in which no
	// member served. nil: none.
	ClusterUnavailability *Unavailability `json:"cluster_unavailability,omitempty"`
	// ClientErrors are the load's failed requests sent inside the window,
	// counted by the second they were sent in (the run's time series): a
	// second the window only touches counts whole, and a second two
	// steps share counts for the earlier one.
	ClientErrors int64 `json:"client_errors"`
	// ClientUnavailableSeconds is how much of the run's client
	// unavailability (Stats.ClientUnavailability's windows, at 10 ms)
	// falls inside the window.
	ClientUnavailableSeconds float64 `json:"client_unavailable_seconds"`
}

// Window is the step's span, from Began to Ready.
func (s UpgradeStep) Window() (time.Time, time.Time) { return s.Began, s.Ready }

// Windows are the spans in which the move touched the cluster: a
// downgrade's enabling, then each step's window, in order.
func (u *Upgrade) Windows() [][2]time.Time {
	var out [][2]time.Time
	if !u.DowngradeBegan.IsZero() {
		out = append(out, [2]time.Time{u.DowngradeBegan, u.DowngradeEnabled})
	}
	for _, s := range u.Steps {
		b, e := s.Window()
		out = append(out, [2]time.Time{b, e})
	}
	return out
}

// ClusterUnavailableSeconds is the step's cluster unavailability in
// total (0: none).
func (s UpgradeStep) ClusterUnavailableSeconds() float64 {
	if s.ClusterUnavailability == nil {
		return 0
	}
	return s.ClusterUnavailability.TotalSeconds
}

// AttributeClients fills each step's client figures (ClientErrors,
// ClientUnavailableSeconds) and ClientErrorsOutside from the measured
// runs the upgrade happened in: whichever of runs overlap its steps.
// end is when the whole move ended (the zero time: the last step's
// Ready).
func (u *Upgrade) AttributeClients(runs []Run, end time.Time) {
	if len(u.Steps) == 0 {
		return
	}
	if end.IsZero() {
		end = u.Steps[len(u.Steps)-1].Ready
	}
	for i := range u.Steps {
		u.Steps[i].ClientErrors, u.Steps[i].ClientUnavailableSeconds = 0, 0
	}
	u.ClientErrorsOutside = 0
	first := u.Steps[0].Began
	for _, r := range runs {
		for _, s := range r.TimeSeries {
			if s.Errors == 0 {
				continue
			}
			b := time.Unix(s.UnixSecond, 0)
			e := b.Add(time.Second)
			if !e.After(first) || b.After(end) {
				continue
			}
			if i := u.stepAt(b, e); i >= 0 {
				u.Steps[i].ClientErrors += s.Errors
			} else {
				u.ClientErrorsOutside += s.Errors
			}
		}
		if r.ClientUnavailability == nil {
			continue
		}
		for _, w := range r.ClientUnavailability.Windows {
			we := w.Start.Add(time.Duration(w.Seconds * float64(time.Second)))
			for i := range u.Steps {
				u.Steps[i].ClientUnavailableSeconds += overlap(w.Start, we, u.Steps[i].Began, u.Steps[i].Ready).Seconds()
			}
		}
	}
}

// stepAt is the first step whose window overlaps [b, e), -1 for none.
func (u *Upgrade) stepAt(b, e time.Time) int {
	for i, s := range u.Steps {
		if overlap(b, e, s.Began, s.Ready) > 0 || (!s.Began.Before(b) && s.Began.Before(e)) {
			return i
		}
	}
	return -1
}

// overlap is how long [b1, e1] and [b2, e2] share.
func overlap(b1, e1, b2, e2 time.Time) time.Duration {
	b, e := b1, e1
	if b2.After(b) {
		b = b2
	}
	if e2.Before(e) {
		e = e2
	}
	if !e.After(b) {
		return 0
	}
	return e.Sub(b)
}
