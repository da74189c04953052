package render

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/chromedp"
	"github.com/etcdlab/etcdlab/result"
)

// sizeProbe is a probe of the fixture: figures scale with the multiplier.
func sizeProbe(m float64, holds bool, fsync float64, broke ...string) result.SizeProbe {
	return result.SizeProbe{Multiplier: m, Nodes: int(1000 * m), Pods: int(30000 * m), Churn: 5 * m, Holds: holds, Broke: broke,
		MutatingP99: 0.12 * m, WALFsyncP99: fsync, CommitP99: 0.003 * m, RateWant: 245 * m, RateGot: 245 * m,
		CPUShare: 0.1 * m, DBBytes: float64(1500<<20) * m, Seconds: 90}
}

// sizeFixture is an answer for 1,000 nodes / 30,000 pods with three
// candidates: 3 × 2 cores holds without headroom, 3 × 4 cores holds with
// it (the choice; its largest probe was inconclusive), and 3 × 4 cores on
// a fitted HDD breaks on WAL fsync at the smallest size probed; the round
// trip searched on the choice, and the published sizing beside it.
func sizeFixture() *result.Size {
	small := []result.SizeProbe{sizeProbe(1, true, 0.003), sizeProbe(2, false, 0.004, result.SLOMutatingP99), sizeProbe(1.5, true, 0.0035), sizeProbe(0.5, true, 0.002), sizeProbe(0.25, true, 0.002)}
	for i, share := range []float64{0.78, 1.02, 0.97, 0.39, 0.2} {
		small[i].CPUShare = share
	}
	small[1].MutatingP99 = 1.6
	small[1].Bottleneck = "CPU: the busiest member used 102% of its budget"
	big := []result.SizeProbe{sizeProbe(1, true, 0.002), sizeProbe(2, true, 0.0025), sizeProbe(4, true, 0.003), sizeProbe(8, false, 0.004)}
	for i, share := range []float64{0.41, 0.6, 0.85, 0.9} {
		big[i].CPUShare = share
	}
	big[3].Inconclusive = "the load generator reached 61% of the rate asked, on its own CPU"
	big[3].RateGot = big[3].RateWant * 0.61
	hdd := []result.SizeProbe{sizeProbe(1, false, 0.041, result.SLOWALFsyncP99, result.SLOCommitP99), sizeProbe(0.5, false, 0.032, result.SLOWALFsyncP99), sizeProbe(0.25, false, 0.024, result.SLOWALFsyncP99)}
	for i := range hdd {
		hdd[i].CommitP99 = 0.028 * hdd[i].Multiplier
		hdd[i].CPUShare = 0.3 * hdd[i].Multiplier
		hdd[i].Bottleneck = "disk: WAL fsync p99 above 10 ms"
	}
	// The busiest member's cores are its share of its lab budget.
	for _, ps := range []struct {
		probes []result.SizeProbe
		lab    float64
	}{{small, 0.54}, {big, 1.04}, {hdd, 1.04}} {
		for i := range ps.probes {
			ps.probes[i].MemberCPU = ps.probes[i].CPUShare * ps.lab
		}
	}
	rtt := func(ms float64, holds bool, broke ...string) result.SizeProbe {
		p := sizeProbe(1, holds, 0.002, broke...)
		p.RTTMs, p.CPUShare, p.MemberCPU, p.MutatingP99, p.CommitP99 = ms, 0.41, 0.41*1.04, 0.12+ms*0.012, 0.003+ms*0.0002
		return p
	}
	return &result.Size{
		Target: result.SizeTarget{Nodes: 1000, Pods: 30000, Namespaces: 100, Services: 500, Deployments: 300, APIServers: 3, Watchers: 100, Churn: 5,
			ObjectBytes: map[string]int{"Pod": 15000, "Node": 12000, "Lease": 400, "Event": 1000},
			Sources:     []string{"pods 15 kB: real pods are 10-20 kB (issue 35)", "3 apiservers: a highly available control plane"}},
		Load: result.SizeLoad{WritesPerSecond: 182.4, ReadsPerSecond: 64.7, WatchEventsPerSecond: 547, Watches: 36, Keys: 52300,
			DBBytes: 1500 << 20, DBMethod: "objects + 5 minutes of history between compactions + bbolt's free pages", QuotaBytes: 8 << 30,
			Model: "sizing model (Kubernetes v1.34 defaults)",
			Rates: []result.SizeRate{{Verb: "update", Resource: "leases", PerSecond: 100, Source: "node leases renewed every 10 s"},
				{Verb: "update", Resource: "pods", PerSecond: 40, Source: "pod status writes per lifecycle"},
				{Verb: "create", Resource: "events", PerSecond: 0.25, Source: "kubelet events"}}},
		SLOs: []result.SizeSLO{{Name: result.SLOMutatingP99, Limit: 1, Unit: "s", Source: "Kubernetes SLO: mutating API calls p99 ≤ 1 s"},
			{Name: result.SLOWALFsyncP99, Limit: 0.010, Unit: "s", Source: "etcd FAQ"},
			{Name: result.SLOCommitP99, Limit: 0.025, Unit: "s", Source: "etcd FAQ"},
			{Name: result.SLODBQuota, Limit: 0.8, Unit: "share", Source: "etcd's quota alarm"}},
		Candidates: []result.SizeCandidate{
			{Name: "3x2", Members: 3, CPUs: 2, Disk: "this disk", Scale: 0.25, LabCPUs: 0.54, Holds: true, Knee: 1.5, KneeNodes: 1500,
				BrokeFirst: result.SLOMutatingP99, Why: "CPU: the busiest member used 102% of its budget", Headroom: 0.78, DBBytes: 1500 << 20, DBShare: 0.18, Probes: small},
			{Name: "3x4", Members: 3, CPUs: 4, Disk: "this disk", Scale: 0.25, LabCPUs: 1.04, Holds: true, Knee: 4, KneeNodes: 4000, Above: true,
				Headroom: 0.41, HeadroomOK: true, DBBytes: 1500 << 20, DBShare: 0.18, Probes: big},
			{Name: "3x4-hdd", Members: 3, CPUs: 4, Disk: "fit:hdd", Scale: 0.25, LabCPUs: 1.04, Knee: 0.25, KneeNodes: 250, Below: true,
				BrokeFirst: result.SLOWALFsyncP99, Why: "disk: WAL fsync p99 24 ms at a quarter of the target, 2.4 times the 10 ms limit", Headroom: 0.3, HeadroomOK: true,
				DBBytes: 1500 << 20, DBShare: 0.18, Probes: hdd},
		},
		Choice:    "3x4",
		ChoiceWhy: "3x2 holds but its busiest member uses 78% of its CPU",
		RTT: &result.SizeRTT{Candidate: "3x4", BudgetMs: 60, BrokeMs: 80, BrokeFirst: result.SLOMutatingP99, OpenShiftAvgMs: 33, OpenShiftMaxMs: 66,
			OpenShiftRule: "heartbeat about 1.5 × the round trip with etcd's default 100 ms",
			Probes:        []result.SizeProbe{rtt(0, true), rtt(10, true), rtt(20, true), rtt(40, true), rtt(80, false, result.SLOMutatingP99), rtt(60, true)}},
		Guide: []result.SizeGuide{
			{Source: "etcd hardware guide", Tier: "large", Nodes: 1000, CPUs: 8, MemoryGB: 16, IOPS: 8000, Differs: "half the cores hold here: the guide's tier has no churn or object sizes", Ref: "etcd.io/docs/v3.6/op-guide/hardware"},
			{Source: "OpenShift", Tier: "over 250 workers", Nodes: 250, CPUs: 16, MemoryGB: 64, Differs: "", Ref: "docs.openshift.com control plane sizing"},
		},
		Method: []string{"Knee: the target's multiplier doubled until an SLO broke, then bisected.",
			"Scaled: the load and each member's CPU beyond its idle share times 0.25; measured error at 100, 300 and 1,000 nodes within 12%."},
		MachineCores: 2, LabCores: 3.12, IdleMemberCores: 0.04, Seconds: 2520,
		Notes: []string{"etcd serves one watch per resource per apiserver: the 100 client watches per apiserver are served from its watch cache"},
	}
}

