package topology

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/result"
)

// TmpfsDir is where Storage.Tmpfs puts the cluster's data.
const TmpfsDir = "/dev/shm/etcdlab"

// Emulated reports whether the topology needs an emulated network.
func (t *Topology) Emulated() bool {
	return t.RTT != nil || t.ClientRTT != nil || len(t.Links) > 0
}

// DirLinks resolves the directed links for a cluster of n members: the
// uniform RTT and ClientRTT first, then each Link entry in order (a later
// entry overrides an earlier one for the same direction). Nil when the
// topology emulates no network.
func (t *Topology) DirLinks(n int) (map[wan.Dir]wan.Link, error) {
	if !t.Emulated() {
		return nil, nil
	}
	out := map[wan.Dir]wan.Link{}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("m%d", i+1)
	}
	half := func(d result.Duration) wan.Link { return wan.Link{Delay: d.D() / 2} }
	for i, a := range names {
		if t.RTT != nil {
			for _, b := range names[i+1:] {
				out[wan.Dir{From: a, To: b}] = half(*t.RTT)
				out[wan.Dir{From: b, To: a}] = half(*t.RTT)
			}
		}
		if t.ClientRTT != nil {
			out[wan.Dir{From: cluster.ClientNode, To: a}] = half(*t.ClientRTT)
			out[wan.Dir{From: a, To: cluster.ClientNode}] = half(*t.ClientRTT)
		}
	}
	for i, l := range t.Links {
		dirs, link, err := l.resolve()
		if err != nil {
			return nil, invalid.Errorf("links[%d]: %v", i, err)
		}
		for _, d := range dirs {
			out[d] = link
		}
	}
	return out, nil
}

// resolve turns one Link entry into its directions and parameters.
func (l Link) resolve() ([]wan.Dir, wan.Link, error) {
	var dirs []wan.Dir
	switch {
	case len(l.Between) > 0 && (l.From != "" || l.To != ""):
		return nil, wan.Link{}, invalid.Errorf("give either between or from/to, not both")
	case len(l.Between) > 0:
		if len(l.Between) != 2 {
			return nil, wan.Link{}, invalid.Errorf("between needs exactly two ends, not %d", len(l.Between))
		}
		a, b := l.Between[0], l.Between[1]
		dirs = []wan.Dir{{From: a, To: b}, {From: b, To: a}}
	case l.From != "" && l.To != "":
		if l.RTT != 0 {
			return nil, wan.Link{}, invalid.Errorf("%s->%s: rtt needs both directions (between); use delay for one", l.From, l.To)
		}
		dirs = []wan.Dir{{From: l.From, To: l.To}}
	default:
		return nil, wan.Link{}, invalid.Errorf("a link needs between: [a, b] or from and to")
	}
	if l.RTT != 0 && l.Delay != 0 {
		return nil, wan.Link{}, invalid.Errorf("give either rtt or delay, not both")
	}
	if l.RTT < 0 {
		return nil, wan.Link{}, invalid.Errorf("rtt %v is negative", l.RTT.D())
	}
	link := wan.Link{Delay: l.Delay.D(), Jitter: l.Jitter.D(), Loss: l.Loss}
	if l.RTT != 0 {
		link.Delay = l.RTT.D() / 2
	}
	if l.Bandwidth != "" {
		r, err := ParseRate(l.Bandwidth)
		if err != nil {
			return nil, wan.Link{}, err
		}
		link.Rate = r
	}
	if err := link.Validate(); err != nil {
		return nil, wan.Link{}, invalid.Errorf("%v", err)
	}
	return dirs, link, nil
}

// MaxRTT is the largest member-to-member round trip in links.
func MaxRTT(links map[wan.Dir]wan.Link) time.Duration {
	var m time.Duration
	for d, l := range links {
		if d.From == cluster.ClientNode || d.To == cluster.ClientNode {
			continue
		}
		back := links[wan.Dir{From: d.To, To: d.From}]
		m = max(m, l.Delay+l.Jitter+back.Delay+back.Jitter)
	}
	return m
}

// CommitRTT is, for each member as the leader, the emulated round trip a
// write's commit waits for: the leader needs acknowledgements from a
// majority counting itself, so it waits for the (quorum-1)-th fastest
// follower, whose round trip is the link's delay out plus the delay back
// (jitter left out: it spreads latencies, not their centre). names are the
// members; nil when links emulate no member-to-member delay.
func CommitRTT(links map[wan.Dir]wan.Link, names []string) map[string]time.Duration {
	if len(names) < 2 {
		return nil
	}
	out := make(map[string]time.Duration, len(names))
	var delayed bool
	for _, leader := range names {
		var rtts []time.Duration
		for _, f := range names {
			if f == leader {
				continue
			}
			rtt := links[wan.Dir{From: leader, To: f}].Delay + links[wan.Dir{From: f, To: leader}].Delay
			delayed = delayed || rtt > 0
			rtts = append(rtts, rtt)
		}
		slices.Sort(rtts)
		out[leader] = rtts[len(names)/2+1-2] // quorum n/2+1, less the leader, 0-based
	}
	if !delayed {
		return nil
	}
	return out
}

