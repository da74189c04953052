// Package etcdbuild turns what a person names as "the etcd to run" into an
// etcd binary: a path is taken as it is, a version (3.5.35, v3.7, 3.6) is
// built once from etcd's Go modules with the Go toolchain into a cache
// shared by every run and test on the machine (lab/buildcache's procedure,
// with etcd's recipe). It is what `--etcd VERSION|PATH` and `etcd:` in
// topologies and experiments stand on.
package etcdbuild

import (
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/lab/buildcache"
)

// Version is an etcd release, 3.MINOR.PATCH; Patch < 0 means "the newest
// patch of that minor the module proxy serves" (lab/buildcache's).
type Version = buildcache.Version

// ParseVersion reads s as an etcd version (3.5, v3.5.35, 3.7.3); ok is
// false when s is not one (then it may be a path).
func ParseVersion(s string) (Version, bool) { return buildcache.ParseVersion(s) }

// MinorOf reads the major and minor of a version string as etcd prints it
// ("3.4.23", "3.6.16", "3.7.0-rc.0"); ok is false for anything else.
func MinorOf(s string) (major, minor int, ok bool) {
	parts := strings.SplitN(strings.TrimPrefix(s, "v"), ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	var err1, err2 error
	major, err1 = strconv.Atoi(parts[0])
	minor, err2 = strconv.Atoi(parts[1])
	return major, minor, err1 == nil && err2 == nil
}

// AtLeast reports whether version s (as etcd prints it) is major.minor
// or newer; an unreadable version counts as new (the embedded etcd's).
func AtLeast(s string, major, minor int) bool {
	ma, mi, ok := MinorOf(s)
	if !ok {
		return true
	}
	return ma > major || ma == major && mi >= minor
}