// TestSizeText: the answer leads with the choice, marks bounds and the
// headroom rule, and matches its golden file within 120 columns.
func TestSizeText(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := SizeText(&b, sizeFixture()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Smallest candidate that holds 1,000 nodes / 30,000 pods with headroom: 3x4 (3 × 4 cores, this disk)",
		"≥ 4,000", "≤ 250 nodes", "78% > 60%", "broke first on WAL fsync p99 at 250 nodes (×0.25)",
		"1 of 4 probes were inconclusive", "OpenShift's rule: average round trip < 33 ms, maximum < 66 ms", "| large ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > TermWidth {
			t.Errorf("%d columns: %s", n, l)
		}
	}
	golden(t, "size.txt", b.Bytes())
}

func TestSizeMarkdown(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := SizeMarkdown(&b, sizeFixture()); err != nil {
		t.Fatal(err)
	}
	golden(t, "size.md", b.Bytes())
}

// TestSizeNoneHolds: answers with no choice, no round trip, candidates
// that could not be measured or judged, render in every format without
// panicking and say none holds; an inconclusive probe at the target is no
// hold.
func TestSizeNoneHolds(t *testing.T) {
	t.Parallel()
	inconclusive := sizeProbe(1, false, 0.002)
	inconclusive.Inconclusive = "the load generator was the limit"
	for _, tc := range []struct {
		name string
		s    *result.Size
		want []string
	}{
		{"empty", &result.Size{}, []string{"None holds the target with headroom: none of the 0 candidates", "no candidate was measured", "Round-trip budget:\n  not searched."}},
		{"errored", &result.Size{Target: result.SizeTarget{Nodes: 5000, Pods: 150000}, ChoiceWhy: "no candidate could be measured",
			Candidates: []result.SizeCandidate{{Name: "5x16", Members: 5, CPUs: 16, Disk: "fit:nvme", Error: "5 members of 16 cores do not fit a 2-core machine even scaled"}}},
			[]string{"None holds 5,000 nodes / 150,000 pods with headroom: no candidate could be measured", "not measured", "5x16: not measured: 5 members of 16 cores"}},
		{"inconclusive and below without probes", &result.Size{Target: result.SizeTarget{Profile: "prod.json", Scale: 2},
			Candidates: []result.SizeCandidate{
				{Name: "a", Members: 3, CPUs: 1, Disk: "this disk", Scale: 1, Probes: []result.SizeProbe{inconclusive}},
				{Name: "b", Members: 3, CPUs: 1, Disk: "this disk", Scale: 1, Below: true, BrokeFirst: result.SLOLeader},
			}},
			[]string{"None holds the profile prod.json at scale 2 with headroom", "| unknown", "a: did not hold; the probe at the target judged nothing", "b: broke first on leader changes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var txt, md, html bytes.Buffer
			if err := SizeText(&txt, tc.s); err != nil {
				t.Fatal(err)
			}
			if err := SizeMarkdown(&md, tc.s); err != nil {
				t.Fatal(err)
			}
			if err := SizeHTML(&html, tc.s); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				if !strings.Contains(txt.String(), want) {
					t.Errorf("text has no %q:\n%s", want, txt.String())
				}
			}
			for name, out := range map[string]string{"markdown": md.String(), "html": html.String()} {
				if !strings.Contains(out, "None holds") {
					t.Errorf("%s does not say none holds:\n%s", name, out)
				}
			}
			if strings.Contains(txt.String(), "| yes") {
				t.Errorf("a candidate holds:\n%s", txt.String())
			}
		})
	}
	if err := SizeText(&bytes.Buffer{}, nil); err == nil {
		t.Error("SizeText took no answer")
	}
}

