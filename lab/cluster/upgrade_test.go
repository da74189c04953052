package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/version"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdbuild"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/result"
)

// oldEtcd and prevEtcd are releases the tests build from etcd's modules
// (once per machine: the cache is shared by every package): 3.5, which
// most clusters run, and the previous minor of the embedded etcd (3.7),
// which the rolling upgrades move from and back to.
const (
	oldEtcd  = "3.5.35"
	prevEtcd = "3.6.16"
)

// builtEtcd builds (or finds in the cache) etcd v and returns its path.
func builtEtcd(t *testing.T, v string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds etcd from its modules")
	}
	ver, _ := etcdbuild.ParseVersion(v)
	ctx, cancel := context.WithTimeout(context.Background(), etcdbuild.BuildTimeout)
	defer cancel()
	p, err := etcdbuild.Builder{Log: testLog{t}}.Binary(ctx, ver)
	if err != nil {
		t.Fatalf("build etcd %s: %v", v, err)
	}
	return p
}

type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) { l.t.Log(string(b)); return len(b), nil }

// request is one write of the load beside an upgrade.
type request struct {
	start, end time.Time
	err        error
}

// loadBeside writes through clients of every member until stop, 1 s per
// request at most, and returns every request.
func loadBeside(t *testing.T, c *Cluster, stop <-chan struct{}) func() []request {
	var mu sync.Mutex
	var reqs []request
	var wg sync.WaitGroup
	for w := range 4 {
		cli := client(t, c.Client())
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				r := request{start: time.Now()}
				_, r.err = cli.Put(ctx, fmt.Sprintf("upgrade/%d/%d", w, n%100), "v")
				r.end = time.Now()
				cancel()
				mu.Lock()
				reqs = append(reqs, r)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	return func() []request { wg.Wait(); return reqs }
}

// checkFailuresInWindows fails t for a failed request that overlaps no
// window of the move, and returns the failures.
func checkFailuresInWindows(t *testing.T, reqs []request, rep *result.Upgrade) (ok, failed int) {
	t.Helper()
	for _, r := range reqs {
		if r.err == nil {
			ok++
			continue
		}
		failed++
		in := false
		for _, w := range rep.Windows() {
			if !r.end.Before(w[0]) && !r.start.After(w[1]) {
				in = true
			}
		}
		if !in {
			t.Errorf("a request from %s to %s failed outside every member's restart window (%s): %s",
				r.start.Format("15:04:05.000"), r.end.Format("15:04:05.000"), windows(rep.Steps), etcdclient.Describe(r.err))
		}
	}
	return ok, failed
}

// lookupLong is the long-running fault called name.
func lookupLong(t *testing.T, name string) LongFault {
	t.Helper()
	f, err := LookupFault(name)
	if err != nil {
		t.Fatal(err)
	}
	lf, ok := f.(LongFault)
	if !ok || !f.About().LongRunning() {
		t.Fatalf("%s is no long-running fault", name)
	}
	return lf
}

func windows(steps []result.UpgradeStep) string {
	s := ""
	for _, st := range steps {
		s += fmt.Sprintf("%s %s-%s ", st.Member, st.Began.Format("15:04:05.000"), st.Ready.Format("15:04:05.000"))
	}
	return s
}

// TestUpgradeUnderLoad: a 3-member etcd 3.6 cluster built from modules
// is upgraded to the embedded etcd (3.7) and downgraded back while clients
// write to it: each member is replaced once per move, the leader last;
// every request succeeds or fails inside a measured restart window; the
// members end on the version asked for, which they report.
func TestUpgradeUnderLoad(t *testing.T) {
	old := builtEtcd(t, prevEtcd)
	c := start(t, Options{Members: 3, Etcd: old})
	if st := c.State(); st.EtcdVersion != prevEtcd {
		t.Fatalf("started on %q, want %s", st.EtcdVersion, prevEtcd)
	}
	ctx := context.Background()
	for _, move := range []struct {
		spec, want string
		downgrade  bool
	}{{"embedded", version.Etcd(), false}, {old, prevEtcd, true}} {
		leader, _ := c.CurrentLeader(ctx)
		stop := make(chan struct{})
		wait := loadBeside(t, c, stop)
		time.Sleep(300 * time.Millisecond)
		// The upgrade as a library call, the downgrade through the fault
		// registry, as experiment timelines run it.
		var rep *result.Upgrade
		var err error
		if move.downgrade {
			var out Outcome
			out, err = lookupLong(t, FaultDowngrade).Run(ctx, c, Request{Args: []string{move.spec}})
			rep = out.Upgrade
		} else {
			rep, err = c.Upgrade(ctx, move.spec)
		}
		time.Sleep(300 * time.Millisecond)
		close(stop)
		reqs := wait()
		if err != nil {
			t.Fatalf("to %s: %v", move.spec, err)
		}
		if rep.Downgrade != move.downgrade || len(rep.Steps) != 3 || move.downgrade == rep.DowngradeBegan.IsZero() {
			t.Fatalf("to %s: downgrade %v, %d steps, want %v and 3", move.spec, rep.Downgrade, len(rep.Steps), move.downgrade)
		}
		last := rep.Steps[2]
		if last.Member != leader || !last.WasLeader || last.HandedTo != rep.Steps[0].Member {
			t.Errorf("to %s: last step %s (was leader %v, handed to %q); the leader was %s, first replaced %s", move.spec, last.Member, last.WasLeader, last.HandedTo, leader, rep.Steps[0].Member)
		}
		for _, s := range rep.Steps {
			if s.To != move.want || !s.Began.Before(s.Stopped) && !s.Began.Equal(s.Stopped) || s.Started.Before(s.Stopped) || s.Ready.Before(s.Started) || s.DownSeconds <= 0 {
				t.Errorf("to %s: step %+v", move.spec, s)
			}
		}
		ok, failed := checkFailuresInWindows(t, reqs, rep)
		t.Logf("to %s: %d requests succeeded, %d failed; %s", move.spec, ok, failed, windows(rep.Steps))
		if ok == 0 {
			t.Fatalf("to %s: no request succeeded", move.spec)
		}
		st := c.State()
		if st.EtcdVersion != move.want {
			t.Errorf("to %s: the state says %q", move.spec, st.EtcdVersion)
		}
		for _, m := range st.Members {
			exe, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(m.PID), "exe"))
			if m.EtcdVersion != move.want || (m.EtcdBinary == old) != (exe == old) {
				t.Errorf("to %s: member %s: version %q, binary %q, runs %s", move.spec, m.Name, m.EtcdVersion, m.EtcdBinary, exe)
			}
		}
		for _, s := range Status(ctx, c.Client(), c.endpointNames()) {
			if s.Version != move.want || !s.Healthy {
				t.Errorf("to %s: %s reports %q (healthy %v: %s)", move.spec, s.Name, s.Version, s.Healthy, s.Error)
			}
		}
	}
}

