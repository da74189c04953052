package experiment

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBuiltins: every built-in experiment parses, names its source (a
// field report, or the issue that asked for it), plans
// under every profile, and its quick profile is sized as issue 14 asks
// (estimated: storage-sweep under 10 minutes, leader-vs-all under 5).
func TestBuiltins(t *testing.T) {
	t.Parallel()
	want := []string{"disk-qualification", "distance-sweep", "hdd-diagnosis", "incidents", "leader-vs-all", "maintenance", "multicloud", "replay", "sizing", "storage-sweep", "upgrade", "versions"}
	if got := Builtins(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("built-ins %v, want %v", got, want)
	}
	// sizing's size job is not in measure/jobs' registry (its probes run
	// the experiment runner, which this package's tests cannot import
	// through it): measure/sizejob's TestSizingBuiltin checks it alike,
	// its quick profile under 15 minutes.
	want = slices.DeleteFunc(want, func(n string) bool { return n == "sizing" })
	quickUnder := map[string]time.Duration{"storage-sweep": 10 * time.Minute, "leader-vs-all": 5 * time.Minute, "multicloud": 5 * time.Minute,
		"incidents": 10 * time.Minute, "distance-sweep": 10 * time.Minute, "upgrade": 5 * time.Minute, "versions": 10 * time.Minute, "replay": 10 * time.Minute, "maintenance": 10 * time.Minute}
	for _, name := range want {
		s, err := loadSpec(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sourced := strings.HasPrefix(s.Source, "field report 00") || strings.HasPrefix(s.Source, "issue ")
		if s.Name != name || s.Title == "" || !sourced {
			t.Errorf("%s: name %q, title %q, source %q", name, s.Name, s.Title, s.Source)
		}
		names := s.ProfileNames()
		if !slices.Contains(names, "full") || !slices.Contains(names, "quick") {
			t.Errorf("%s: profiles %v, want full and quick", name, names)
		}
		for _, p := range names {
			if _, err := s.Plan(p); err != nil {
				t.Errorf("%s --profile %s: %v", name, p, err)
			}
		}
		full, err := s.Plan("full")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		quick, err := s.Plan("quick")
		if err != nil {
			t.Fatalf("%s quick: %v", name, err)
		}
		if quick.Estimate() > full.Estimate() {
			t.Errorf("%s: quick (%s) is longer than full (%s)", name, quick.Estimate(), full.Estimate())
		}
		if limit, ok := quickUnder[name]; ok && quick.Estimate()-quick.Builds > limit {
			t.Errorf("%s --quick is estimated at %s (builds of uncached etcd versions left out), over %s", name, quick.Estimate()-quick.Builds, limit)
		}
	}
}

// TestBuiltinParameters pins the articles' parameters the built-ins must
// keep in their full profiles.
func TestBuiltinParameters(t *testing.T) {
	t.Parallel()
	plan := func(name, profile string) *Plan {
		s, err := loadSpec(name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Plan(profile)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// 000: the article's command verbatim, over TLS, on the four presets.
	// And the Kubernetes test: the manifest, 10 runs per scenario.
	mc := plan("multicloud", "full")
	if len(mc.Cells) != 8 {
		t.Fatalf("multicloud: %d cells", len(mc.Cells))
	}
	for i, c := range mc.Cells {
		cfg := benchOf(&c).Config
		if c.Setup.Topology != "multicloud-"+string(rune('0'+i/2)) || !c.Setup.TLS || c.Setup.Leader != "m2" {
			t.Errorf("multicloud cell %s: setup %+v", c.ID, c.Setup)
		}
		if i%2 == 1 {
			k := cfg.Kube
			if cfg.Command != "kube" || k.Deployments != 10 || k.Replicas != 50 || !k.Services || k.Nodes != 6 || cfg.Iterations != 10 {
				t.Errorf("multicloud cell %s: %+v", c.ID, cfg)
			}
			continue
		}
		if !cfg.TargetLeader || cfg.Conns[0] != 1 || cfg.Clients[0] != 1 ||
			cfg.KeySize != 8 || !cfg.SequentialKeys || cfg.Total != 10000 || cfg.ValSize != 256 {
			t.Errorf("multicloud cell %s: %+v", c.ID, cfg)
		}
	}
	pub := map[string]float64{}
	for _, p := range mc.Published {
		if p.Match["setup"] == "multicloud-0" {
			pub[p.Metric] = p.Value
		}
		if p.Metric == "time_to_ready_seconds" {
			pub[p.Match["setup"]] = p.Value
		}
	}
	if pub["multicloud-0"] != 66.1 || pub["multicloud-1"] != 69.8 || pub["multicloud-2"] != 82.9 || pub["multicloud-3"] != 128.9 {
		t.Errorf("multicloud's times to Ready: %v", pub)
	}
	if pub["throughput_rps"] != 196.5 || pub["p50_seconds"] != 0.0049 || pub["p99_seconds"] != 0.0089 {
		t.Errorf("multicloud published: %v", pub)
	}
	for _, p := range mc.Published {
		if p.Metric == "total_seconds" && p.Requests != 10000 {
			t.Errorf("the article's total time is for 10,000 puts, not %d", p.Requests)
		}
	}
	if c := mc.Spec.Compare; len(c) != 1 || c[0] != (Comparison{Along: "setup", Base: "multicloud-0"}) {
		t.Errorf("multicloud compares %v, want each scenario against scenario 0", c)
	}
	// 002: 100,000 keys, 100 conns, 1,000 clients, 20 + 20 iterations,
	// each mode on members with budgets of their own, 1:2 as 4 and 8 vCPU,
	// on the article's etcd 3.5 at 0.1 to 0.4 cores and today's at 0.2 and
	// 0.4, never more than this machine's 2 cores with the load's.
	la := plan("leader-vs-all", "full")
	if len(la.Cells) != 12 {
		t.Fatalf("leader-vs-all: %d cells", len(la.Cells))
	}
	budgets := map[string]float64{}
	for _, c := range la.Cells {
		cfg := benchOf(&c).Config
		if cfg.Total != 100000 || cfg.KeySpaceSize != 100000 || cfg.Conns[0] != 100 || cfg.Clients[0] != 1000 || cfg.Iterations != 20 ||
			cfg.Warmup != "2000000" || cfg.TargetLeader != (c.Workload.Name == "leader") {
			t.Errorf("leader-vs-all cell %s: %+v", c.ID, cfg)
		}
		if 3*c.Setup.CPUs+c.Setup.LoadCPUs > 2 {
			t.Errorf("leader-vs-all cell %s: 3 × %g + %g cores is more than this machine's 2", c.ID, c.Setup.CPUs, c.Setup.LoadCPUs)
		}
		budgets[c.Params["etcd"]+"@"+c.Params["member_cores"]] = c.Setup.CPUs
		if (c.Params["etcd"] == "3.5") != (c.Setup.Etcd.Version == "3.5.35") {
			t.Errorf("leader-vs-all cell %s: etcd %q, params %v", c.ID, c.Setup.Etcd.Version, c.Params)
		}
	}
	if want := map[string]float64{"3.5@0.1": 0.1, "3.5@0.2": 0.2, "3.5@0.3": 0.3, "3.5@0.4": 0.4, "embedded@0.2": 0.2, "embedded@0.4": 0.4}; !maps.Equal(budgets, want) {
		t.Errorf("leader-vs-all budgets %v, want %v", budgets, want)
	}
	// The article's figures are 3.5's: 4 vCPU against 0.2 cores, 8
	// against 0.4.
	for _, p := range la.Published {
		cores := "0.4"
		if strings.Contains(p.Note, "4 vCPU") {
			cores = "0.2"
		}
		if st := la.Spec.setup(p.Match["setup"]); st == nil || st.Etcd.Version != "3.5.35" || st.Params["member_cores"] != cores {
			t.Errorf("leader-vs-all: the article's %s %s (%s) is matched with %v", p.Series, p.Metric, p.Note, p.Match)
		}
	}
	if c := la.Spec.Compare; len(c) != 3 || c[0] != (Comparison{Along: "workload", Base: "leader"}) || c[1] != (Comparison{Along: "member_cores", Base: "0.2"}) || c[2] != (Comparison{Along: "etcd", Base: "3.5"}) {
		t.Errorf("leader-vs-all compares %v", c)
	}
	// 004: 100 to 50,000 clients at 50 connections on five storages, one
	// member on a budget of its own.
	ss := plan("storage-sweep", "full")
	clients := map[int]bool{}
	storages := map[string]bool{}
	for _, c := range ss.Cells {
		clients[benchOf(&c).Config.Clients[0]] = true
		storages[c.Setup.Name] = true
		if benchOf(&c).Config.Conns[0] != 50 || c.Setup.Members != 1 || c.Setup.CPUs <= 0 {
			t.Errorf("storage-sweep cell %s: %d conns, %d members, %g cores", c.ID, benchOf(&c).Config.Conns[0], c.Setup.Members, c.Setup.CPUs)
		}
	}
	// Enough requests per client at every point: 10 each down to the
	// 2,800 req/s the file states, and a request timeout above the queue's
	// wait at 4,000 req/s (clients / throughput).
	for _, c := range ss.Cells {
		cfg := benchOf(&c).Config
		n := float64(cfg.Clients[0])
		if per := cfg.Duration.Seconds() * 2800 / n; per < 10 {
			t.Errorf("storage-sweep cell %s: %.1f requests per client at 2,800 req/s", c.ID, per)
		}
		if wait := n / 4000; cfg.RequestTimeout.Seconds() < 2*wait {
			t.Errorf("storage-sweep cell %s: request timeout %v against a %.1f s wait in the queue", c.ID, cfg.RequestTimeout, wait)
		}
	}
	if !clients[100] || !clients[50000] || len(storages) != 5 {
		t.Errorf("storage-sweep: clients %v, storages %v", clients, storages)
	}
	// The distance sweep: 0 to 100 ms between members crossed with
	// memory, the SSD class and the HDD class, the article's 1-client put,
	// 100 clients and kube at each, its knee along rtt_ms with the
	// article's 600 km marked (17.6 ms in the presets' model); quick: memory
	// and the HDD at three distances.
	ds := plan("distance-sweep", "full")
	rtts := map[string]bool{}
	dsStorages := map[string]string{}
	for _, c := range ds.Cells {
		rtts[c.Params["rtt_ms"]] = true
		st, _ := c.Setup.TopologySpec["storage"].(map[string]any)
		dsStorages[c.Params["storage"]] = fmt.Sprint(st)
		if c.Setup.Leader != "m1" {
			t.Errorf("distance-sweep cell %s: leader %q", c.ID, c.Setup.Leader)
		}
		if c.Workload.Name == "put-1-client" {
			cfg := benchOf(&c).Config
			if !cfg.TargetLeader || cfg.Conns[0] != 1 || cfg.Clients[0] != 1 || cfg.KeySize != 8 || !cfg.SequentialKeys || cfg.Total != 10000 || cfg.ValSize != 256 {
				t.Errorf("distance-sweep cell %s is not the article's put: %+v", c.ID, cfg)
			}
		}
	}
	wantStorage := map[string]string{"memory": "map[tmpfs:true]", "ssd": "map[fsync_delay:lognormal:p50=250us,p99=500us]", "hdd": "map[fsync_delay:lognormal:p50=23ms,p99=268ms]"}
	if len(ds.Cells) != 72 || len(rtts) != 8 || !rtts["0"] || !rtts["17.6"] || !rtts["100"] || ds.Spec.Knee != "rtt_ms" || !maps.Equal(dsStorages, wantStorage) {
		t.Errorf("distance-sweep: %d cells, rtts %v, storages %v, knee %q", len(ds.Cells), rtts, dsStorages, ds.Spec.Knee)
	}
	// The presets' km model (docs/topologies.md): 2 ms across providers
	// + 0.026 ms per km.
	if m := ds.Spec.Marks; len(m) != 1 || m[0].Param != "rtt_ms" || math.Abs(m[0].At-(2+0.026*600)) > 1e-9 {
		t.Errorf("distance-sweep marks %+v, want the article's 600 km at 17.6 ms", m)
	}
	dq := plan("distance-sweep", "quick")
	quickStorages := map[string]bool{}
	for _, c := range dq.Cells {
		quickStorages[c.Params["storage"]] = true
	}
	if len(dq.Cells) != 18 || len(quickStorages) != 2 || !quickStorages["hdd"] {
		t.Errorf("distance-sweep quick: %d cells on %v", len(dq.Cells), quickStorages)
	}
	// The rolling upgrade: 3 members from 3.5 under an open-loop load in
	// this process (no load_cpus, which refuses timelines), upgraded one
	// minor at a time while the measured run lasts.
	for _, profile := range []string{"full", "quick"} {
		up := plan("upgrade", profile)
		if len(up.Cells) != 1 {
			t.Fatalf("upgrade %s: %d cells", profile, len(up.Cells))
		}
		c := up.Cells[0]
		var steps []string
		for _, f := range up.Spec.Faults {
			steps = append(steps, f.Describe())
		}
		if c.Setup.Members != 3 || c.Setup.Etcd.Version != "3.5.35" || c.Setup.LoadCPUs != 0 || benchOf(&c).Config.Rate <= 0 ||
			strings.Join(steps, "; ") != "at 10s upgrade 3.6.16; at 45s upgrade 3.7.3" || benchOf(&c).Config.Duration < 70*time.Second {
			t.Errorf("upgrade %s: setup %+v, rate %g for %s, steps %q", profile, c.Setup, benchOf(&c).Config.Rate, benchOf(&c).Config.Duration, steps)
		}
	}
	// The versions: the same three workloads on 3.4 (Debian's binary),
	// 3.5, 3.6 and 3.7, every member on the same budget, against 3.5.
	vs := plan("versions", "full")
	versions := map[string]string{}
	for _, c := range vs.Cells {
		versions[c.Setup.Name] = c.Setup.Etcd.Version
		if c.Setup.CPUs != 0.4 || c.Setup.LoadCPUs != 0.8 || c.Setup.Members != 3 || c.Setup.Storage != StorageTmpfs {
			t.Errorf("versions cell %s: setup %+v", c.ID, c.Setup)
		}
	}
	want := map[string]string{"etcd-3.4": "/usr/bin/etcd", "etcd-3.5": "3.5.35", "etcd-3.6": "3.6.16", "etcd-3.7": "3.7.3"}
	if len(vs.Cells) != 12 || !maps.Equal(versions, want) || len(vs.Spec.Compare) != 1 || vs.Spec.Compare[0].Base != "etcd-3.5" {
		t.Errorf("versions: %d cells, versions %v, compare %+v", len(vs.Cells), versions, vs.Spec.Compare)
	}
}
