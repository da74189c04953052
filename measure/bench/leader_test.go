package bench

import (
	"context"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/result"
)

// unplace hands the leadership to another member after every run, so
// that only PlaceLeader can put it back before the next.
type unplace struct {
	c  *cluster.Cluster
	to string
}

func (u unplace) BeginRun(context.Context, RunInfo) {}
func (u unplace) EndRun(ctx context.Context, _ RunInfo, _ *result.Run, _ error) {
	_ = u.c.MoveLeader(ctx, u.to)
}

// TestPlaceLeader: a cluster started with Leader m3 is led by m3, and a
// bench with PlaceLeader m3 has m3 lead every measured run although the
// leadership is moved to m1 after each; each run records that it held.
// A run during which another member took over says so.
func TestPlaceLeader(t *testing.T) {
	t.Parallel()
	c, _ := foreign(t, cluster.Options{Members: 3, Leader: "m3"})
	ctx := context.Background()
	if l, _ := c.CurrentLeader(ctx); l != "m3" {
		t.Fatalf("started with Leader m3, led by %q", l)
	}
	cfg := baseConfig(c, CmdPut)
	cfg.Prefix, cfg.Iterations = "/placed/", 3
	cfg.Total, cfg.Duration, cfg.Rate = 0, 500*time.Millisecond, 100
	// Observers' EndRuns run in reverse: PlaceLeader records before the
	// leadership is moved away.
	cfg.Observers = []Observer{unplace{c.Cluster, "m1"}, &PlaceLeader{Cluster: c.Cluster, Member: "m3"}}
	doc, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 3 {
		t.Fatalf("%d runs", len(doc.Runs))
	}
	for _, r := range doc.Runs {
		if r.Leader != "m3" || r.LeaderMoved != "" {
			t.Errorf("run %s: leader %q, moved %q", r.Name, r.Leader, r.LeaderMoved)
		}
	}

	// The leadership moved during the run: said so.
	cfg.Iterations = 1
	cfg.Observers = []Observer{&PlaceLeader{Cluster: c.Cluster, Member: "m3"}, unplace{c.Cluster, "m2"}}
	doc, err = Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r := doc.Runs[0]; r.Leader != "m3" || r.LeaderMoved == "" {
		t.Errorf("a run whose leadership moved away: leader %q, moved %q", r.Leader, r.LeaderMoved)
	}
}
