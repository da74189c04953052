package kubebuild

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/buildcache"
)

// module is Kubernetes' main module.
const module = "k8s.io/kubernetes"

// BuildTimeout bounds one build of a version's missing components
// (downloading the modules and compiling; the apiserver alone takes about
// 4.5 minutes on 2 cores).
const BuildTimeout = 45 * time.Minute

// DefaultDir is where built Kubernetes versions are cached:
// $ETCDLAB_CACHE_DIR/kubernetes, else ~/.cache/etcdlab/kubernetes.
func DefaultDir() (string, error) { return buildcache.Dir("kubernetes") }

// Builder builds Kubernetes components into a cache. Its zero value uses
// the default cache and the go command in PATH. Its methods are safe for
// concurrent use, also by several processes: a build holds a lock file per
// version, and a binary appears in the cache only once it is whole.
type Builder struct {
	// Dir is the cache (Dir/v1.34.2/kube-apiserver); empty means
	// DefaultDir().
	Dir string
	// Go is the go command; empty means "go" looked up in PATH.
	Go string
	// Log receives a line when a build starts and ends; nil discards it.
	Log io.Writer
}

// Info is what the cache records of a version's builds
// (Dir/v1.34.2/build.json).
type Info struct {
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
	// Staging is the modules pinned at the staging version, as that
	// release's go.mod names them.
	Staging  []string                 `json:"staging_modules"`
	Binaries map[Component]BinaryInfo `json:"binaries"`
}

// BinaryInfo is one component's build. Seconds is that component's own
// `go build`; the first component of a version also compiles what the
// others share.
type BinaryInfo struct {
	BuiltAt time.Time `json:"built_at"`
	Seconds float64   `json:"build_seconds"`
	Bytes   int64     `json:"bytes"`
}

// dir resolves the cache directory.
func (b Builder) dir() (string, error) {
	if b.Dir != "" {
		return b.Dir, nil
	}
	return DefaultDir()
}

// Cached returns the paths of components cs of version v when the cache
// holds all of them, without building anything (nor needing a toolchain).
func (b Builder) Cached(v Version, cs ...Component) (map[Component]string, bool) {
	dir, err := b.dir()
	if err != nil || v.Patch < 0 {
		return nil, false
	}
	paths := make(map[Component]string, len(cs))
	for _, c := range cs {
		p := filepath.Join(dir, v.Tag(), string(c))
		if !buildcache.Executable(p) {
			return nil, false
		}
		paths[c] = p
	}
	return paths, true
}

// Info reads the cache's record of version v's builds.
func (b Builder) Info(v Version) (Info, error) {
	dir, err := b.dir()
	if err != nil {
		return Info{}, err
	}
	var info Info
	data, err := os.ReadFile(filepath.Join(dir, v.Tag(), "build.json"))
	if err != nil {
		return Info{}, fmt.Errorf("kubernetes build cache: %w", err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return Info{}, fmt.Errorf("kubernetes build cache: %s: %w", filepath.Join(dir, v.Tag(), "build.json"), err)
	}
	return info, nil
}

// Binaries returns the paths of components cs of version v, building
// those the cache lacks first (one scratch module for all of them, one
// `go build` each). A version without a patch (1.34) is first resolved to
// the newest patch the module proxy serves.
func (b Builder) Binaries(ctx context.Context, v Version, cs ...Component) (map[Component]string, error) {
	for _, c := range cs {
		if !c.valid() {
			return nil, invalid.Errorf("{Kubernetes} %q: not a component the lab builds (%s, %s, %s or %s)", c, APIServer, ControllerManager, Scheduler, Kubemark)
		}
	}
	if v.Minor < 30 {
		return nil, invalid.Errorf("{Kubernetes} %s: the lab builds Kubernetes 1.30 and newer", v)
	}
	if paths, ok := b.Cached(v, cs...); ok {
		return paths, nil
	}
	dir, err := b.dir()
	if err != nil {
		return nil, err
	}
	goCmd, err := buildcache.LookGo(b.Go)
	if err != nil {
		name := b.Go
		if name == "" {
			name = "go"
		}
		return nil, invalid.Errorf("{Kubernetes} %s: building Kubernetes from its modules needs the Go toolchain, and %q is not in PATH (install Go 1.24 or newer)", v, name)
	}
	if v.Patch < 0 {
		if v, err = newestPatch(ctx, goCmd, v); err != nil {
			return nil, err
		}
		if paths, ok := b.Cached(v, cs...); ok {
			return paths, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("kubernetes build cache: %w", err)
	}
	unlock, err := buildcache.Lock(ctx, filepath.Join(dir, v.Tag()+".lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	var missing []Component
	for _, c := range cs {
		if _, ok := b.Cached(v, c); !ok { // another process may have built it while we waited
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		if err := b.build(ctx, goCmd, dir, v, missing); err != nil {
			return nil, err
		}
	}
	paths, ok := b.Cached(v, cs...)
	if !ok {
		return nil, fmt.Errorf("kubernetes %s: built, yet not in the cache %s", v, dir)
	}
	return paths, nil
}

// newestPatch asks the module proxy for the newest release of v's minor.
func newestPatch(ctx context.Context, goCmd string, v Version) (Version, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := buildcache.Go{Path: goCmd, Dir: os.TempDir()}.Run(ctx, "list", "-m", "-f", "{{.Version}}", module+"@"+v.Tag())
	if err != nil {
		return v, invalid.Errorf("{Kubernetes} %s: the module proxy names no release of it: %v", v, err)
	}
	got, ok := ParseVersion(strings.TrimSpace(string(out)))
	if !ok || got.Patch < 0 {
		return v, fmt.Errorf("kubernetes %s: the module proxy answered %q", v, strings.TrimSpace(string(out)))
	}
	return got, nil
}