// TestUpgradeRefusals: what etcd does not support is refused before
// anything is touched, in one line of invalid input.
func TestUpgradeRefusals(t *testing.T) {
	names := []string{"m1", "m2", "m3"}
	all := func(v ...string) []memberEtcd {
		out := make([]memberEtcd, len(v))
		for i := range v {
			out[i] = memberEtcd{version: v[i]}
		}
		return out
	}
	for _, tc := range []struct {
		from      []memberEtcd
		to        string
		downgrade bool
		refused   string
	}{
		{all("3.5.35", "3.5.35", "3.5.35"), "3.6.16", false, ""},
		{all("3.5.35", "3.6.16", "3.6.16"), "3.6.16", false, ""},
		{all("3.6.15", "3.6.15", "3.6.15"), "3.6.16", false, ""},
		{all("3.6.16", "3.6.16", "3.6.16"), "3.5.35", true, ""},
		{all("3.7.3", "3.7.3", "3.7.3"), "3.6.16", true, ""},
		{all("3.4.23", "3.4.23", "3.4.23"), "3.6.16", false, "one minor version at a time"},
		{all("3.5.35", "3.5.35", "3.5.35"), "3.7.3", false, "go through 3.6"},
		{all("3.5.35", "3.5.35", "3.5.35"), "3.4.23", false, "no downgrade to 3.4.23"},
		{all("3.6.16", "3.5.35", "3.6.16"), "3.5.35", false, "finish the move under way"},
		{all("3.6.16", "3.6.16", "3.6.16"), "4.0.0", false, "major version 3 only"},
	} {
		down, err := checkTransition(names, tc.from, tc.to)
		switch {
		case tc.refused == "" && (err != nil || down != tc.downgrade):
			t.Errorf("%v → %s: downgrade %v, %v; want %v, nil", tc.from, tc.to, down, err, tc.downgrade)
		case tc.refused != "" && (!invalid.Is(err) || !strings.Contains(err.Error(), tc.refused)):
			t.Errorf("%v → %s: %v, want invalid input with %q", tc.from, tc.to, err, tc.refused)
		}
	}
}