// TestSizeDocument: a size document round-trips through result.Read and
// ReadFile, and Write and Report draw it in each of its formats.
func TestSizeDocument(t *testing.T) {
	t.Parallel()
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindSize, CreatedAt: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Size: sizeFixture()}
	var b bytes.Buffer
	if err := result.Write(&b, doc); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "size.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, doc) {
		t.Errorf("the document changed in a round trip:\n%+v\n%+v", back.Size, doc.Size)
	}
	if f, err := ParseFormat(result.KindSize, "html"); err != nil || f != FormatHTML {
		t.Errorf("size -o html: %q, %v", f, err)
	}
	for _, f := range Formats(result.KindSize) {
		var out bytes.Buffer
		if err := Write(&out, f, back, Options{}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if f != FormatJSON && !strings.Contains(out.String(), "Smallest candidate that holds") {
			t.Errorf("%s has no headline:\n%s", f, out.String())
		}
	}
	docs := []result.Named{named("size.json", back)}
	for _, f := range []Format{FormatHTML, FormatMarkdown} {
		var out bytes.Buffer
		if err := Report(&out, f, docs, judgedNamed(docs)); err != nil {
			t.Fatalf("report %s: %v", f, err)
		}
		for _, want := range []string{"Smallest candidate that holds", "Round-trip budget", "Published sizing for 1,000 nodes"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("report %s has no %q", f, want)
			}
		}
	}
}

