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

// TestFoldShortTail: Stop's last scrape, taken soon after a tick, is
// merged into the interval before it instead of making a point of its
// own, and a short interval never counts as the highest CPU interval (its
// CPU time, at 10 ms ticks, is too coarse for its length).
func TestFoldShortTail(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		tail   time.Duration
		points int
		cpuMax float64
	}{
		{300 * time.Millisecond, 3, 0.2},       // short: folded, and 1.5 s of CPU in 0.3 s is not an interval's 5 cores
		{700 * time.Millisecond, 4, 1.5 / 0.7}, // long enough: a point of its own
	} {
		m := &member{interval: time.Second}
		for i := range 4 {
			m.observe(snapshot(t, synthetic(i, 4, -1), t0.Add(time.Duration(i)*time.Second)), nil)
		}
		m.observe(snapshot(t, synthetic(4, 4, -1), t0.Add(3*time.Second+tc.tail)), nil)
		m.foldShortTail()
		ms := m.series()
		if len(ms.Points) != tc.points {
			t.Errorf("tail %s: %d points, want %d", tc.tail, len(ms.Points), tc.points)
		}
		if math.Abs(ms.Summary.CPUCoresMax-tc.cpuMax) > 1e-9 {
			t.Errorf("tail %s: CPU max %g, want %g", tc.tail, ms.Summary.CPUCoresMax, tc.cpuMax)
		}
		last := ms.Points[len(ms.Points)-1]
		if last.UnixMillis != t0.Add(3*time.Second+tc.tail).UnixMilli() {
			t.Errorf("tail %s: the last point ends at %d", tc.tail, last.UnixMillis)
		}
		if want := (0.2*4 + 1.3) / (3 + tc.tail.Seconds()); math.Abs(ms.Summary.CPUCoresMean-want) > 1e-9 {
			t.Errorf("tail %s: CPU mean %g, want %g", tc.tail, ms.Summary.CPUCoresMean, want)
		}
	}
}
