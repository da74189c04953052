package slowfs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// envStaleMount makes the test binary a child that mounts a slow disk in
// its own (the host's) mount namespace, as etcdlab did before slow disks
// moved to a private namespace, and waits to be killed.
const envStaleMount = "SLOWFS_TEST_STALE_MOUNT"

func TestMain(m *testing.M) {
	if dir := os.Getenv(envStaleMount); dir != "" {
		if _, err := MountDir(Options{Backing: dir + ".disk", Mountpoint: dir}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("mounted")
		select {}
	}
	os.Exit(m.Run())
}

// TestCleanStale leaves what a killed etcdlab of an older version left: a
// mount in the host's namespace whose server is gone. CleanStale spares it
// while its owner is said to be alive, then aborts and unmounts it, after
// which the directory can be removed.
func TestCleanStale(t *testing.T) {
	t.Parallel()
	if err := Available(); err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	dir := filepath.Join(base, "m1")
	for _, d := range []string{dir, dir + ".disk"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Runs before TempDir's removal, should the test fail half way.
	t.Cleanup(func() { CleanStale(base, func(string) bool { return false }) })
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), envStaleMount+"="+dir)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len("mounted"))
	if _, err := out.Read(buf); err != nil || string(buf) != "mounted" {
		_ = child.Process.Kill()
		_ = child.Wait()
		t.Fatalf("child did not mount: %q %v", buf, err)
	}
	_ = child.Process.Kill()
	_ = child.Wait()
	if got := MountsUnder(base); !slices.Equal(got, []string{dir}) {
		t.Fatalf("stale mounts %v, want [%s]", got, dir)
	}
	if got := CleanStale(base, func(string) bool { return true }); len(got) != 0 {
		t.Fatalf("removed %v whose owner is alive", got)
	}
	if got := CleanStale(base, func(string) bool { return false }); !slices.Equal(got, []string{dir}) {
		t.Fatalf("CleanStale removed %v, want [%s]", got, dir)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(MountsUnder(base)) != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := MountsUnder(base); len(got) != 0 {
		t.Fatalf("still mounted: %v", got)
	}
	if err := os.RemoveAll(base); err != nil {
		t.Fatal(err)
	}
}
