package series

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// synthetic is the text of a member after step scrapes of a made-up run:
// every interval 10 fsyncs in (1, 2] ms, 100 unary Puts (every 7th
// interval 3 of them Unavailable), 0.2 s of CPU except 1.5 s in interval
// spike, and no leader in interval noLeader.
func synthetic(step, spike, noLeader int) []byte {
	cpu, unavailable := 0.0, 0
	for i := 1; i <= step; i++ {
		cpu += 0.2
		if i == spike {
			cpu += 1.3
		}
		if i%7 == 0 {
			unavailable += 3
		}
	}
	hasLeader := 1
	if step == noLeader {
		hasLeader = 0
	}
	return fmt.Appendf(nil, `# TYPE etcd_server_has_leader gauge
etcd_server_has_leader %d
# TYPE etcd_disk_wal_fsync_duration_seconds histogram
etcd_disk_wal_fsync_duration_seconds_bucket{le="0.001"} 0
etcd_disk_wal_fsync_duration_seconds_bucket{le="0.002"} %d
etcd_disk_wal_fsync_duration_seconds_bucket{le="+Inf"} %d
etcd_disk_wal_fsync_duration_seconds_sum 0
etcd_disk_wal_fsync_duration_seconds_count %d
# TYPE grpc_server_handled_total counter
grpc_server_handled_total{grpc_code="OK",grpc_method="Put",grpc_service="etcdserverpb.KV",grpc_type="unary"} %d
grpc_server_handled_total{grpc_code="Unavailable",grpc_method="Put",grpc_service="etcdserverpb.KV",grpc_type="unary"} %d
grpc_server_handled_total{grpc_code="Canceled",grpc_method="Watch",grpc_service="etcdserverpb.Watch",grpc_type="bidi_stream"} %d
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total %g
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.7e9
`, hasLeader, 10*step, 10*step, 10*step, 100*step-unavailable, unavailable, step, cpu)
}

