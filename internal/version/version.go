// Package version reports which etcdlab and which etcd this binary is.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"

	etcdversion "go.etcd.io/etcd/api/v3/version"
)

// Version is etcdlab's version. Release builds set it with
// -ldflags "-X github.com/etcdlab/etcdlab/internal/version.Version=v1.2.3"; otherwise
// it is read from the module's build information.
var Version = "" //nolint:gochecknoglobals // set by the linker only

// Etcdlab returns etcdlab's version string.
func Etcdlab() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Etcd returns the version of the etcd server and client linked in.
func Etcd() string { return etcdversion.Version }

// String is the one-line version banner printed by `etcdlab --version`.
func String() string {
	return fmt.Sprintf("%s (etcd %s, %s %s/%s)", Etcdlab(), Etcd(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
