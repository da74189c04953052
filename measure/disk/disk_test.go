package disk

import (
	"context"

	"fmt"
	"math"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/result"
)

// TestPercentilesAgainstReference compares fio-list percentiles from the
// HDR histogram with exact nearest-rank percentiles of a long-tailed
// synthetic sample.
func TestPercentilesAgainstReference(t *testing.T) {
	t.Parallel()
	rnd := mrand.New(mrand.NewPCG(1, 2))
	l := newLatencies()
	var xs []float64
	for range 50000 {
		// lognormal around 1 ms with a heavy tail
		d := time.Duration(math.Exp(rnd.NormFloat64()*0.8) * float64(time.Millisecond))
		l.add(d)
		xs = append(xs, d.Seconds())
	}
	sort.Float64s(xs)
	s := l.summary()
	for _, p := range s.Percentiles {
		// Nearest rank, within one rank (rounding of the rank) and the
		// histogram's resolution (3 significant digits: 0.1%).
		rank := int(math.Ceil(p.P/100*float64(len(xs)))) - 1
		lo, hi := xs[max(rank-1, 0)]*(1-0.001), xs[min(rank+1, len(xs)-1)]*(1+0.001)
		if p.Seconds < lo || p.Seconds > hi {
			t.Errorf("p%g = %g, exact %g (accepted %g..%g)", p.P, p.Seconds, xs[rank], lo, hi)
		}
	}
	if s.Min != xs[0] || s.Max != xs[len(xs)-1] {
		t.Errorf("min/max %g %g, want %g %g", s.Min, s.Max, xs[0], xs[len(xs)-1])
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	if math.Abs(s.Mean-sum/float64(len(xs))) > 1e-12 {
		t.Errorf("mean %g", s.Mean)
	}
}

func TestVerdictBoundaries(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		id   judge.ID
		v    float64
		want string
	}{
		{judge.DiskFsyncP99, 0.0099999, result.Pass},
		{judge.DiskFsyncP99, 0.010, result.Fail}, // exactly 10 ms is not < 10 ms
		{judge.DiskFsyncP99, 0.0100001, result.Fail},
		{judge.DiskFsyncP999, 0.00849, result.Pass},
		{judge.DiskFsyncP999, 0.0085, result.Warn},
		{judge.DiskFsyncP999, 0.0099, result.Warn},
	} {
		if got := judge.Value(tt.id, tt.v, units.Seconds); got.Status != tt.want || (got.Status != result.Pass) != (got.Explanation != "") {
			t.Errorf("%s at %g: %s (%q), want %s", tt.id, tt.v, got.Status, got.Explanation, tt.want)
		}
	}
	// A p99.9 past 10 ms is a warning with an explanation.
	job := result.DiskJob{Ops: 10, IOPS: 1000, SyncLatency: &result.DiskLatency{Percentiles: []result.Percentile{{P: 99, Seconds: 0.002}, {P: 99.9, Seconds: 0.012}}}}
	vs := verdicts(job, SyncFdatasync)
	if vs[0].Status != result.Pass || vs[1].Status != result.Warn || !strings.Contains(vs[1].Explanation, "over 10 ms") || result.Overall(vs) != result.Warn {
		t.Errorf("judge: %+v", vs)
	}
}

// TestRunSmall runs the real job on the test's directory in every sync mode
// and checks counts, verdicts and that no file is left.
func TestRunSmall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var fio []float64 // fio's percentile_list, in order
	for _, p := range FioPercentiles() {
		fio = append(fio, p)
	}
	for _, mode := range []string{SyncFdatasync, SyncFsync, SyncODSync} {
		doc, err := Run(context.Background(), Options{Dir: dir, BlockSize: 4096, Size: 1 << 20, Sync: mode})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		j := doc.Disk.Jobs[0]
		if j.Ops != 256 || j.Bytes != 1<<20 || j.IOPS <= 0 || j.SyncLatency == nil || len(j.SyncLatency.Percentiles) != len(fio) {
			t.Fatalf("%s: job %+v", mode, j)
		}
		if len(doc.Verdicts) != 3 || doc.Overall == "" || !strings.Contains(doc.Verdicts[0].What, mode) {
			t.Fatalf("%s: verdicts %+v", mode, doc.Verdicts)
		}
		assertEmpty(t, dir)
	}
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("left behind in %s: %v", dir, entries)
	}
}

