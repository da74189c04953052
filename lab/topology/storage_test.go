package topology

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
)

// TestStoragePresets: the disk presets slow what their sources measured.
// hdd's reads and O_DIRECT writes as well as its fsyncs (report 003), the
// others fsync only; ssd-004's fsyncs stay under report 004's 0.5 ms.
func TestStoragePresets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		preset        string
		ops           []string
		median        time.Duration
		read, written time.Duration
	}{
		{"hdd", []string{"fsync", "read", "write"}, 23 * time.Millisecond, 13 * time.Millisecond, 17 * time.Millisecond},
		{"ebs-001", []string{"fsync"}, 0, 0, 0},
		{"ssd-004", []string{"fsync"}, 250 * time.Microsecond, 0, 0},
		{"pmem", nil, 0, 0, 0},
	} {
		tp, err := Load(tc.preset)
		if err != nil {
			t.Fatal(err)
		}
		var o cluster.Options
		if err := tp.Apply(&o, false, false); err != nil {
			t.Fatalf("%s: %v", tc.preset, err)
		}
		if got := o.SlowedOps("m1"); !slices.Equal(got, tc.ops) {
			t.Errorf("%s slows %v, want %v", tc.preset, got, tc.ops)
		}
		if tc.median != 0 && o.FsyncDelay.Median() != tc.median {
			t.Errorf("%s: fsync median %v, want %v", tc.preset, o.FsyncDelay.Median(), tc.median)
		}
		if tc.read != 0 && (o.ReadDelay.Sample() != tc.read || o.WriteDelay.Sample() != tc.written) {
			t.Errorf("%s: read %v, write %v", tc.preset, o.ReadDelay, o.WriteDelay)
		}
	}
	tp, _ := Load("ssd-004")
	var o cluster.Options
	_ = tp.Apply(&o, false, false)
	var over int
	for range 10000 {
		if o.FsyncDelay.Sample() >= 500*time.Microsecond {
			over++
		}
	}
	if over > 200 {
		t.Errorf("ssd-004: %d of 10000 fsyncs at 0.5 ms or more", over)
	}
}

// TestStorageFitFile: a topology file fits its fsync delay to fio's output
// found beside it (relative to the file, not the current directory), and
// says which field and file are at fault when the output will not do.
func TestStorageFitFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fio, err := os.ReadFile("../../emulate/slowfs/testdata/fio-003.txt")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]string{
		"fio.txt":   string(fio),
		"disk.yaml": "storage: {fsync_delay: 'fit:file=fio.txt', read_delay: 'fit:file=fio.txt'}\n",
		"bad.yaml":  "storage: {write_delay: 'fit:file=disk.yaml'}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tp, err := Load(filepath.Join(dir, "disk.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var o cluster.Options
	if err := tp.Apply(&o, false, false); err != nil {
		t.Fatal(err)
	}
	if m := o.FsyncDelay.Median(); m != 23*time.Millisecond || o.ReadDelay.Median() != m {
		t.Errorf("fsync median %v, read %v: want report 003's 23 ms", m, o.ReadDelay.Median())
	}
	if got := o.FsyncDelay.FitReport(); !strings.HasPrefix(got, "fitted delay, sampled: p50 ") {
		t.Errorf("fit report %q", got)
	}
	tp, err = Load(filepath.Join(dir, "bad.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	err = tp.Apply(&o, false, false)
	if !invalid.Is(err) || !strings.Contains(err.Error(), "storage.write_delay:") || !strings.Contains(err.Error(), `"`+filepath.Join(dir, "disk.yaml")+`": no sync percentiles`) {
		t.Errorf("bad fit file: %v", err)
	}
}

// TestStorageFsyncBy: fsync_by seccomp reaches the cluster's options and
// leaves the disk unslowed (SlowedOps: only the members' syncs wait);
// another mechanism's name is a one-line invalid-input error.
func TestStorageFsyncBy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, b := range map[string]string{
		"ok.yaml":  "storage: {tmpfs: true, fsync_delay: 250us, fsync_by: seccomp}\n",
		"bad.yaml": "storage: {fsync_delay: 250us, fsync_by: ptrace}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tp, err := Load(filepath.Join(dir, "ok.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var o cluster.Options
	if err := tp.Apply(&o, false, false); err != nil {
		t.Fatal(err)
	}
	if o.FsyncBy != cluster.FsyncBySeccomp || o.FsyncDelay.Median() != 250*time.Microsecond {
		t.Errorf("fsync_by %q, delay %v", o.FsyncBy, o.FsyncDelay)
	}
	if ops := o.SlowedOps("m1"); len(ops) != 0 {
		t.Errorf("SlowedOps %v, want none", ops)
	}
	tp, err = Load(filepath.Join(dir, "bad.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	err = tp.Apply(&cluster.Options{}, false, false)
	if !invalid.Is(err) || !strings.Contains(err.Error(), `storage.fsync_by: "ptrace"`) || strings.Contains(err.Error(), "\n") {
		t.Errorf("bad mechanism: %v", err)
	}
}
