package etcdbuild

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

// serverModule is etcd's server module; its root package is etcd's main
// from 3.5 on.
const serverModule = "go.etcd.io/etcd/server/v3"

// BuildTimeout bounds one build (downloading the modules and compiling).
const BuildTimeout = 15 * time.Minute

// EnvCacheDir names the cache directory when set.
const EnvCacheDir = "ETCDLAB_CACHE_DIR"

// Builder builds etcd versions into a cache. Its zero value uses the
// default cache and the go command in PATH. Its methods are safe for
// concurrent use, also by several processes: a build holds a lock file per
// version, and the binary appears in the cache only once it is whole.
type Builder struct {
	// Dir is the cache of built versions (Dir/v3.5.35/etcd); empty means
	// DefaultDir().
	Dir string
	// Go is the go command; empty means "go" looked up in PATH.
	Go string
	// Log receives a line when a build starts and ends; nil discards it.
	Log io.Writer
}

// DefaultDir is where built etcd versions are cached:
// $ETCDLAB_CACHE_DIR/etcd, else the user's cache directory
// ($XDG_CACHE_HOME or ~/.cache)/etcdlab/etcd.
func DefaultDir() (string, error) {
	if d := os.Getenv(EnvCacheDir); d != "" {
		return filepath.Join(d, "etcd"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("etcd build cache: %w", err)
	}
	return filepath.Join(d, "etcdlab", "etcd"), nil
}

// Info is what the cache records of a build (Dir/v3.5.35/build.json).
type Info struct {
	Version   string    `json:"version"`
	GoVersion string    `json:"go_version"`
	BuiltAt   time.Time `json:"built_at"`
	Seconds   float64   `json:"build_seconds"`
	Bytes     int64     `json:"bytes"`
}

// Binary returns the path of the etcd binary of version v, building it
// first when the cache lacks it. A version without a patch (3.6) is first
// resolved to the newest patch the module proxy serves. 3.4 and older are
// refused (their module cannot be built by path; give a binary instead).
func (b Builder) Binary(ctx context.Context, v Version) (string, error) {
	if v.Major != 3 || v.Minor < 5 {
		return "", invalid.Errorf("{Etcd} %s: etcd before 3.5 cannot be built from its Go modules (its module has no /v3 path); give the path of a %s binary instead (Debian's etcd-server package installs 3.4.23 as /usr/bin/etcd)", v, v)
	}
	dir := b.Dir
	if dir == "" {
		var err error
		if dir, err = DefaultDir(); err != nil {
			return "", err
		}
	}
	if v.Patch >= 0 { // an exact version needs no toolchain once built
		if p := filepath.Join(dir, v.Tag(), "etcd"); executable(p) {
			return p, nil
		}
	}
	goCmd, err := b.goCommand(v)
	if err != nil {
		return "", err
	}
	if v.Patch < 0 {
		if v, err = b.newestPatch(ctx, goCmd, v); err != nil {
			return "", err
		}
		if p := filepath.Join(dir, v.Tag(), "etcd"); executable(p) {
			return p, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("etcd build cache: %w", err)
	}
	unlock, err := lock(ctx, filepath.Join(dir, v.Tag()+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	out := filepath.Join(dir, v.Tag(), "etcd")
	if executable(out) { // another process built it while we waited
		return out, nil
	}
	return out, b.build(ctx, goCmd, dir, v)
}

// goCommand finds the go command, or says why a version cannot be built.
func (b Builder) goCommand(v Version) (string, error) {
	name := b.Go
	if name == "" {
		name = "go"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", invalid.Errorf("{Etcd} %s: building etcd from its modules needs the Go toolchain, and %q is not in PATH (install Go 1.24 or newer, or give the path of an etcd binary)", v, name)
	}
	return p, nil
}

// build compiles v into dir/TAG/etcd through a scratch module in
// dir/.build-TAG-*, which it removes (and any a killed build left).
func (b Builder) build(ctx context.Context, goCmd, dir string, v Version) error {
	stale, _ := filepath.Glob(filepath.Join(dir, ".build-"+v.Tag()+"-*"))
	for _, s := range stale { // we hold the lock: no one is using them
		_ = os.RemoveAll(s)
	}
	tmp, err := os.MkdirTemp(dir, ".build-"+v.Tag()+"-")
	if err != nil {
		return fmt.Errorf("etcd build cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module etcdlab.local/build-etcd\n\ngo 1.22\n"), 0o644); err != nil {
		return fmt.Errorf("etcd build: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, BuildTimeout)
	defer cancel()
	began := time.Now()
	if b.Log != nil {
		fmt.Fprintf(b.Log, "building etcd %s from its Go modules (once: cached in %s; about a minute, longer when the modules must be downloaded)\n", v, dir)
	}
	steps := [][]string{
		{"get", serverModule + "@" + v.Tag()},
		{"build", "-trimpath", "-o", filepath.Join(tmp, "etcd"), serverModule},
	}
	for _, args := range steps {
		cmd := exec.CommandContext(ctx, goCmd, args...)
		cmd.Dir = tmp
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "CGO_ENABLED=0", "GOWORK=off")
		cmd.WaitDelay = 5 * time.Second
		if out, err := cmd.CombinedOutput(); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("build etcd %s: `go %s` did not end within %s", v, args[0], BuildTimeout)
			}
			return fmt.Errorf("build etcd %s: `go %s`: %v: %s", v, args[0], err, lastLine(out))
		}
	}
	got, err := versionOf(ctx, filepath.Join(tmp, "etcd"))
	if err != nil || got != v.String() {
		return fmt.Errorf("build etcd %s: the binary says it is %q (%v)", v, got, err)
	}
	goVersion, _ := exec.CommandContext(ctx, goCmd, "env", "GOVERSION").Output()
	fi, err := os.Stat(filepath.Join(tmp, "etcd"))
	if err != nil {
		return fmt.Errorf("build etcd %s: %w", v, err)
	}
	info := Info{Version: v.String(), GoVersion: strings.TrimSpace(string(goVersion)), BuiltAt: time.Now().UTC(), Seconds: time.Since(began).Seconds(), Bytes: fi.Size()}
	final := filepath.Join(dir, v.Tag())
	if err := os.MkdirAll(final, 0o755); err != nil {
		return fmt.Errorf("etcd build cache: %w", err)
	}
	j, _ := json.MarshalIndent(info, "", "  ")
	if err := os.WriteFile(filepath.Join(final, "build.json"), append(j, '\n'), 0o644); err != nil {
		return fmt.Errorf("etcd build cache: %w", err)
	}
	// The rename makes the binary appear whole, or not at all.
	if err := os.Rename(filepath.Join(tmp, "etcd"), filepath.Join(final, "etcd")); err != nil {
		return fmt.Errorf("etcd build cache: %w", err)
	}
	if b.Log != nil {
		fmt.Fprintf(b.Log, "built etcd %s in %.0f s (%d MB)\n", v, info.Seconds, info.Bytes>>20)
	}
	return nil
}

// newestPatch asks the module proxy for the newest release of v's minor.
func (b Builder) newestPatch(ctx context.Context, goCmd string, v Version) (Version, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, "list", "-m", "-f", "{{.Version}}", serverModule+"@"+v.Tag())
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GO111MODULE=on", "GOWORK=off")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%s", lastLine(ee.Stderr))
		}
		return v, invalid.Errorf("{Etcd} %s: the module proxy names no release of it: %v", v, err)
	}
	got, ok := ParseVersion(strings.TrimSpace(string(out)))
	if !ok || got.Patch < 0 {
		return v, fmt.Errorf("etcd %s: the module proxy answered %q", v, strings.TrimSpace(string(out)))
	}
	return got, nil
}

// lock takes an exclusive lock on path, waiting (while ctx lasts) for
// another process's build to end. The kernel drops it if we die.
func lock(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("etcd build cache: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("etcd build cache: lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("etcd build cache: waiting for another build of %s: %w", filepath.Base(path), ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// versionRE finds the version in `etcd --version`'s first line
// ("etcd Version: 3.4.23").
var etcdVersionRE = regexp.MustCompile(`etcd Version:\s*(\S+)`)

// versionOf runs `path --version` (5 s at most) and returns the version it
// prints.
func versionOf(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	m := etcdVersionRE.FindSubmatch(out)
	if err != nil || m == nil {
		if err == nil {
			err = errors.New(`no "etcd Version:" line`)
		}
		return "", err
	}
	return string(m[1]), nil
}
