package buildcache_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/etcdlab/etcdlab/lab/buildcache"
)

// A new kind of build is one Recipe: what differs from every other build.
// The procedure (cache, lock, recheck, scratch module, version check,
// atomic publication of the binary and build.json) is Builder.Build's.
func Example_recipe() {
	const module = "go.etcd.io/etcd/etcdutl/v3"
	etcdutl := &buildcache.Recipe{
		Kind: "etcdutl", Name: "etcdutl", Field: "Etcdutl", Module: module,
		Timeout:   10 * time.Minute,
		VersionRE: regexp.MustCompile(`etcdutl version:\s*(\S+)`),
		Want:      buildcache.Version.String,
		Prepare: func(ctx context.Context, g buildcache.Go, v buildcache.Version, _ []string) ([]string, error) {
			if err := os.WriteFile(filepath.Join(g.Dir, "go.mod"), []byte("module etcdlab.local/build-etcdutl\n\ngo 1.22\n"), 0o644); err != nil {
				return nil, err
			}
			_, err := g.Run(ctx, "get", module+"@"+v.Tag())
			return nil, err
		},
		Compile: func(ctx context.Context, g buildcache.Go, _ buildcache.Version, _, out string) error {
			_, err := g.Run(ctx, "build", "-trimpath", "-o", out, module)
			return err
		},
	}
	v, _ := buildcache.ParseVersion("3.6")
	b := buildcache.Builder{Log: os.Stderr} // the cache: $ETCDLAB_CACHE_DIR/etcdutl or ~/.cache/etcdlab/etcdutl
	if _, ok := b.Cached(etcdutl, v, "etcdutl"); !ok {
		fmt.Println("etcdutl 3.6 is built on first use: b.Build(ctx, etcdutl, v, \"etcdutl\")")
	}
	// Output: etcdutl 3.6 is built on first use: b.Build(ctx, etcdutl, v, "etcdutl")
}
