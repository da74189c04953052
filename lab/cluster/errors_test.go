package cluster

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/member"
)

// TestMemberDiesDuringStart uses an executable that exits at once: Start
// must name the member, include its log tail, fail fast and clean up.
func TestMemberDiesDuringStart(t *testing.T) {
	t.Parallel()
	falseBin, err := exec.LookPath("false")
	if err != nil {
		t.Skip("no false(1)")
	}
	base := t.TempDir()
	_, err = Start(context.Background(), Options{Members: 3, BaseDir: base, Executable: falseBin})
	var se *StartError
	if !errors.As(err, &se) || !strings.Contains(se.Error(), "exited") || invalid.Is(err) {
		t.Fatalf("err = %v", err)
	}
	if !strings.HasPrefix(se.Name, "member m") || !strings.HasSuffix(se.LogFile, "etcd.log") {
		t.Fatalf("StartError does not name the member and its log: %+v", se)
	}
	left, _ := filepath.Glob(filepath.Join(base, "data-*"))
	if len(left) != 0 {
		t.Fatalf("failed start left %v", left)
	}
}

// TestReadOnlyDataDir mounts a read-only tmpfs (root only) and asks for a data
// dir inside it.
func TestReadOnlyDataDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a read-only filesystem")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	for _, dir := range []string{mnt, filepath.Join(mnt, "sub")} {
		_, err := Start(context.Background(), Options{Members: 1, DataDir: dir})
		if err == nil || !strings.Contains(err.Error(), "read-only file system") || invalid.Is(err) {
			t.Fatalf("data dir %s: err = %v", dir, err)
		}
	}
}

// TestDataDirInUse refuses a data dir another live etcdlab owns.
func TestDataDirInUse(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "d")
	c := start(t, Options{Members: 1, DataDir: dir})
	_, err := Start(context.Background(), Options{Members: 1, DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), "in use by another etcdlab") {
		t.Fatalf("err = %v", err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
}

// TestSweepStale removes a temporary data dir whose owner died, and keeps
// one marked to be kept.
func TestSweepStale(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, keep bool) string {
		d := filepath.Join(base, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		own := owner{Keep: keep, CreatedRoot: true, OwnsData: true}
		own.PID = dead.ProcessState.Pid()
		if err := writeJSON(filepath.Join(d, ownerFile), own); err != nil {
			t.Fatal(err)
		}
		return d
	}
	stale, kept := mk("data-1", false), mk("data-2", true)
	other := filepath.Join(base, "not-ours")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sweepStale(base, &log)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Error("stale dir not removed")
	}
	for _, d := range []string{kept, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
	if !strings.Contains(log.String(), "left behind") {
		t.Errorf("sweep not reported: %q", log.String())
	}
}

// TestStartRefusedInsideMember: a process started as a member (a test
// binary whose package lacks member.RunTests runs its tests instead)
// starts no cluster: one error naming the missing TestMain, nothing made.
func TestStartRefusedInsideMember(t *testing.T) {
	t.Setenv(member.EnvConfig, "/nonexistent/member.yaml")
	base := t.TempDir()
	_, err := Start(context.Background(), Options{Members: 1, BaseDir: base})
	if err == nil || !strings.Contains(err.Error(), "member.RunTests") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Start inside a member: %v", err)
	}
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
}
