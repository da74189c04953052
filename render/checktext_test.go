package render

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// worst is a server verdict as measure/check words it: the judged value of
// the worst member.
func worst(id judge.ID, v float64, display func(float64) string, who string) result.Verdict {
	out := judge.Value(id, v, display)
	out.What += " (" + who + ")"
	return out
}

// localCheckVerdicts are the verdicts of a local check on a busy machine,
// as `etcdlab check` gave them (disk probe, a level s that failed, server
// metrics, connect time), made by the judge table.
func localCheckVerdicts() []result.Verdict {
	return []result.Verdict{
		judge.Value(judge.DiskFsyncP99, 0.00799, units.Seconds),
		judge.Value(judge.DiskFsyncP999, 0.0244, units.Seconds),
		judge.IOPSTier(831),
		{ID: string(judge.LoadCapacity), What: "highest check perf level sustained (tried s to xl)", Unit: "level", Display: "none", Status: result.Fail,
			Threshold: "at least s: 150 writes/s with 50 clients",
			Source:    "etcdctl check perf (> 90% of the rate, slowest <= 0.5 s, stddev <= 0.1 s, no errors); etcd FAQ (WAL fsync p99 < 10 ms, commit p99 < 25 ms during the level)",
			Explanation: "even level s failed: WAL fsync p99 (etcd_disk_wal_fsync_duration_seconds) was 18.22 ms during the level (limit 10.00 ms: the disk is too slow for etcd; " +
				"use SSD/NVMe or a dedicated volume, and remove other I/O from it); the cluster cannot sustain a small cluster's load on this hardware (see the disk and server verdicts for why)"},
		worst(judge.ServerWALFsyncP99, 0.01484, units.Seconds, "worst: m3"),
		worst(judge.ServerBackendCommitP99, 0.05579, units.Seconds, "worst: m2"),
		judge.Value(judge.ServerLeaderChanges, 0, units.Count),
		judge.Value(judge.ServerSlowApplies, 0, units.Count),
		judge.Value(judge.ServerProposalsFailed, 0, units.Count),
		worst(judge.ServerHeartbeatFailures, 2, units.Count, "most: m3"),
		worst(judge.NetworkConnect, 0.0000389, units.Seconds, "slowest: http://127.0.0.1:36613"),
	}
}

// liveCheckVerdicts are the verdicts of issue 13's live check (a healthy
// 3-member TLS cluster, members named by their URLs), with the peer round
// trip, a member whose metrics could not be read, and a SKIP.
func liveCheckVerdicts() []result.Verdict {
	return []result.Verdict{
		{ID: string(judge.LoadCapacity), What: "highest check perf level sustained (tried s to s)", Unit: "level", Value: 150, Display: "s (150 writes/s)", Status: result.Pass,
			Threshold: "at least s: 150 writes/s with 50 clients",
			Source:    "etcdctl check perf (> 90% of the rate, slowest <= 0.5 s, stddev <= 0.1 s, no errors); etcd FAQ (WAL fsync p99 < 10 ms, commit p99 < 25 ms during the level)"},
		worst(judge.ServerWALFsyncP99, 0.0031, units.Seconds, "worst: https://etcd-2.control-plane.example.internal:2379"),
		worst(judge.ServerBackendCommitP99, 0.0121, units.Seconds, "worst: https://etcd-1.control-plane.example.internal:2379"),
		worst(judge.ServerPeerRTTP99, 0.0448, units.Seconds, "worst: https://etcd-3.control-plane.example.internal:2379"),
		judge.Value(judge.ServerLeaderChanges, 0, units.Count),
		judge.Value(judge.ServerSlowApplies, 0, units.Count),
		judge.Value(judge.ServerProposalsFailed, 0, units.Count),
		judge.Unmeasured(judge.ServerHeartbeatFailures, "https://etcd-3.control-plane.example.internal:2379: cannot scrape https://etcd-3.control-plane.example.internal:2379/metrics: deadline exceeded"),
		{ID: string(judge.ServerMetrics), What: "members' metrics", Status: result.Warn, Display: "2 of 3 read",
			Explanation: "could not read every member's metrics: https://etcd-3.control-plane.example.internal:2379: cannot scrape https://etcd-3.control-plane.example.internal:2379/metrics: deadline exceeded"},
		worst(judge.NetworkConnect, 0.0024, units.Seconds, "slowest: https://etcd-3.control-plane.example.internal:2379"),
	}
}