// TestDownsampling: a member scraped more than MaxServerPoints times keeps
// at most MaxServerPoints points, merged pairwise, and merging loses
// nothing: the summary and the points' rates integrate to the same totals
// as the scrapes.
func TestDownsampling(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
	const spike, noLeader = 1234, 2001
	for _, tc := range []struct {
		scrapes     int
		points      int
		per         int // intervals per point, but the last
		downsampled bool
	}{
		{result.MaxServerPoints + 1, result.MaxServerPoints, 1, false}, // as many intervals as points allowed
		// One more: 900 points of 2 intervals and the last one alone.
		{result.MaxServerPoints + 2, result.MaxServerPoints/2 + 1, 2, true},
		// 7199 intervals: halved at 1801 and at 3602 intervals (900 points
		// of 4 and 2 pending); then 1,799 points of 4 and 3 pending.
		{4 * result.MaxServerPoints, result.MaxServerPoints, 4, true},
	} {
		m := &member{interval: time.Second}
		for i := range tc.scrapes {
			m.observe(snapshot(t, synthetic(i, spike, noLeader), t0.Add(time.Duration(i)*time.Second)), nil)
		}
		ms := m.series()
		intervals := float64(tc.scrapes - 1)
		if len(ms.Points) != tc.points || m.downsampled != tc.downsampled {
			t.Errorf("%d scrapes: %d points (downsampled %v), want %d (%v)", tc.scrapes, len(ms.Points), m.downsampled, tc.points, tc.downsampled)
		}
		if len(ms.Points) > result.MaxServerPoints {
			t.Errorf("%d scrapes: %d points, above the bound", tc.scrapes, len(ms.Points))
		}
		// The points' rates times their lengths give back the totals.
		var puts, cpu, prev = 0.0, 0.0, t0
		leaderless := 0.0 // points with an interval without a leader
		for i, p := range ms.Points {
			if !p.HasLeader {
				leaderless++
			}
			at := time.UnixMilli(p.UnixMillis)
			if !at.After(prev) {
				t.Fatalf("point %d at %s is not after %s", i, at, prev)
			}
			d := at.Sub(prev).Seconds()
			if i < len(ms.Points)-1 && d != float64(tc.per) {
				t.Fatalf("%d scrapes: point %d covers %g s, want %d (every point but the last the same)", tc.scrapes, i, d, tc.per)
			}
			puts += p.GRPCPerSecond * d
			cpu += p.CPUCores * d
			prev = at
			if p.WALFsyncP99 <= 0.001 || p.WALFsyncP99 > 0.002 {
				t.Fatalf("point %d: fsync p99 %g outside (1, 2] ms", i, p.WALFsyncP99)
			}
		}
		if !prev.Equal(t0.Add(time.Duration(intervals) * time.Second)) {
			t.Errorf("%d scrapes: last point at %s", tc.scrapes, prev)
		}
		s := ms.Summary
		wantCPU := 0.2*intervals + 1.3*b2f(spike <= int(intervals))
		for _, c := range []struct {
			what      string
			got, want float64
		}{
			{"unary RPCs from the points", puts, 100 * intervals},
			{"unary RPCs", s.GRPCRequests, 100 * intervals},
			{"Unavailable", s.GRPCErrorsByCode["Unavailable"], 3 * math.Floor(intervals/7)},
			{"CPU from the points", cpu, wantCPU},
			{"CPU mean", s.CPUCoresMean, wantCPU / intervals},
			{"CPU max (one interval)", s.CPUCoresMax, 0.2 + 1.3*b2f(spike <= int(intervals))},
			{"fsyncs", s.WALFsyncs, 10 * intervals},
			{"seconds without leader", s.SecondsWithoutLead, b2f(noLeader <= int(intervals))},
			{"points without leader", leaderless, b2f(noLeader <= int(intervals))},
		} {
			if math.Abs(c.got-c.want) > 1e-6*math.Max(1, c.want) {
				t.Errorf("%d scrapes: %s %g, want %g", tc.scrapes, c.what, c.got, c.want)
			}
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestShortIntervals: an interval shorter than half the interval (Stop's
// last scrape soon after a tick, or a tick soon after a slow scrape) is
// merged into the point before it, whose rates then cover both; a burst
// of CPU in it is not lost, nor blown up by its short length.
func TestShortIntervals(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
	at := func(secs ...float64) []time.Time {
		var out []time.Time
		for _, s := range secs {
			out = append(out, t0.Add(time.Duration(s*float64(time.Second))))
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		scrape []time.Time
		spike  int       // the interval (from 1) with 1.3 s more CPU time
		ends   []float64 // the points' ends, seconds after t0
		cpuMax float64
	}{
		{"short last interval, with the burst", at(0, 1, 2, 3, 3.3), 4, []float64{1, 2, 3.3}, 1.7 / 1.3},
		{"last interval long enough", at(0, 1, 2, 3, 3.7), 4, []float64{1, 2, 3, 3.7}, 1.5 / 0.7},
		{"short interval mid-run", at(0, 1, 2, 2.2, 3, 4), 3, []float64{1, 2.2, 3, 4}, 1.7 / 1.2},
		{"only a short interval", at(0, 0.3), 1, []float64{0.3}, 1.5 / 0.3},
	} {
		m := &member{interval: time.Second}
		for i, ts := range tc.scrape {
			m.observe(snapshot(t, synthetic(i, tc.spike, -1), ts), nil)
		}
		ms := m.series()
		var ends []float64
		for _, p := range ms.Points {
			ends = append(ends, float64(p.UnixMillis-t0.UnixMilli())/1000)
		}
		if fmt.Sprint(ends) != fmt.Sprint(tc.ends) {
			t.Errorf("%s: points end at %v, want %v", tc.name, ends, tc.ends)
		}
		if math.Abs(ms.Summary.CPUCoresMax-tc.cpuMax) > 1e-9 {
			t.Errorf("%s: CPU max %g, want %g", tc.name, ms.Summary.CPUCoresMax, tc.cpuMax)
		}
		secs := tc.scrape[len(tc.scrape)-1].Sub(t0).Seconds()
		if want := (0.2*float64(len(tc.scrape)-1) + 1.3) / secs; math.Abs(ms.Summary.CPUCoresMean-want) > 1e-9 {
			t.Errorf("%s: CPU mean %g, want %g", tc.name, ms.Summary.CPUCoresMean, want)
		}
		if ms.Summary.CPUCoresMax < ms.Summary.CPUCoresMean {
			t.Errorf("%s: CPU max %g below the mean %g", tc.name, ms.Summary.CPUCoresMax, ms.Summary.CPUCoresMean)
		}
	}
}
