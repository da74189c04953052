package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

// Members from an etcd binary (Options.Etcd): each member runs
// `ETCD --config-file FILE` with the same configuration file the embedded
// etcd reads (etcd reads its YAML with --config-file from 3.4 on, with
// the keys this lab writes: zap logger, log outputs, metrics URLs, TLS).
// The process is started exactly as an embedded member's (its own process
// group, SIGKILLed by the kernel if etcdlab dies); the teardown signal,
// which etcd does not handle, ends it at once as a hard stop does.

// etcdVersionRE finds the version in `etcd --version`'s first line
// ("etcd Version: 3.4.23").
var etcdVersionRE = regexp.MustCompile(`etcd Version:\s*(\S+)`)

// binaryVersion runs `path --version` (5 s at most) and returns the
// version it prints, or an invalid-input error naming the binary when it
// is no etcd.
func binaryVersion(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", invalid.Errorf("{Etcd} %q: not an executable file (give the path of an etcd binary, such as Debian's /usr/bin/etcd)", path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	m := etcdVersionRE.FindSubmatch(out)
	if err != nil || m == nil {
		return "", invalid.Errorf("{Etcd} %q: `%s --version` printed no etcd version (%v)", path, path, errOr(err, "no \"etcd Version:\" line"))
	}
	return string(m[1]), nil
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// memberCommand is the command that runs a member for the configuration
// at configPath: the embedded etcd (exe member --config FILE) or the etcd
// binary etcd.
func memberCommand(exe, etcd, configPath string) *exec.Cmd {
	if etcd != "" {
		return exec.Command(etcd, "--config-file", configPath)
	}
	return exec.Command(exe, "member", "--config", configPath)
}

// describeEtcd says which etcd the members run, for logs.
func describeEtcd(o *Options, version string) string {
	if o.Etcd == "" {
		return "the embedded etcd " + version
	}
	return fmt.Sprintf("etcd %s from %s", version, o.Etcd)
}
