package check

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// scrapes parses recorded scrapes from testdata/issue13 (Prometheus text
// as etcd serves it), one file per member.
func scrapes(t *testing.T, files ...string) []*metrics.Snapshot {
	t.Helper()
	out := make([]*metrics.Snapshot, len(files))
	for i, name := range files {
		f, err := os.Open(filepath.Join("testdata", "issue13", name+".prom"))
		if err != nil {
			t.Fatal(err)
		}
		out[i], err = metrics.Parse("https://10.0.0."+string(rune('1'+i))+":2379/metrics", time.Unix(0, 0), f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestFloorIsALowerBound replays issue 13's field case and its variants:
// a healthy 3-member TLS cluster that served load for minutes, whose
// 1-client probe gave a put p50 of 2.05 ms over 975 puts. testdata/issue13
// holds each member's scrape before and after the probe: about 980 WAL
// fsyncs on each member, most under 1 ms (the interpolated p50 of the
// leader m1 is 0.65 ms), and four prober round trips on m1 (4.8 and 8.1 ms
// to each peer: etcd_network_peer_round_trip_time_seconds p50 6.4 ms). The old floor
// added that 6.4 ms to the fsync p50 and printed "0.3x the floor". The
// floor must never exceed the probe's p50 unless Wrong says the estimate
// is wrong, and say which term exceeded.
func TestFloorIsALowerBound(t *testing.T) {
	t.Parallel()
	probe := result.Run{Stats: result.Stats{Requests: 975, Latency: result.Latency{P50: 0.00205}}}
	names := []string{"https://10.0.0.1:2379", "https://10.0.0.2:2379", "https://10.0.0.3:2379"}
	before := []string{"m1.before", "m2.before", "m3.before"}
	for _, tt := range []struct {
		name     string
		in       floorInput
		after    []string
		floor    float64 // the floor wanted
		fsync    string  // in FsyncFrom
		rtt      string  // in RTTFrom
		wrong    string  // in Wrong ("": no Wrong)
		peerRTT  float64 // PeerRTTP50 wanted
		probeP50 float64 // when not 2.05 ms
	}{
		{name: "issue 13: live TLS cluster, fsyncs under 1 ms", after: []string{"m1.after", "m2.after", "m3.after"},
			floor: 0, fsync: "(0, 1.00 ms] of etcd_disk_wal_fsync_duration_seconds holding fsync 487 of the 980 the leader (https://10.0.0.1:2379)",
			rtt: "no lower bound of the peer round trip", peerRTT: 0.0064},
		{name: "issue 13 on a disk whose fsyncs take 1 to 2 ms", after: []string{"m1.after-slowdisk", "m2.after", "m3.after"},
			floor: 0.001, fsync: "lower edge of the bucket (1.00 ms, 2.00 ms]", rtt: "no lower bound", peerRTT: 0.0064},
		{name: "the leader changed during the probe", after: []string{"m1.after-leaderchange", "m2.after", "m3.after"},
			floor: 0, fsync: "no lower bound: no member whose metrics were read was the leader throughout the probe", peerRTT: 0.0064},
		{name: "the leader's metrics could not be read", after: []string{"", "m2.after", "m3.after"},
			floor: 0, fsync: "no lower bound: no member", peerRTT: 0},
		{name: "local cluster: disk probe p50 below the probe's", in: floorInput{diskP50: 0.0012, loopback: true}, after: []string{"m1.after", "m2.after", "m3.after"},
			floor: 0.0012, fsync: "the disk probe's fdatasync p50", rtt: "loopback", peerRTT: 0.0064},
		{name: "local cluster: disk probe p50 above the probe's", in: floorInput{diskP50: 0.003, loopback: true}, after: []string{"m1.after", "m2.after", "m3.after"},
			floor: 0.003, fsync: "the disk probe's fdatasync p50", rtt: "loopback", peerRTT: 0.0064,
			wrong: "the floor estimate is wrong: the 1-client put p50 (2.05 ms) is below the floor (3.00 ms); the fsync term (3.00 ms, from the disk probe) alone exceeds it; the disk probe measured"},
		{name: "a probe p50 below the leader's bound breaks a premise", after: []string{"m1.after-slowdisk", "m2.after", "m3.after"}, probeP50: 0.0009,
			floor: 0.001, fsync: "lower edge of the bucket (1.00 ms, 2.00 ms]", peerRTT: 0.0064,
			wrong: "the floor estimate is wrong: the 1-client put p50 (900.0 µs) is below the floor (1.00 ms); the fsync term (1.00 ms, from the leader's WAL fsync histogram) alone exceeds it; that bound assumes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := tt.in
			in.probe, in.names = probe, names
			if tt.probeP50 > 0 {
				in.probe.Latency.P50 = tt.probeP50
			}
			in.before = scrapes(t, before...)
			var present []string
			for _, a := range tt.after {
				if a != "" {
					present = append(present, a)
				}
			}
			in.after = scrapes(t, present...)
			if tt.after[0] == "" {
				in.after = append([]*metrics.Snapshot{nil}, in.after...)
			}
			in.first, in.last = in.before, in.after
			f := floor(in)
			if f == nil {
				t.Fatal("no floor")
			}
			if math.Abs(f.FloorSeconds-tt.floor) > 1e-12 || f.FloorSeconds != f.FsyncSeconds+f.RTTSeconds || f.RTTSeconds != 0 {
				t.Errorf("floor %g = fsync %g + rtt %g, want %g", f.FloorSeconds, f.FsyncSeconds, f.RTTSeconds, tt.floor)
			}
			if !strings.Contains(f.FsyncFrom, tt.fsync) || !strings.Contains(f.RTTFrom, tt.rtt) {
				t.Errorf("sources: fsync %q, rtt %q; want %q and %q", f.FsyncFrom, f.RTTFrom, tt.fsync, tt.rtt)
			}
			if tt.wrong == "" {
				if f.FloorSeconds > f.ProbeP50 || f.Wrong != "" {
					t.Errorf("floor %g above the probe's p50 %g (wrong: %q)", f.FloorSeconds, f.ProbeP50, f.Wrong)
				}
				if f.RatioToFloor != 0 && f.RatioToFloor < 1 || (f.FloorSeconds == 0) != (f.RatioToFloor == 0) {
					t.Errorf("ratio %g for floor %g", f.RatioToFloor, f.FloorSeconds)
				}
			} else if !strings.Contains(f.Wrong, tt.wrong) || f.RatioToFloor >= 1 {
				t.Errorf("wrong %q (ratio %g), want %q", f.Wrong, f.RatioToFloor, tt.wrong)
			}
			if math.Abs(f.PeerRTTP50-tt.peerRTT) > 1e-9 || (f.PeerRTTP50 > 0) != strings.Contains(f.PeerRTTFrom, "not part of the floor") {
				t.Errorf("prober RTT %g (%q), want %g", f.PeerRTTP50, f.PeerRTTFrom, tt.peerRTT)
			}
		})
	}
	if floor(floorInput{}) != nil {
		t.Error("a probe without a put has no floor")
	}
}
