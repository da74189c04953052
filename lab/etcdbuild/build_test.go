package etcdbuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"3.5.35", "3.5.35", true},
		{"v3.7.3", "3.7.3", true},
		{"3.6", "3.6", true},
		{" v3.6 ", "3.6", true},
		{"/usr/bin/etcd", "", false},
		{"3", "", false},
		{"3.5.x", "", false},
		{"latest", "", false},
	} {
		v, ok := ParseVersion(tc.in)
		if ok != tc.ok || ok && v.String() != tc.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %s, %v", tc.in, v, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		v     string
		ma    int
		mi    int
		atLst bool
	}{{"3.4.23", 3, 5, false}, {"3.6.16", 3, 6, true}, {"3.7.0-rc.0", 3, 6, true}, {"", 3, 6, true}} {
		if got := AtLeast(tc.v, tc.ma, tc.mi); got != tc.atLst {
			t.Errorf("AtLeast(%q, %d, %d) = %v", tc.v, tc.ma, tc.mi, got)
		}
	}
}

// TestRefusals: what cannot be built is one line of invalid input, and
// nothing is left in the cache.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		b    Builder
		v    string
		want string
	}{
		{Builder{Dir: dir}, "3.4.23", "cannot be built from its Go modules"},
		{Builder{Dir: dir, Go: "no-such-go-command"}, "3.5.1", "needs the Go toolchain"},
	} {
		v, _ := ParseVersion(tc.v)
		_, err := tc.b.Binary(context.Background(), v)
		if !invalid.Is(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line of invalid input with %q", tc.v, err, tc.want)
		}
	}
	if _, _, err := (Builder{Dir: dir}).Resolve(context.Background(), "/no/such/etcd"); !invalid.Is(err) {
		t.Errorf("a missing path: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left in the cache: %v", left)
	}
}

// TestBuildWaitsForLock: while another process holds a version's lock,
// a build waits for it, until its context ends.
func TestBuildWaitsForLock(t *testing.T) {
	if _, err := os.Stat("/usr/local/go/bin/go"); err != nil {
		t.Skip("no Go toolchain")
	}
	dir := t.TempDir()
	f, err := os.OpenFile(filepath.Join(dir, "v3.5.1.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err = Builder{Dir: dir, Go: "/usr/local/go/bin/go"}.Binary(ctx, Version{Major: 3, Minor: 5, Patch: 1})
	if err == nil || !strings.Contains(err.Error(), "waiting for another build") {
		t.Fatalf("got %v, want a wait for the lock that ends with the context", err)
	}
}

// TestBuildAndCache builds a real etcd from its modules into the shared
// cache (once per machine), and finds it there again without a toolchain.
func TestBuildAndCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etcd")
	}
	v := Version{Major: 3, Minor: 5, Patch: 35}
	ctx := context.Background()
	p, err := Builder{}.Binary(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := BinaryVersion(ctx, p)
	if err != nil || got != "3.5.35" {
		t.Fatalf("%s says %q (%v)", p, got, err)
	}
	again, err := Builder{Go: "no-such-go-command"}.Binary(ctx, v)
	if err != nil || again != p {
		t.Fatalf("the cached build: %q, %v; want %s", again, err, p)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(p), "build.json")); err != nil {
		t.Errorf("no build record: %v", err)
	}
	if bp, bv, err := (Builder{}).Resolve(ctx, "v3.5.35"); err != nil || bp != p || bv != "3.5.35" {
		t.Errorf("Resolve(v3.5.35) = %s, %s, %v", bp, bv, err)
	}
}