// TestInterruptRemovesFile cancels a run: the file is removed and the
// error says the results are partial.
func TestInterruptRemovesFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // once the test file is there
		clustertest.Eventually(10*time.Second, func() bool {
			entries, _ := os.ReadDir(dir)
			return len(entries) > 0
		})
		cancel()
	}()
	doc, err := Run(ctx, Options{Dir: dir, BlockSize: 512, Size: 1 << 30})
	if err == nil || !strings.Contains(err.Error(), "interrupted") || doc == nil || doc.Disk.Jobs[0].StoppedEarly != "interrupted" {
		t.Fatalf("err %v", err)
	}
	assertEmpty(t, dir)
}

// TestStaleFileSwept plants a test file of a dead process.
func TestStaleFileSwept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, fmt.Sprintf("%s%d-1.tmp", testFilePrefix, dead.ProcessState.Pid()))
	if err := os.WriteFile(stale, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Dir: dir, BlockSize: 4096, Size: 8192}); err != nil {
		t.Fatal(err)
	}
	assertEmpty(t, dir)
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		o     Options
		param string // the option the invalid-input error names
		want  string
	}{
		{"missing dir", Options{Dir: filepath.Join(dir, "nope")}, "Dir", "does not exist"},
		{"not a dir", Options{Dir: file}, "Dir", "not a directory"},
		{"bs 0", Options{Dir: dir, BlockSize: -1}, "BlockSize", "BlockSize must be positive"},
		{"size < bs", Options{Dir: dir, BlockSize: 8192, Size: 4096}, "Size", "at least BlockSize"},
		{"bad sync", Options{Dir: dir, Sync: "msync"}, "Sync", "Sync must be"},
		{"bad profile", Options{Dir: dir, Profile: "hdd"}, "Profile", "Profile must be"},
	} {
		_, err := Run(context.Background(), tt.o)
		inv := invalid.As(err)
		if inv == nil || inv.Params()[0] != tt.param || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v (invalid: %v)", tt.name, err, inv != nil)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
}

// TestReadOnlyAndFullDisk mounts a read-only tmpfs and a 1 MiB tmpfs (root
// only) and runs against them.
func TestReadOnlyAndFullDisk(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount")
	}
	mnt := func(opts string) string {
		d := t.TempDir()
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", d).CombinedOutput(); err != nil {
			t.Skipf("mount: %v %s", err, out)
		}
		t.Cleanup(func() { _ = exec.Command("umount", d).Run() })
		return d
	}
	ro, small := mnt("ro,size=1m"), mnt("size=1m")
	_, err := Run(context.Background(), Options{Dir: ro, BlockSize: 4096, Size: 8192})
	if err == nil || invalid.Is(err) || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("read-only: %v", err)
	}
	_, err = Run(context.Background(), Options{Dir: small, BlockSize: 4096, Size: 4 << 20})
	if err == nil || invalid.Is(err) || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("full: %v", err)
	}
	assertEmpty(t, small)
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	doc, err := Run(context.Background(), Options{Dir: t.TempDir(), BlockSize: 4096, Size: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := result.Write(&b, doc); err != nil {
		t.Fatal(err)
	}
	back, err := result.Read(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	j, bj := doc.Disk.Jobs[0], back.Disk.Jobs[0]
	if back.Kind != result.KindDisk || bj.Ops != j.Ops || bj.SyncLatency.At(99) != j.SyncLatency.At(99) || back.Verdicts[2].Value != doc.Verdicts[2].Value {
		t.Fatalf("round trip lost data")
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want int64
	}{{"4096", 4096}, {"22m", 22 << 20}, {"22M", 22 << 20}, {"100MiB", 100 << 20}, {"256k", 256 << 10}, {"1g", 1 << 30}, {"2KB", 2048}} {
		if got, err := ParseSize(tt.in); err != nil || got != tt.want {
			t.Errorf("%q: %d %v, want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "0", "-1m", "lots", "1.5m", "m"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
