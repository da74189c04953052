package experiment

import (
	"context"
	"testing"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
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
