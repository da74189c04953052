package result

import "testing"

// TestQuorumValue: a figure of the cluster is the figure of the member a
// commit waits for (the majority's slowest), and seconds without a leader
// count when a majority lacked one.
func TestQuorumValue(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		vals []float64
		n    int
		q, m float64
	}{{[]float64{3, 1, 2}, 3, 2, 2}, {[]float64{1}, 1, 1, 1}, {[]float64{5, 1}, 3, 5, 1}, {[]float64{1, 2, 3, 4, 5}, 5, 3, 3}, {nil, 3, 0, 0}} {
		if q := quorumValue(tt.vals, tt.n); q != tt.q {
			t.Errorf("quorumValue(%v, %d) = %g, want %g", tt.vals, tt.n, q, tt.q)
		}
		if m := majorityValue(tt.vals, tt.n); m != tt.m {
			t.Errorf("majorityValue(%v, %d) = %g, want %g", tt.vals, tt.n, m, tt.m)
		}
	}
}

// TestMeasurePerMember: slow applies are kept per member per run beside
// their sum, and the peer round-trip buckets as the widest range any
// member observed in any run.
func TestMeasurePerMember(t *testing.T) {
	t.Parallel()
	run := func(slow [3]float64, lo, hi [3]float64) Run {
		r := Run{Stats: Stats{Requests: 100, DurationSeconds: 10}, Server: &Server{}}
		for i := range slow {
			r.Server.Members = append(r.Server.Members, MemberSeries{Name: "m" + string(rune('1'+i)),
				Summary: ServerSummary{SlowApplies: slow[i], PeerRTTLowestBucket: lo[i], PeerRTTHighestBucket: hi[i]}})
		}
		return r
	}
	c := &Cell{Runs: []Run{
		run([3]float64{0, 300, 0}, [3]float64{0.0032, 0.0064, 0}, [3]float64{0.0128, 0.0256, 0}),
		run([3]float64{10, 20, 50}, [3]float64{0.0064, 0.0064, 0.0064}, [3]float64{0.0064, 0.0064, 0.0512}),
	}}
	m := MeasureCell(c)
	for _, x := range []struct {
		what      string
		got, want float64
	}{
		{"sum", m.SlowApplies, 380},
		{"per member per run", m.SlowAppliesPerMemberRun, 380.0 / 6},
		{"one member's most in a run", m.SlowAppliesMemberRunMax, 300},
		{"lowest bucket", m.PeerRTTLowestBucket, 0.0032},
		{"highest bucket", m.PeerRTTHighestBucket, 0.0512},
	} {
		if x.got != x.want {
			t.Errorf("%s: %g, want %g", x.what, x.got, x.want)
		}
	}
}

// TestKubeEtcdBuckets: an emulated control plane's storage requests are
// placed in kube-apiserver's buckets by their fastest and slowest; a real
// control plane's are not measured so.
func TestKubeEtcdBuckets(t *testing.T) {
	t.Parallel()
	kube := func(minS, maxS float64, plane string) Run {
		return Run{Stats: Stats{Requests: 10, Latency: Latency{Min: minS, Max: maxS}}, Kube: &KubeRun{Mode: "manifest", ControlPlane: plane}}
	}
	lo, _ := MetricOf(string(MetricKubeEtcdLowest))
	hi, _ := MetricOf(string(MetricKubeEtcdHighest))
	c := &Cell{Runs: []Run{kube(0.004, 0.02, ""), kube(0.006, 0.3, "")}}
	if v, ok := lo.Of(c, nil); !ok || v != 0.005 {
		t.Errorf("lowest bucket %g, %v; want 0.005", v, ok)
	}
	if v, ok := hi.Of(c, nil); !ok || v != 0.5 {
		t.Errorf("highest bucket %g, %v; want 0.5", v, ok)
	}
	if _, ok := hi.Of(&Cell{Runs: []Run{kube(0.004, 0.02, "real: Kubernetes 1.34.2")}}, nil); ok {
		t.Error("a real control plane's requests placed in buckets from the emulator's latencies")
	}
	if got := BucketOf(90, KubeEtcdRequestBuckets()); got != 60 {
		t.Errorf("above every bound: %g, want the top bound 60", got)
	}
}
