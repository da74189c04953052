package doctor

import (
	"context"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/promtest"
	"github.com/etcdlab/etcdlab/result"
)

// TestHistoryFromPrometheus: a real Prometheus scrapes a cluster whose m2
// has a slow disk; doctor --prometheus reads the history and it agrees
// with doctor's own scrapes: the same three members, m2's WAL fsync p99
// past its delay in both, the same leader changes, and
// the history backs m2's disk finding.
func TestHistoryFromPrometheus(t *testing.T) {
	c, cli := slowM2(t, "20ms")
	var targets []string
	for _, ep := range c.Client().Endpoints {
		targets = append(targets, promtest.HostPort(t, ep))
	}
	prom := promtest.Start(t, targets)
	writer(t, cli)
	time.Sleep(8 * time.Second) // history to read
	doc, err := Run(context.Background(), Options{Conn: c.Client(), Window: testWindow, Prometheus: prom, Since: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	recordInput(t, doc)
	h := doc.Doctor.History
	if h == nil || len(h.Instances) != 3 {
		t.Fatalf("history %+v", h)
	}
	var m2 *result.DoctorMember
	for i, m := range doc.Doctor.Members {
		if m.Name == "m2" {
			m2 = &doc.Doctor.Members[i]
		}
	}
	for _, in := range h.Instances {
		if in.Instance != promtest.HostPort(t, m2.MetricsURL) {
			continue
		}
		// Every m2 fsync takes at least 20 ms, so both samplings put its
		// p99 at or above that delay's bucket (16 ms: etcd's buckets
		// double from 1 ms). How far above is the load's: Prometheus'
		// worst window over the last minute and doctor's one window hold
		// different observations, and a loaded machine's stalls make
		// their p99s differ by any factor (seen: 0.354 s against 0.063 s).
		const floor = 0.016
		if w := m2.Metrics.WALFsyncP99; in.WALFsyncP99Max < floor || w < floor {
			t.Fatalf("m2's WAL fsync p99: Prometheus %v, doctor's window %v; every fsync takes 20 ms", in.WALFsyncP99Max, w)
		}
		if in.LeaderChanges != m2.Metrics.LeaderChanges {
			t.Fatalf("leader changes: Prometheus %v, window %v", in.LeaderChanges, m2.Metrics.LeaderChanges)
		}
	}
	f := top(t, doc)
	backed := false
	for _, e := range f.Evidence {
		backed = backed || (len(e) > 11 && e[:11] == "Prometheus:")
	}
	if f.Cause != "disk" || f.Member != "m2" || !backed {
		t.Fatalf("top finding not m2's disk backed by the history:\n%s\n%v", findings(doc), f.Evidence)
	}
}