// WriteRTT is, for each member as the leader, the emulated round trips a
// client's write waits for when its connections go to endpoints (member
// names, one per connection): the client to the endpoint, a follower
// endpoint forwarding to the leader, and the leader's commit round trip
// (CommitRTT), averaged over the connections. nil when links emulate no
// delay a write would wait for.
func WriteRTT(links map[wan.Dir]wan.Link, names, endpoints []string) map[string]time.Duration {
	if len(endpoints) == 0 {
		return nil
	}
	rtt := func(a, b string) time.Duration {
		return links[wan.Dir{From: a, To: b}].Delay + links[wan.Dir{From: b, To: a}].Delay
	}
	commit := CommitRTT(links, names)
	out := make(map[string]time.Duration, len(names))
	var delayed bool
	for _, leader := range names {
		var sum time.Duration
		for _, e := range endpoints {
			sum += rtt(cluster.ClientNode, e) + commit[leader]
			if e != leader {
				sum += rtt(e, leader)
			}
		}
		out[leader] = sum / time.Duration(len(endpoints))
		delayed = delayed || out[leader] > 0
	}
	if !delayed {
		return nil
	}
	return out
}

// Tuned returns heartbeat and election timeout (ms) for a largest round
// trip, after the etcd tuning guide: heartbeat about the RTT (never below
// etcd's 100 ms default), election timeout at least ten RTTs (never below
// 1000 ms) and at least five heartbeats.
func Tuned(maxRTT time.Duration) (heartbeatMs, electionMs uint) {
	rtt := uint(math.Ceil(float64(maxRTT) / float64(time.Millisecond)))
	heartbeatMs = max(100, rtt)
	electionMs = max(1000, 10*rtt, 5*heartbeatMs)
	return heartbeatMs, electionMs
}

// Apply sets what the topology asks for on o: members (if given), links,
// storage and tuning. The heartbeat and election timeout already in o are
// kept when keepHeartbeat and keepElection say so (flags a person typed
// win). Its errors are invalid-input errors (package invalid).
func (t *Topology) Apply(o *cluster.Options, keepHeartbeat, keepElection bool) error {
	if t.Members < 0 || t.Members > cluster.MaxMembers {
		return invalid.Errorf("members: %d is not between %d and %d", t.Members, cluster.MinMembers, cluster.MaxMembers)
	}
	if t.Members > 0 {
		o.Members = t.Members
	}
	links, err := t.DirLinks(o.Members)
	if err != nil {
		return err
	}
	if links != nil {
		o.Links = links
	}
	s := t.Storage
	for _, f := range []struct {
		field, spec string
		to          **slowfs.Delay
	}{{"fsync_delay", s.FsyncDelay, &o.FsyncDelay}, {"read_delay", s.ReadDelay, &o.ReadDelay}, {"write_delay", s.WriteDelay, &o.WriteDelay}} {
		if f.spec == "" {
			continue
		}
		d, err := slowfs.ParseDelayIn(f.spec, t.Dir)
		if err != nil {
			return invalid.Errorf("storage.%s: %v", f.field, err)
		}
		*f.to = d
	}
	o.FsyncWALOnly = o.FsyncWALOnly || s.WALOnly
	switch s.FsyncBy {
	case "":
	case cluster.FsyncByFUSE, cluster.FsyncBySeccomp:
		o.FsyncBy = s.FsyncBy
	default:
		return invalid.Errorf("storage.fsync_by: %q is not %q or %q", s.FsyncBy, cluster.FsyncByFUSE, cluster.FsyncBySeccomp)
	}
	for name, m := range s.Members {
		if m.FsyncDelay == "" {
			continue
		}
		d, err := slowfs.ParseDelayIn(m.FsyncDelay, t.Dir)
		if err != nil {
			return invalid.Errorf("storage.members.%s.fsync_delay: %v", name, err)
		}
		if o.MemberFsyncDelay == nil {
			o.MemberFsyncDelay = map[string]*slowfs.Delay{}
		}
		o.MemberFsyncDelay[name] = d
	}
	if s.Tmpfs {
		if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
			return invalid.Errorf("storage.tmpfs: /dev/shm is not available")
		}
		o.BaseDir = TmpfsDir
	}
	if t.CPUs != 0 {
		o.CPUs = t.CPUs
	}
	if len(t.MemberCPUs) > 0 && o.MemberCPUs == nil {
		o.MemberCPUs = map[string]float64{}
	}
	maps.Copy(o.MemberCPUs, t.MemberCPUs)
	if t.Etcd.Version != "" && o.Etcd == "" { // --etcd wins
		o.Etcd = EtcdIn(t.Etcd.Version, t.Dir)
	}
	for name, v := range t.Etcd.Members {
		if o.MemberEtcd == nil {
			o.MemberEtcd = map[string]string{}
		}
		o.MemberEtcd[name] = EtcdIn(v, t.Dir)
	}
	hb, el := t.Etcd.HeartbeatMs, t.Etcd.ElectionMs
	if !t.Etcd.Defaults {
		thb, tel := Tuned(MaxRTT(o.Links))
		if hb == 0 {
			hb = thb
		}
		if el == 0 {
			el = max(tel, 5*hb)
		}
	}
	if !keepHeartbeat && hb != 0 {
		o.Tuning.HeartbeatMs = hb
	}
	if !keepElection && el != 0 {
		o.Tuning.ElectionMs = el
	}
	return nil
}

// EtcdIn is an etcd spec read from a file in dir: a relative binary path
// is taken from dir; a version (no slash) stays as it is.
func EtcdIn(spec, dir string) string {
	if dir == "" || !strings.Contains(spec, "/") || filepath.IsAbs(spec) {
		return spec
	}
	return filepath.Join(dir, spec)
}
