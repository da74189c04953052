package buildcache

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDir(t *testing.T) {
	root := t.TempDir()
	t.Setenv(EnvDir, root)
	for _, kind := range []string{"etcd", "kubernetes"} {
		if d, err := Dir(kind); err != nil || d != filepath.Join(root, kind) {
			t.Errorf("Dir(%s) = %s, %v", kind, d, err)
		}
	}
}

// TestLock: a second lock on the same path waits until the first is
// released, or until its context ends.
func TestLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "v1.lock")
	unlock, err := Lock(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, p); err == nil || !strings.Contains(err.Error(), "waiting for another build of v1") {
		t.Fatalf("second lock: %v, want a wait that ends with the context", err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := Lock(context.Background(), p)
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	if err := <-got; err != nil {
		t.Fatalf("lock after release: %v", err)
	}
}

// TestScratch: a new scratch directory replaces those a killed build left,
// and leaves other versions' alone.
func TestScratch(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{".build-v1-123", ".build-v2-456"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tmp, err := Scratch(dir, "v1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[0] != ".build-v1-"+strings.TrimPrefix(filepath.Base(tmp), ".build-v1-") || names[1] != ".build-v2-456" {
		t.Errorf("left: %v (new %s)", names, tmp)
	}
}

// TestGoRun: a failing go command says which subcommand failed and why, in
// one line.
func TestGoRun(t *testing.T) {
	goCmd, err := LookGo("")
	if err != nil {
		t.Skip("no Go toolchain")
	}
	g := Go{Path: goCmd, Dir: t.TempDir()}
	if v := g.Version(context.Background()); !strings.HasPrefix(v, "go1.") {
		t.Errorf("Version = %q", v)
	}
	_, err = g.Run(context.Background(), "frobnicate")
	if err == nil || !strings.Contains(err.Error(), "`go frobnicate`") || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %v", err)
	}
	if _, err := LookGo("no-such-go-command"); err == nil {
		t.Error("found no-such-go-command")
	}
}
