package etcdbuild

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/buildcache"
)

// serverModule is etcd's server module; its root package is etcd's main
// from 3.5 on.
const serverModule = "go.etcd.io/etcd/server/v3"

// binaryName is the one target of an etcd build.
const binaryName = "etcd"

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

// Info is what the cache records of a version's build
// (Dir/v3.5.35/build.json).
type Info = buildcache.Info

// etcdVersionRE finds the version in `etcd --version`'s first line
// ("etcd Version: 3.4.23").
var etcdVersionRE = regexp.MustCompile(`etcd Version:\s*(\S+)`)

// recipe is how etcd is built: `go get` the server module at the version
// in a scratch module, `go build` its main package.
func recipe() *buildcache.Recipe {
	return &buildcache.Recipe{
		Kind:      "etcd",
		Name:      "etcd",
		Field:     "Etcd",
		Module:    serverModule,
		NoGoHint:  ", or give the path of an etcd binary",
		Timeout:   BuildTimeout,
		VersionRE: etcdVersionRE,
		Want:      Version.String,
		Prepare: func(ctx context.Context, g buildcache.Go, v Version, _ []string) ([]string, error) {
			if err := os.WriteFile(filepath.Join(g.Dir, "go.mod"), []byte("module etcdlab.local/build-etcd\n\ngo 1.22\n"), 0o644); err != nil {
				return nil, err
			}
			_, err := g.Run(ctx, "get", serverModule+"@"+v.Tag())
			return nil, err
		},
		Compile: func(ctx context.Context, g buildcache.Go, _ Version, _, out string) error {
			_, err := g.Run(ctx, "build", "-trimpath", "-o", out, serverModule)
			return err
		},
		Starting: func(v Version, _ []string, dir string) string {
			return fmt.Sprintf("building etcd %s from its Go modules (once: cached in %s; about a minute, longer when the modules must be downloaded)", v, dir)
		},
		Built: func(v Version, _ string, b buildcache.BinaryInfo) string {
			return fmt.Sprintf("built etcd %s in %.0f s (%d MB)", v, b.Seconds, b.Bytes>>20)
		},
	}
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
	paths, err := buildcache.Builder{Dir: dir, Go: b.Go, Log: b.Log}.Build(ctx, recipe(), v, binaryName)
	if err != nil {
		return "", err
	}
	return paths[binaryName], nil
}
