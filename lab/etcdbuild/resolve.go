package etcdbuild

import (
	"context"
	"os"
	"strings"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/buildcache"
)

// Resolve turns spec, what a person wrote for the etcd to run, into an
// etcd binary and the version it prints: a path (anything with a slash,
// or an existing file) is checked with --version; a version (3.5, 3.7.3)
// is built once (Binary). An empty spec resolves to ("", ""): the etcd
// embedded in etcdlab.
func (b Builder) Resolve(ctx context.Context, spec string) (path, version string, err error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return "", "", nil
	}
	path = spec
	if v, ok := ParseVersion(spec); ok && !strings.Contains(spec, "/") {
		if _, err := os.Stat(spec); err != nil { // "3.5" is not a file here
			if path, err = b.Binary(ctx, v); err != nil {
				return "", "", err
			}
		}
	}
	version, err = BinaryVersion(ctx, path)
	return path, version, err
}

// BinaryVersion runs `path --version` and returns the version it prints,
// or an invalid-input error naming the binary when it is no etcd.
func BinaryVersion(ctx context.Context, path string) (string, error) {
	if !buildcache.Executable(path) {
		return "", invalid.Errorf("{Etcd} %q: not an executable file nor an etcd version (give a version such as 3.5.35, or the path of an etcd binary such as Debian's /usr/bin/etcd)", path)
	}
	v, err := buildcache.VersionOf(ctx, path, etcdVersionRE)
	if err != nil {
		return "", invalid.Errorf("{Etcd} %q: `%s --version` printed no etcd version (%v)", path, path, err)
	}
	return v, nil
}
