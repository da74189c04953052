package kubebuild

import (
	"context"
	"fmt"
	"io"
	"regexp"
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
// (Dir/v1.34.2/build.json): Pinned is the staging modules, as that
// release's go.mod names them; Binaries is keyed by Component.
type Info = buildcache.Info

// BinaryInfo is one component's build. Seconds is that component's own
// `go build`; the first component of a version also compiles what the
// others share.
type BinaryInfo = buildcache.BinaryInfo

// kubeVersionRE finds the release in `--version`'s output ("Kubernetes
// v1.34.2").
var kubeVersionRE = regexp.MustCompile(`^Kubernetes (\S+)`)

// recipe is how Kubernetes' components are built: a scratch module that
// requires k8s.io/kubernetes and pins its staging modules (prepare), one
// `go build` with version ldflags per component.
func recipe() *buildcache.Recipe {
	return &buildcache.Recipe{
		Kind:      "kubernetes",
		Name:      "Kubernetes",
		Field:     "Kubernetes",
		Module:    module,
		Timeout:   BuildTimeout,
		VersionRE: kubeVersionRE,
		Want:      Version.Tag,
		Prepare: func(ctx context.Context, g buildcache.Go, v Version, targets []string) ([]string, error) {
			return prepare(ctx, g, v, targets)
		},
		Compile: func(ctx context.Context, g buildcache.Go, v Version, target, out string) error {
			_, err := g.Run(ctx, "build", "-trimpath", "-ldflags", ldflags(v, time.Now()), "-o", out, Component(target).pkg())
			return err
		},
		Starting: func(v Version, targets []string, dir string) string {
			return fmt.Sprintf("building Kubernetes %s (%s) from its Go modules (once: cached in %s; about 4.5 minutes for kube-apiserver on 2 cores, under 2 for each other component, longer when the modules must be downloaded)", v, strings.Join(targets, ", "), dir)
		},
		Built: func(v Version, target string, b BinaryInfo) string {
			return fmt.Sprintf("built %s %s in %.0f s (%d MB)", target, v, b.Seconds, b.Bytes>>20)
		},
	}
}

// cache is b as lab/buildcache's builder.
func (b Builder) cache() (buildcache.Builder, error) {
	dir := b.Dir
	if dir == "" {
		var err error
		if dir, err = DefaultDir(); err != nil {
			return buildcache.Builder{}, err
		}
	}
	return buildcache.Builder{Dir: dir, Go: b.Go, Log: b.Log}, nil
}

// Cached returns the paths of components cs of version v when the cache
// holds all of them, without building anything (nor needing a toolchain).
func (b Builder) Cached(v Version, cs ...Component) (map[Component]string, bool) {
	bc, err := b.cache()
	if err != nil {
		return nil, false
	}
	paths, ok := bc.Cached(recipe(), v, targets(cs)...)
	if !ok {
		return nil, false
	}
	return byComponent(paths), true
}

// Info reads the cache's record of version v's builds.
func (b Builder) Info(v Version) (Info, error) {
	bc, err := b.cache()
	if err != nil {
		return Info{}, err
	}
	return bc.Info(recipe(), v)
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
	if v.Major != 1 || v.Minor < 30 {
		return nil, invalid.Errorf("{Kubernetes} %s: the lab builds Kubernetes 1.30 and newer", v)
	}
	bc, err := b.cache()
	if err != nil {
		return nil, err
	}
	paths, err := bc.Build(ctx, recipe(), v, targets(cs)...)
	if err != nil {
		return nil, err
	}
	return byComponent(paths), nil
}

// targets are the components' binary names.
func targets(cs []Component) []string {
	ts := make([]string, len(cs))
	for i, c := range cs {
		ts[i] = string(c)
	}
	return ts
}

// byComponent keys paths by component.
func byComponent(paths map[string]string) map[Component]string {
	out := make(map[Component]string, len(paths))
	for t, p := range paths {
		out[Component(t)] = p
	}
	return out
}
