package cluster

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/etcdlab/etcdlab/internal/version"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdbuild"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

// Members from an etcd binary (Options.Etcd, MemberEtcd): each such member
// runs `ETCD --config-file FILE` with the configuration file the embedded
// etcd reads, written for its version (member.Config.Version). A version
// is first built from etcd's modules into the shared cache (package
// etcdbuild). The process is started exactly as an embedded member's (its
// own process group, SIGKILLed by the kernel if etcdlab dies); the
// teardown signal, which etcd does not handle, ends it at once as a hard
// stop does, and SIGTERM stops it gracefully as it does the embedded one.

// memberEtcd is the etcd one member runs: bin "" is the embedded one.
type memberEtcd struct {
	bin, version string
}

// resolveEtcd finds (building if need be) the etcd of every member.
func (c *Cluster) resolveEtcd(ctx context.Context) error {
	b := etcdbuild.Builder{Log: c.opts.Log}
	seen := map[string]memberEtcd{}
	c.etcd = make([]memberEtcd, len(c.names))
	for i, n := range c.names {
		spec := c.opts.etcdSpec(n)
		e, ok := seen[spec]
		if !ok {
			bin, v, err := b.Resolve(ctx, spec)
			if err != nil {
				return err
			}
			if bin == "" {
				v = version.Etcd()
			}
			e = memberEtcd{bin: bin, version: v}
			seen[spec] = e
		}
		c.etcd[i] = e
	}
	if err := checkMix(c.names, c.etcd); err != nil {
		return err
	}
	if c.opts.Links != nil {
		for i, e := range c.etcd {
			if !etcdbuild.AtLeast(e.version, 3, 6) {
				return invalid.Errorf("member %s runs etcd %s: an emulated network needs etcd 3.6 or newer on every member (its peer connections must leave from the member's own address, SetMemberLocalAddr); run it without links, or give it 3.6+", c.names[i], e.version)
			}
		}
	}
	for _, d := range describeEtcd(c.names, c.etcd) {
		fmt.Fprintln(c.opts.Log, d)
	}
	return nil
}

// etcdSpec is what the options name as member name's etcd.
func (o *Options) etcdSpec(name string) string {
	if s, ok := o.MemberEtcd[name]; ok && s != "" {
		return s
	}
	return o.Etcd
}

// versionSummary is the members' etcd as one string
// (etcdclient.VersionSummary).
func versionSummary(names []string, etcd []memberEtcd) string {
	by := make(map[string]string, len(names))
	for i, e := range etcd {
		by[names[i]] = e.version
	}
	return etcdclient.VersionSummary(by)
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

// describeEtcd says which etcd the members run, for logs: nothing when
// every member runs the embedded one.
func describeEtcd(names []string, etcd []memberEtcd) []string {
	var lines []string
	for i, e := range etcd {
		if e.bin != "" {
			lines = append(lines, fmt.Sprintf("member %s runs etcd %s from %s", names[i], e.version, e.bin))
		}
	}
	return lines
}

// checkMix refuses a mixed cluster etcd does not run: members more than
// one minor version apart (a mixed cluster exists only during a move of
// one minor; 3.7 members stop with a panic beside a 3.5 member).
func checkMix(names []string, etcd []memberEtcd) error {
	lo, hi := -1, -1
	for i, e := range etcd {
		_, mi, ok := etcdbuild.MinorOf(e.version)
		if !ok {
			continue
		}
		if lo < 0 || mi < etcdMinor(etcd[lo]) {
			lo = i
		}
		if hi < 0 || mi > etcdMinor(etcd[hi]) {
			hi = i
		}
	}
	if lo >= 0 && etcdMinor(etcd[hi])-etcdMinor(etcd[lo]) > 1 {
		return invalid.Errorf("{MemberEtcd}: member %s runs etcd %s and member %s %s: etcd mixes only versions one minor apart (as during an upgrade)", names[lo], etcd[lo].version, names[hi], etcd[hi].version)
	}
	return nil
}

func etcdMinor(e memberEtcd) int {
	_, mi, _ := etcdbuild.MinorOf(e.version)
	return mi
}
