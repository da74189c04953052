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
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/buildcache"
)

// serverModule is etcd's server module; its root package is etcd's main
// from 3.5 on.
const serverModule = "go.etcd.io/etcd/server/v3"

// BuildTimeout bounds one build (downloading the modules and compiling).
const BuildTimeout = 15 * time.Minute

// EnvCacheDir names the cache root when set (lab/buildcache's EnvDir).
const EnvCacheDir = buildcache.EnvDir

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
func DefaultDir() (string, error) { return buildcache.Dir("etcd") }

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
	unlock, err := buildcache.Lock(ctx, filepath.Join(dir, v.Tag()+".lock"))
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
	p, err := buildcache.LookGo(name)
	if err != nil {
		return "", invalid.Errorf("{Etcd} %s: building etcd from its modules needs the Go toolchain, and %q is not in PATH (install Go 1.24 or newer, or give the path of an etcd binary)", v, name)
	}
	return p, nil
}

// build compiles v into dir/TAG/etcd through a scratch module in
// dir/.build-TAG-*, which it removes (and any a killed build left).
func (b Builder) build(ctx context.Context, goCmd, dir string, v Version) error {
	tmp, err := buildcache.Scratch(dir, v.Tag())
	if err != nil {
		return err
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
	gocmd := buildcache.Go{Path: goCmd, Dir: tmp}
	for _, args := range steps {
		if _, err := gocmd.Run(ctx, args...); err != nil {
			return fmt.Errorf("build etcd %s: %w", v, err)
		}
	}
	got, err := versionOf(ctx, filepath.Join(tmp, "etcd"))
	if err != nil || got != v.String() {
		return fmt.Errorf("build etcd %s: the binary says it is %q (%v)", v, got, err)
	}
	fi, err := os.Stat(filepath.Join(tmp, "etcd"))
	if err != nil {
		return fmt.Errorf("build etcd %s: %w", v, err)
	}
	info := Info{Version: v.String(), GoVersion: gocmd.Version(ctx), BuiltAt: time.Now().UTC(), Seconds: time.Since(began).Seconds(), Bytes: fi.Size()}
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
	out, err := buildcache.Go{Path: goCmd, Dir: os.TempDir()}.Run(ctx, "list", "-m", "-f", "{{.Version}}", serverModule+"@"+v.Tag())
	if err != nil {
		return v, invalid.Errorf("{Etcd} %s: the module proxy names no release of it: %v", v, err)
	}
	got, ok := ParseVersion(strings.TrimSpace(string(out)))
	if !ok || got.Patch < 0 {
		return v, fmt.Errorf("etcd %s: the module proxy answered %q", v, strings.TrimSpace(string(out)))
	}
	return got, nil
}

func executable(p string) bool { return buildcache.Executable(p) }

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
