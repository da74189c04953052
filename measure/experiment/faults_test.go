package experiment

import (
	"context"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/result"
)

// TestTimelineTracksFaults runs a timeline on a 3-member cluster: a
// follower paused, then "follower" again is the other one (a faulted
// member is no follower to fault), then none is left; finishing a reused
// cluster's timeline resumes the paused member and restarts the killed one.
func TestTimelineTracksFaults(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, cluster.Options{Members: 3}).Cluster
	tl := newTimeline(c, []Fault{{Actions: map[string]string{"pause": "follower"}}, {Actions: map[string]string{"kill": "follower"}}, {Actions: map[string]string{"partition": "follower"}}})
	tl.start(context.Background())
	<-tl.done // every step was due at once
	events := tl.finish(true)
	if len(events) != 3 {
		t.Fatalf("events %+v", events)
	}
	paused, killed, none := events[0], events[1], events[2]
	if paused.Action != "pause" || paused.Error != "" || killed.Action != "kill" || killed.Error != "" ||
		paused.Target == killed.Target || paused.Detail != "a follower" || killed.Detail != "a follower" {
		t.Errorf("pause %+v, kill %+v: want two followers", paused, killed)
	}
	if none.Action != "partition" || none.Error != "no follower left to fault" {
		t.Errorf("third fault %+v: want no follower left", none)
	}
	if got := c.Counts().Faults; got[cluster.FaultResume] != 1 || got[cluster.FaultRestart] != 1 {
		t.Errorf("finish undid %v: want the paused member resumed and the killed one restarted", got)
	}
}

// TestTimelineClusterFaults: a fault of the cluster's own (compact) is a
// timeline step with "cluster" as its target and its arguments after it;
// its event holds the maintenance record; naming a member instead, or a
// bad argument, is refused with one line.
func TestTimelineClusterFaults(t *testing.T) {
	t.Parallel()
	ok := "setups: [{name: one, members: 1}]\nworkloads: [{name: put, bench: put --total=10}]\nfaults: [{at: 0s, compact: cluster keep=5}, {at: 0s, alarm-disarm: cluster}]\n"
	if _, err := parseSpec("x.yaml", []byte(ok)); err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct{ faults, want string }{
		{"[{at: 0s, compact: m1}]", "compact is the cluster's, not a member's: write compact: cluster"},
		{"[{at: 0s, compact: cluster keep=x}]", "keep="},
		{"[{at: 0s, compact: cluster, for: 5s}]", "compact has no undo"},
	} {
		text := "setups: [{name: one, members: 1}]\nworkloads: [{name: put, bench: put --total=10}]\nfaults: " + b.faults + "\n"
		_, err := parseSpec("x.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), b.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", b.faults, err, b.want)
		}
	}
	tc := clustertest.Start(t, cluster.Options{Members: 1})
	c := tc.Cluster
	for range 20 {
		if _, err := tc.KV().Put(context.Background(), "k", "v"); err != nil {
			t.Fatal(err)
		}
	}
	tl := newTimeline(c, []Fault{{Actions: map[string]string{"compact": "cluster keep=5"}}})
	tl.start(context.Background())
	<-tl.done
	events := tl.finish(true) // waits for the long fault
	if len(events) != 1 || events[0].Error != "" || events[0].Target != "cluster" || events[0].Maintenance == nil ||
		events[0].Maintenance.Op != result.OpCompact || events[0].Maintenance.Revision < 15 {
		t.Fatalf("events %+v", events)
	}
}
