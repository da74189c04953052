package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/etcdlab/etcdlab/result"
)

// chromiumPath finds Debian's chromium; CI installs it, so its absence
// fails there and skips elsewhere.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed (.ci/run installs Debian's chromium)")
	}
	t.Skip("chromium is not installed")
	return ""
}

// figure is what the page reports about one chart.
type figure struct {
	ID      string `json:"id"`
	Series  int    `json:"series"`
	Colours int    `json:"colours"` // distinct series colours drawn in its SVG
	Paths   int    `json:"paths"`
}

// TestHTMLInBrowser renders a bench sweep, a disk result and a comparison,
// opens each in headless Chromium, and checks: no console errors, no
// network request besides the file itself, and every chart drew each of
// its series (each series has its own colour, which must appear in the
// chart's SVG paths). Screenshots go to the test's temp dir.
func TestHTMLInBrowser(t *testing.T) {
	exe := chromiumPath(t)
	dir := t.TempDir()
	// Chromium's profile and scratch files live in dir too. Its helper
	// processes may still write there for a moment after the browser is
	// gone, so remove them (retrying) before the temp dir's own cleanup.
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
	cases := []struct {
		name     string
		docs     []result.Named
		sections []string // headings the page must have
		charts   []string // chart IDs it must draw
	}{
		{"sweep", []result.Named{named("sweep.json", sweepFixture(t, 1))}, nil, nil},
		{"disk", []result.Named{named("disk.json", diskFixture())}, nil, nil},
		{"comparison", []result.Named{named("m5.json", sweepFixture(t, 1)), named("m6g.json", sweepFixture(t, 0.8))}, nil, nil},
		{"check", []result.Named{named("check", checkFixture(t))},
			[]string{"Disk probe", "Load levels", "Server metrics over the check", "Latency floor", "Thresholds", "fdatasync latency percentiles"}, nil},
		{"doctor", []result.Named{named("doctor.json", doctorFixture())},
			[]string{"Diagnosis", "Members", "Keyspace at revision 42", "Logs (100 lines, 0 in no known format)"},
			[]string{"d0-doctor-disk", "d0-doctor-reads"}},
		{"experiment-storage", []result.Named{named("storage.json", storageSweep())},
			[]string{"Bottlenecks", "Cells", "The article's figures beside ours", "slowdisk against tmpfs (setup)", "Warnings"},
			[]string{"d0-exp-throughput", "d0-exp-p99", "d0-exp-cpu", "d0-exp-disk", "d0-exp-fsync", "d0-exp-cell1-health", "d0-exp-cell1-requests"}},
		{"experiment-multicloud", []result.Named{named("multicloud.json", multicloud())},
			[]string{"Bottlenecks", "The article's figures beside ours"},
			[]string{"d0-exp-throughput", "d0-exp-p50", "d0-exp-distribution", "d0-exp-cell3-rtt", "d0-exp-cell3-slow-applies", "d0-exp-cell0-health"}},
		{"experiment-comparison", []result.Named{named("m5.json", leaderVsAll(1)), named("m6g.json", leaderVsAll(1.12))},
			[]string{"all against leader (workload)", "m6g.json against m5.json"},
			[]string{"d0-exp-throughput", "d1-exp-throughput", "cmp-exp-throughput", "cmp-exp-p99"}},
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(profile), chromedp.WindowSize(1200, 900),
		// Chromium's own scratch directories (org.chromium.Chromium.*) go in
		// the test's temp dir, so a browser that dies leaves nothing in /tmp.
		chromedp.Env("TMPDIR="+scratch))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	for _, tc := range cases {
		var b bytes.Buffer
		if err := HTML(&b, tc.docs, judgedNamed(tc.docs)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		html := b.String()
		for _, section := range tc.sections {
			if !strings.Contains(html, ">"+template.HTMLEscapeString(section)) {
				t.Errorf("%s report has no %q section", tc.name, section)
			}
		}
		if strings.Contains(html, "<script") || strings.Contains(html, "http://") && !strings.Contains(html, "http://www.w3.org") {
			t.Errorf("%s: the report has scripts or external references", tc.name)
		}
		page := filepath.Join(dir, tc.name+".html")
		if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		figs, problems, shot := openPage(t, actx, "file://"+page)
		if err := os.WriteFile(filepath.Join(dir, tc.name+".png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d charts, screenshot %s", tc.name, len(figs), filepath.Join(dir, tc.name+".png"))
		for _, p := range problems {
			t.Errorf("%s: %s", tc.name, p)
		}
		if len(figs) < 2 {
			t.Errorf("%s: only %d charts", tc.name, len(figs))
		}
		drawn := map[string]bool{}
		for _, f := range figs {
			drawn[f.ID] = true
			if f.Series < 1 || f.Colours < f.Series {
				t.Errorf("%s: chart %s drew %d of its %d series (%d paths)", tc.name, f.ID, f.Colours, f.Series, f.Paths)
			}
		}
		for _, id := range tc.charts {
			if !drawn[id] {
				t.Errorf("%s: no chart %s", tc.name, id)
			}
		}
	}
}

// palette colours as SVG writes them.
func paletteJS() string {
	var cs []string
	for _, c := range palette {
		cs = append(cs, fmt.Sprintf("'#%02X%02X%02X'", c.R, c.G, c.B))
	}
	return "[" + strings.Join(cs, ",") + "]"
}

func openPage(t *testing.T, actx context.Context, url string) ([]figure, []string, []byte) {
	t.Helper()
	// A browser that dies before it listens (seen on a loaded 2-core
	// machine) says nothing about the page: start another, at most twice.
	for attempt := 1; ; attempt++ {
		figs, problems, shot, err := loadPage(actx, url)
		if err == nil {
			return figs, problems, shot
		}
		if attempt < 3 && strings.Contains(err.Error(), "chrome failed to start") {
			t.Logf("chromium did not start (attempt %d), trying again: %v", attempt, err)
			continue
		}
		t.Fatalf("chromium: %v", err)
	}
}

// loadPage opens url in a new browser and reports its charts, the problems
// the page caused, and a screenshot.
func loadPage(actx context.Context, url string) ([]figure, []string, []byte, error) {
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel2 := context.WithTimeout(ctx, 60*time.Second)
	defer cancel2()
	var mu sync.Mutex
	var problems []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				problems = append(problems, fmt.Sprintf("console %s", e.Type))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.LevelError {
				problems = append(problems, "log error: "+e.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			if e.Request.URL != url && !strings.HasPrefix(e.Request.URL, "data:") {
				problems = append(problems, "network request: "+e.Request.URL)
			}
		}
	})
	var raw string
	var shot []byte
	js := `JSON.stringify([...document.querySelectorAll('figure.chart')].map(f => {
		const cols = ` + paletteJS() + `;
		const paths = [...f.querySelectorAll('svg path')];
		const seen = new Set();
		for (const p of paths) { const s = (p.getAttribute('style') || '') + (p.getAttribute('stroke') || '') + (p.getAttribute('fill') || '');
			for (const c of cols) if (s.replace(/ /g, '').toUpperCase().includes(c)) seen.add(c); }
		return {id: f.id, series: +f.dataset.series, colours: seen.size, paths: paths.length};
	}))`
	err := chromedp.Run(ctx, network.Enable(), log.Enable(), runtime.Enable(),
		chromedp.Navigate(url), chromedp.WaitReady("body"), chromedp.Evaluate(js, &raw), chromedp.FullScreenshot(&shot, 80))
	if err != nil {
		return nil, nil, nil, err
	}
	var figs []figure
	if err := json.Unmarshal([]byte(raw), &figs); err != nil {
		return nil, nil, nil, fmt.Errorf("chart report %q: %w", raw, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return figs, problems, shot, nil
}
