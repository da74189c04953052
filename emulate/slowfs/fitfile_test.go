package slowfs

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFitFile: a delay fitted to a tool's output uses its sync percentiles
// from p50 up and reproduces each within ±10%: report 001's fio text (p99,
// p99.5, p99.9 only), report 003's (a clat block first, which is not the
// sync one; msec), and fio 3.33's JSON (ns; p99.9 = p99.95 = p99.99, of
// which only p99.9 is kept). A relative path is taken from ParseDelayIn's
// directory.
func TestFitFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file  string
		first time.Duration
		want  []float64
	}{
		{"fio-001.txt", 6376 * time.Microsecond, []float64{99, 99.5, 99.9}},
		{"fio-003.txt", 23 * time.Millisecond, []float64{50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}},
		{"fio-3.33.json", 218112 * time.Nanosecond, []float64{50, 60, 70, 80, 90, 95, 99, 99.5, 99.9}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			d, err := ParseDelayIn("fit:file="+tc.file, "testdata")
			if err != nil {
				t.Fatal(err)
			}
			pts := d.Fit(400000)
			var got []float64
			for _, p := range pts {
				got = append(got, p.Percentile)
				if off := p.Got.Seconds()/p.Want.Seconds() - 1; math.Abs(off) > 0.10 {
					t.Errorf("p%g: sampled %s, want %s (%+.1f%%)", p.Percentile, p.Got, p.Want, 100*off)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("percentiles %v, want %v", got, tc.want)
			}
			if pts[0].Want != tc.first {
				t.Errorf("p%g is %s, want %s", pts[0].Percentile, pts[0].Want, tc.first)
			}
			if d.String() != "fit:file="+tc.file {
				t.Errorf("String() %q", d.String())
			}
		})
	}
	abs, _ := filepath.Abs("testdata/fio-001.txt")
	if _, err := ParseDelayIn("fit:file="+abs, "/nonexistent"); err != nil {
		t.Errorf("absolute path: %v", err)
	}
}

// TestFitFileErrors: each error is one line that quotes the spec, names
// the file and says what it lacks.
func TestFitFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.txt"), "no such file"},
		{"testdata/etcd-perf-003.txt", "only a p99"},
		{"testdata/README.md", "no sync percentiles"},
		{write("nosync.json", `{"jobs": [{"jobname": "x", "write": {}}]}`), "without jobs[0].sync.lat_ns.percentile"},
		{write("badkey.json", `{"jobs": [{"sync": {"lat_ns": {"percentile": {"x": 1}}}}]}`), `"x" is not a number`},
		{write("low.txt", "    sync percentiles (usec):\n     |  1.00th=[ 100],  5.00th=[ 200], 50.00th=[ 300]\n"), "1 distinct sync percentile(s) from p50 up"},
		{write("flat.txt", "    sync percentiles (msec):\n     | 50.00th=[ 1], 99.00th=[ 1], 99.90th=[ 1]\n"), "a fit needs at least two"},
		{"", "needs a path"},
		{"/dev/zero", "not a regular file"},
		{"testdata", "not a regular file"},
	} {
		spec := "fit:file=" + tc.path
		_, err := ParseDelay(spec)
		switch {
		case err == nil:
			t.Errorf("%s: no error", spec)
		case !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), spec) || strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: error %q, want one line quoting it and saying %q", spec, err, tc.want)
		case tc.path != "" && !strings.Contains(strings.TrimPrefix(err.Error(), `"`+spec+`"`), tc.path):
			t.Errorf("%s: error %q does not name the file", spec, err)
		}
	}
}

// TestMedian: each kind of delay knows its median.
func TestMedian(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]time.Duration{
		"7ms":                          7 * time.Millisecond,
		"lognormal:p50=23ms,p99=268ms": 23 * time.Millisecond,
		"fit:p50=2ms,p99=6.4ms":        2 * time.Millisecond,
	} {
		d, err := ParseDelay(spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Median(); math.Abs(got.Seconds()/want.Seconds()-1) > 1e-6 {
			t.Errorf("%s: median %s, want %s", spec, got, want)
		}
	}
}