// TestSizeHTMLInBrowser opens SizeHTML's page and a report of a size
// document in headless Chromium: no console errors or requests, and a
// knee chart per candidate and the round-trip chart, each drawing its
// four figures.
func TestSizeHTMLInBrowser(t *testing.T) {
	exe := chromiumPath(t)
	dir := t.TempDir()
	profile, scratch := filepath.Join(dir, "profile"), filepath.Join(dir, "tmp")
	if err := os.Mkdir(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 50 {
			if os.RemoveAll(profile) == nil && os.RemoveAll(scratch) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(profile), chromedp.WindowSize(1200, 900), chromedp.Env("TMPDIR="+scratch))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	var page, report bytes.Buffer
	if err := SizeHTML(&page, sizeFixture()); err != nil {
		t.Fatal(err)
	}
	docs := []result.Named{named("size.json", &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindSize, Size: sizeFixture()})}
	if err := HTML(&report, docs, judgedNamed(docs)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		html   []byte
		prefix string
	}{{"size", page.Bytes(), ""}, {"size-report", report.Bytes(), "d0-"}} {
		html := string(tc.html)
		if strings.Contains(html, "<script") {
			t.Errorf("%s: the page has scripts", tc.name)
		}
		for _, want := range []string{"Smallest candidate that holds", ">Candidates<", ">Why<", ">Round-trip budget<", ">Published sizing for 1,000 nodes<", ">Method<", ">SLOs every probe was judged by<", ">Notes<"} {
			if !strings.Contains(html, want) {
				t.Errorf("%s has no %q", tc.name, want)
			}
		}
		path := filepath.Join(dir, tc.name+".html")
		if err := os.WriteFile(path, tc.html, 0o644); err != nil {
			t.Fatal(err)
		}
		figs, problems, shot := openPage(t, actx, "file://"+path)
		if err := os.WriteFile(filepath.Join(dir, tc.name+".png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d charts, screenshot %s", tc.name, len(figs), filepath.Join(dir, tc.name+".png"))
		for _, p := range problems {
			t.Errorf("%s: %s", tc.name, p)
		}
		drawn := map[string]bool{}
		for _, f := range figs {
			drawn[f.ID] = true
			if f.Series != 4 || f.Colours < f.Series {
				t.Errorf("%s: chart %s drew %d of its %d series (%d paths)", tc.name, f.ID, f.Colours, f.Series, f.Paths)
			}
		}
		for _, id := range []string{"size-knee-0", "size-knee-1", "size-knee-2", "size-rtt"} {
			if !drawn[tc.prefix+id] {
				t.Errorf("%s: no chart %s (drawn: %v)", tc.name, tc.prefix+id, drawn)
			}
		}
		if os.Getenv("SIZE_SHOTS") != "" {
			_ = os.WriteFile(filepath.Join(os.Getenv("SIZE_SHOTS"), tc.name+".png"), shot, 0o644)
			_ = os.WriteFile(filepath.Join(os.Getenv("SIZE_SHOTS"), tc.name+".html"), tc.html, 0o644)
		}
	}
}
