// Package buildcache is the one procedure by which etcdlab builds a
// published Go module's commands into its cache (Builder.Build: cached? →
// find go → newest patch → lock → recheck → scratch module → build →
// check the version the binary prints → publish the binary and
// build.json, each whole or not at all), and what that procedure stands
// on: the cache root, a lock per version that several processes respect,
// a scratch module per build that a killed build cannot leave behind for
// long, the go command run with a fixed environment, the one release
// Version. What differs between builds is a Recipe: lab/etcdbuild holds
// etcd's, lab/kubebuild Kubernetes'.
//
// Nothing here holds state: every function is safe for concurrent use; a
// cache directory is shared by processes through Lock.
package buildcache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// EnvDir names the cache root when set.
const EnvDir = "ETCDLAB_CACHE_DIR"

// Dir is where the builds of one kind live: $ETCDLAB_CACHE_DIR/kind, else
// the user's cache directory ($XDG_CACHE_HOME or ~/.cache)/etcdlab/kind.
func Dir(kind string) (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return filepath.Join(d, kind), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("%s build cache: %w", kind, err)
	}
	return filepath.Join(d, "etcdlab", kind), nil
}

// Lock takes an exclusive lock on path (created if missing), waiting while
// ctx lasts for another process's build to end. The kernel drops the lock
// when the holder dies, so a killed build never blocks the next one.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("build cache: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("build cache: lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("build cache: waiting for another build of %s: %w", strings.TrimSuffix(filepath.Base(path), ".lock"), ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Scratch removes the scratch directories earlier builds of tag left in
// dir (a build that was killed) and makes a new one, dir/.build-TAG-*.
// The caller holds tag's lock, so no one is using the old ones; it removes
// the new one when its build ends.
func Scratch(dir, tag string) (string, error) {
	stale, _ := filepath.Glob(filepath.Join(dir, ".build-"+tag+"-*"))
	for _, s := range stale {
		_ = os.RemoveAll(s)
	}
	tmp, err := os.MkdirTemp(dir, ".build-"+tag+"-")
	if err != nil {
		return "", fmt.Errorf("build cache: %w", err)
	}
	return tmp, nil
}

// LookGo finds the go command name ("go" when empty) in PATH.
func LookGo(name string) (string, error) {
	if name == "" {
		name = "go"
	}
	return exec.LookPath(name)
}

// Go runs the go command in a scratch module, with a fixed environment
// added to the process's: the local toolchain only, modules resolved by
// go.mod (the scratch one, not a workspace), no cgo.
type Go struct {
	Path string // the go command
	Dir  string // the scratch module
}

// Run runs `go args...` and returns its standard output; a failure says
// which go subcommand failed with the last line it printed, or that ctx
// ended first.
func (g Go) Run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, g.Path, args...)
	cmd.Dir = g.Dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "CGO_ENABLED=0", "GOWORK=off", "GO111MODULE=on")
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("`go %s` did not end in time: %w", args[0], ctx.Err())
		}
		return nil, fmt.Errorf("`go %s`: %w: %s", args[0], err, LastLine([]byte(stderr.String()+string(out))))
	}
	return out, nil
}

// Version is the go command's version (go1.26.8), or "" when it cannot
// say.
func (g Go) Version(ctx context.Context) string {
	out, err := g.Run(ctx, "env", "GOVERSION")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Executable reports whether p is a regular file someone may execute.
func Executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// LastLine is the last non-empty line of a command's output.
func LastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