// issue13Floor is the floor of issue 13's live check as etcdlab now
// computes it: the leader's fsyncs under 1 ms, so no term above 0, and the
// prober's 6.4 ms shown apart.
func issue13Floor() *result.Floor {
	return &result.Floor{ProbeP50: 0.00205,
		FsyncFrom:  "lower edge of the bucket (0, 1.00 ms] of etcd_disk_wal_fsync_duration_seconds holding fsync 487 of the 980 the leader (https://etcd-1.control-plane.example.internal:2379) made during the probe",
		RTTFrom:    "no lower bound of the peer round trip is observable from a client",
		PeerRTTP50: 0.0064, PeerRTTFrom: "etcd_network_peer_round_trip_time_seconds p50 of 4 observations: etcd's prober, a smoothed round trip of an HTTP(S) request every few seconds, " +
			"observed every 30 s; not part of the floor, as it includes HTTP and TLS work a proposal does not do"}
}

// checkDoc is a check document around verdicts and a floor.
func checkDoc(t *testing.T, mode string, vs []result.Verdict, f *result.Floor) *result.Document {
	t.Helper()
	doc := checkFixture(t)
	doc.Check.Mode, doc.Check.Floor, doc.Verdicts, doc.Overall = mode, f, vs, result.Overall(vs)
	doc.Check.Partial = []string{"could not run load level m: etcdserver: request timed out, possibly due to connection lost (the members were reachable a moment before)"}
	if mode == "live" {
		doc.Disk, doc.Environment.LocalCluster, doc.Environment.DataDir = nil, false, ""
	}
	if result.Overall(vs) == result.Fail {
		doc.Check.Highest = "" // level s failed
	}
	return doc
}

// TestCheckTextWithin120Columns renders realistic checks (every threshold
// check judges by, sources up to 157 characters, members named by long
// URLs) and holds the terminal text to 120 columns while losing nothing:
// the table read back cell by cell gives every verdict's fields, every
// source is in a note, and every explanation and floor term is in the text.
// --wide keeps the full table. The golden files show the layout.
func TestCheckTextWithin120Columns(t *testing.T) {
	local := checkDoc(t, "local", localCheckVerdicts(), &result.Floor{FsyncSeconds: 0.0004557, FsyncFrom: "the disk probe's fdatasync p50 on this disk (a sample quantile; nothing else on the disk)",
		RTTFrom: "members on this machine's loopback", FloorSeconds: 0.0004557, ProbeP50: 0.00363, RatioToFloor: 0.00363 / 0.0004557})
	live := checkDoc(t, "live", liveCheckVerdicts(), issue13Floor())
	seen := map[judge.ID]bool{}
	for _, doc := range []*result.Document{local, live} {
		for _, v := range doc.Verdicts {
			seen[judge.ID(v.ID)] = true
		}
	}
	for _, th := range judge.All() {
		if !seen[th.ID] {
			t.Fatalf("the fixtures have no verdict judged by %s", th.ID)
		}
	}
	for _, tt := range []struct {
		golden string
		doc    *result.Document
		wide   bool
	}{{"check_local.txt", local, false}, {"check_live.txt", live, false}, {"check_live_wide.txt", live, true}} {
		var b bytes.Buffer
		if err := CheckText(&b, tt.doc, TerminalOptions{Wide: tt.wide}); err != nil {
			t.Fatal(err)
		}
		golden(t, tt.golden, b.Bytes())
		out := b.String()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		widest := 0
		for _, l := range lines {
			widest = max(widest, utf8.RuneCountInString(l))
		}
		if !tt.wide && widest > TermWidth {
			t.Errorf("%s: a line of %d columns", tt.golden, widest)
		}
		if tt.wide && widest <= TermWidth {
			t.Errorf("%s: --wide is %d columns wide: the full table must not wrap", tt.golden, widest)
		}
		rows, rest := readTable(t, lines)
		if len(rows) != len(tt.doc.Verdicts) {
			t.Fatalf("%s: %d rows for %d verdicts", tt.golden, len(rows), len(tt.doc.Verdicts))
		}
		text := norm(strings.Join(rest, "\n"))
		for i, v := range tt.doc.Verdicts {
			want := []string{v.Status, norm(v.What), v.Display, norm(v.Threshold), norm(v.Source)}
			if !tt.wide {
				want[4] = "-"
				if v.Source != "" {
					want[4] = rows[i][4]
					if !strings.Contains(text, norm(rows[i][4]+" "+v.Source)) {
						t.Errorf("%s: source %s %q is in no note", tt.golden, rows[i][4], v.Source)
					}
				}
			}
			if strings.Join(rows[i], "|") != strings.Join(want, "|") {
				t.Errorf("%s: row %d reads back as\n%q, want\n%q", tt.golden, i, rows[i], want)
			}
			if v.Explanation != "" && !strings.Contains(text, norm(v.Status+": "+v.Explanation)) {
				t.Errorf("%s: explanation of %s lost", tt.golden, v.ID)
			}
		}
		f := tt.doc.Check.Floor
		for _, s := range append([]string{f.FsyncFrom, f.RTTFrom, f.PeerRTTFrom}, tt.doc.Check.Partial...) {
			if !strings.Contains(text, norm(s)) {
				t.Errorf("%s: %q lost", tt.golden, s)
			}
		}
	}
}

