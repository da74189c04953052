package buildcache

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Version is a release of a published module, MAJOR.MINOR.PATCH (etcd
// 3.5.35, Kubernetes 1.34.2); Patch < 0 means "the newest patch of that
// minor the module proxy serves".
type Version struct {
	Major, Minor, Patch int
}

// versionRE matches what a person writes for a release: 3.5, v3.5.35,
// 1.34.2.
var versionRE = regexp.MustCompile(`^v?(\d+)\.(\d+)(?:\.(\d+))?$`)

// ParseVersion reads s (3.5, v3.5.35, 1.34) as a release; ok is false when
// s is not one (then it may be a path).
func ParseVersion(s string) (v Version, ok bool) {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Version{}, false
	}
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	v.Patch = -1
	if m[3] != "" {
		v.Patch, _ = strconv.Atoi(m[3])
	}
	return v, true
}

// String is the release without the v (3.5.35), or 3.5 without a patch.
func (v Version) String() string {
	if v.Patch < 0 {
		return fmt.Sprintf("%d.%d", v.Major, v.Minor)
	}
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// Tag is the module version, v3.5.35 (or the query v3.5).
func (v Version) Tag() string { return "v" + v.String() }

// versionTimeout bounds `BINARY --version`.
const versionTimeout = 10 * time.Second

// VersionOf runs `path --version` (10 s at most) and returns the first
// submatch of re in what it prints: the version the binary says it is.
// Its errors do not repeat path.
func VersionOf(ctx context.Context, path string, re *regexp.Regexp) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("--version: %w", err)
	}
	m := re.FindSubmatch(out)
	if len(m) < 2 {
		return "", fmt.Errorf("no version in its output %q", strings.TrimSpace(string(out)))
	}
	return string(m[1]), nil
}