// norm collapses runs of white space, as wrapping rearranges them.
func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

// readTable reads the verdict table at the top of lines back into cells
// (a row's continuation lines joined with spaces), and returns the lines
// after it.
func readTable(t *testing.T, lines []string) (rows [][]string, rest []string) {
	t.Helper()
	if len(lines) < 4 || !strings.HasPrefix(lines[0], "+-") || !strings.HasPrefix(lines[2], "+-") {
		t.Fatalf("no table at the top:\n%s", strings.Join(lines, "\n"))
	}
	i := 3
	for ; i < len(lines) && !strings.HasPrefix(lines[i], "+-"); i++ {
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(lines[i], "|"), "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		if cells[0] != "" || len(rows) == 0 {
			rows = append(rows, cells)
			continue
		}
		last := rows[len(rows)-1]
		for j, c := range cells {
			if c != "" {
				last[j] = strings.TrimSpace(last[j] + " " + c)
			}
		}
	}
	return rows, lines[i+1:]
}

// TestFloorWording checks what every renderer says about the floor: a
// ratio below 1 only with "the floor estimate is wrong" and why, a floor of
// 0 with no ratio, and the prober's round trip apart from the floor.
func TestFloorWording(t *testing.T) {
	t.Parallel()
	const wrong = "the floor estimate is wrong"
	for _, tt := range []struct {
		name    string
		f       *result.Floor
		want    []string // in the text, the Markdown and the HTML
		notWant []string
	}{
		{"issue 13: no term above 0", issue13Floor(),
			[]string{"no term of the floor could be bounded above 0", "etcd's peer round trip", "6.40 ms", "not part of the floor"}, []string{wrong, "0.3x", "0.29x"}},
		{"a floor below the p50", &result.Floor{FsyncSeconds: 0.001, FsyncFrom: "lower edge of the bucket (1.00 ms, 2.00 ms]", RTTFrom: "no lower bound", FloorSeconds: 0.001, ProbeP50: 0.0025, RatioToFloor: 2.5},
			[]string{"2.5x", "1.00 ms"}, []string{wrong}},
		{"a disk probe above the p50", &result.Floor{FsyncSeconds: 0.003, FsyncFrom: "the disk probe's fdatasync p50", RTTFrom: "members on this machine's loopback", FloorSeconds: 0.003, ProbeP50: 0.00205, RatioToFloor: 0.683,
			Wrong: "the floor estimate is wrong: the 1-client put p50 (2.05 ms) is below the floor (3.00 ms); the fsync term (3.00 ms, from the disk probe) alone exceeds it; because"},
			[]string{"0.68x", wrong + ": the 1-client put p50 (2.05 ms) is below the floor (3.00 ms); the fsync term (3.00 ms, from the disk probe) alone exceeds it"}, nil},
		{"a result from before etcdlab explained it (issue 13's old floor)", &result.Floor{FsyncSeconds: 0.00065, FsyncFrom: "members' WAL fsync p50 during the probe", RTTSeconds: 0.0064,
			RTTFrom: "etcd_network_peer_round_trip_time_seconds p50", FloorSeconds: 0.00705, ProbeP50: 0.00205, RatioToFloor: 0.29},
			[]string{"0.29x", wrong + ": the 1-client put p50 is below it, so a term exceeded what the probe achieved (fsync 650.0 µs from members' WAL fsync p50 during the probe; round trip 6.40 ms"}, nil},
	} {
		doc := checkDoc(t, "live", liveCheckVerdicts(), tt.f)
		outs := map[string]string{}
		for _, wide := range []bool{false, true} {
			var b bytes.Buffer
			if err := CheckText(&b, doc, TerminalOptions{Wide: wide}); err != nil {
				t.Fatal(err)
			}
			outs[fmt.Sprintf("text (wide %v)", wide)] = norm(b.String())
		}
		var md, html bytes.Buffer
		if err := Markdown(&md, []result.Named{named("check", doc)}, judgedNamed([]result.Named{named("check", doc)})); err != nil {
			t.Fatal(err)
		}
		if err := HTML(&html, []result.Named{named("check", doc)}, judgedNamed([]result.Named{named("check", doc)})); err != nil {
			t.Fatal(err)
		}
		outs["markdown"], outs["html"] = norm(md.String()), norm(strings.ReplaceAll(html.String(), "&#39;", "'"))
		for where, out := range outs {
			for _, w := range tt.want {
				if !strings.Contains(out, norm(w)) {
					t.Errorf("%s, %s: no %q", tt.name, where, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("%s, %s: says %q", tt.name, where, w)
				}
			}
			// A ratio below 1 comes with the wording, wherever it is.
			if regexp.MustCompile(`\b0\.\d+x\b`).MatchString(out) && !strings.Contains(out, wrong) {
				t.Errorf("%s, %s: a ratio below 1 without %q", tt.name, where, wrong)
			}
		}
	}
}
