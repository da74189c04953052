package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/internal/version"
	"github.com/etcdlab/etcdlab/lab/cgroup"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// upProcess is `etcdlab cluster up` running as its own process.
type upProcess struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan error
}

func startUp(t *testing.T, dir string, args ...string) *upProcess {
	t.Helper()
	p := &upProcess{done: make(chan error, 1)}
	p.cmd = exec.Command(binary, append([]string{"cluster", "up"}, args...)...)
	p.cmd.Dir = dir
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
	})
	return p
}

func (p *upProcess) exitedStderr() string {
	select {
	case err := <-p.done:
		p.done <- err
		return "exited: " + p.stderr.String()
	default:
		return ""
	}
}

func (p *upProcess) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-p.done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("cluster up did not exit")
		return nil
	}
}

// cli runs the built binary to completion.
func cli(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func assertMembersGone(t *testing.T, st cluster.State) {
	t.Helper()
	const within = 5 * time.Second
	for _, m := range st.Members {
		if !m.Process().WaitGone(within) {
			t.Errorf("member %s (pid %d) still running after %v", m.Name, m.PID, within)
		}
	}
}

// TestTLSUpStatusDown runs `cluster up --tls` as a process, checks the client
// files next to the state file and `cluster status` through them, then stops
// it with `cluster down` from "another terminal" and finds nothing left.
func TestTLSUpStatusDown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	began := time.Now()
	up := startUp(t, dir, "--members", "3", "--tls")
	st := waitState(t, filepath.Join(dir, cluster.DefaultStateFile), up.exitedStderr)
	t.Logf("3-member TLS cluster ready after %v", time.Since(began))
	if st.TLS == nil {
		t.Fatal("state file has no TLS paths")
	}
	for _, f := range []string{"ca.crt", "client.crt", "client.key"} {
		if _, err := os.Stat(filepath.Join(dir, ".etcdlab", f)); err != nil {
			t.Errorf("%s not next to the state file: %v", f, err)
		}
	}
	if code, out := cli(t, dir, "cluster", "status"); code != 0 || strings.Count(out, "healthy") != 3 {
		t.Fatalf("status: %d\n%s", code, out)
	}
	code, out := cli(t, dir, "cluster", "status", "--endpoints", strings.Join(st.Endpoints, ","), "--cacert", st.TLS.CACert)
	if code != 1 || !strings.Contains(out, "TLS") {
		t.Fatalf("status without a client certificate: %d\n%s", code, out)
	}
	// Kill one member: status explains it in one cell and exits 1; the
	// foreground process reports it and keeps running.
	victim := st.Members[1]
	if err := victim.Process().Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	victim.Process().WaitGone(5 * time.Second)
	code, out = cli(t, dir, "cluster", "status")
	want := fmt.Sprintf("connection refused (member process %d has exited)", victim.PID)
	if code != 1 || strings.Count(out, want) != 2 || strings.Count(out, "| healthy") != 2 || strings.Contains(out, "goroutine") {
		t.Fatalf("status with %s killed: %d\n%s", victim.Name, code, out)
	}
	if code, out := cli(t, dir, "cluster", "down"); code != 0 {
		t.Fatalf("down: %d\n%s", code, out)
	}
	if err := up.wait(t); err != nil {
		t.Fatalf("cluster up exited with %v\n%s", err, up.stderr.String())
	}
	if !strings.Contains(up.stderr.String(), "member "+victim.Name+" exited") {
		t.Errorf("cluster up did not report the killed member:\n%s", up.stderr.String())
	}
	assertMembersGone(t, st)
	if _, err := os.Stat(filepath.Join(dir, ".etcdlab")); !errors.Is(err, os.ErrNotExist) {
		entries, _ := os.ReadDir(filepath.Join(dir, ".etcdlab"))
		t.Fatalf(".etcdlab left behind: %v", entries)
	}
}

// TestSIGKILLLeavesNoOrphans kills `cluster up` with SIGKILL: every member
// must exit within 5 s, `cluster down` cleans the stale state, and a new
// `cluster up` on the same data dir works and stops cleanly on SIGINT.
func TestSIGKILLLeavesNoOrphans(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	state := filepath.Join(dir, cluster.DefaultStateFile)
	up := startUp(t, dir, "--data-dir", data)
	st := waitState(t, state, up.exitedStderr)
	// A member's CPU limit is a cgroup, which outlives its processes.
	h, cgErr := cgroup.Open(0)
	groups := func() []string {
		g, _ := filepath.Glob(filepath.Join(h.Dir(), cgroup.GroupName(st.Controller.PID, "*")))
		return g
	}
	if cgErr == nil {
		if code, out := cli(t, dir, "cluster", "fault", "cpulimit", "m1", "0.5"); code != 0 || len(groups()) != 1 {
			t.Fatalf("cpulimit: %d %s; groups %v", code, out, groups())
		}
	}
	if err := up.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = up.wait(t)
	assertMembersGone(t, st)

	code, out := cli(t, dir, "cluster", "down")
	if code != 1 || !strings.Contains(out, "stale") {
		t.Fatalf("down on a dead cluster: %d %s", code, out)
	}
	if cgErr == nil && len(groups()) != 0 {
		t.Fatalf("cgroups left after kill -9 and down: %v", groups())
	}
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("stale state file left behind")
	}

	up2 := startUp(t, dir, "--data-dir", data)
	st2 := waitState(t, state, up2.exitedStderr)
	if code, out := cli(t, dir, "cluster", "status"); code != 0 {
		t.Fatalf("status after restart on the same data dir: %d\n%s", code, out)
	}
	if err := up2.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := up2.wait(t); err != nil {
		t.Fatalf("Ctrl-C: cluster up exited with %v\n%s", err, up2.stderr.String())
	}
	assertMembersGone(t, st2)
	if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("data dir made by etcdlab left behind after Ctrl-C: %v", err)
	}
}

// TestCheckAgainstClusterUp runs `etcdlab check --endpoints` with the TLS
// files of a `cluster up --tls` in another process: it reports the members'
// metrics and leaves no key behind.
func TestCheckAgainstClusterUp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	up := startUp(t, dir, "--members", "3", "--tls")
	st := waitState(t, filepath.Join(dir, cluster.DefaultStateFile), up.exitedStderr)
	out := filepath.Join(dir, "out")
	code, stdout := cli(t, dir, "check", "--endpoints", strings.Join(st.Endpoints, ","), "--cacert", st.TLS.CACert, "--cert", st.TLS.Cert,
		"--key", st.TLS.Key, "--level-duration", "1s", "--out", out)
	if code != 0 && code != 3 {
		t.Fatalf("check: exit %d\n%s", code, stdout)
	}
	doc, err := result.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range doc.Check.Members {
		if m.Error != "" || m.WalFsyncP99 <= 0 {
			t.Errorf("member metrics: %+v", m)
		}
	}
	for _, l := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(l); n > render.TermWidth && (strings.HasPrefix(l, "|") || strings.HasPrefix(l, "+")) {
			t.Errorf("a table line of %d columns: %s", n, l)
		}
	}
	if f := doc.Check.Floor; f == nil || !strings.Contains(stdout, "latency floor: ") || (f.FloorSeconds > f.ProbeP50) != (f.Wrong != "") {
		t.Errorf("floor %+v\n%s", f, stdout)
	}
	if b, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(b), "Server metrics over the check") {
		t.Fatalf("report.html: %v", err)
	}
	kv, err := etcdclient.New(st.Client())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	r, err := kv.Get(ctx, "", clientv3.WithPrefix(), clientv3.WithCountOnly())
	cancel()
	kv.Close()
	if err != nil || r.Count != 0 {
		t.Fatalf("keys left behind: %v %v", r, err)
	}
	if code, out := cli(t, dir, "cluster", "down"); code != 0 {
		t.Fatalf("down: %d %s", code, out)
	}
	_ = up.wait(t)
}

// TestKillWithSlowDisk kills `cluster up --fsync-delay --data-dir D` with
// SIGKILL while members wait on delayed fsyncs, with and without an
// emulated network. Within 5 s no member survives, no mount names D, and D
// can be removed: the slow disks were mounted in the members' private
// mount namespace and went with it, leaving nothing for a next run to
// clean. Before the kill, each member (one restarted through the control
// socket too) sees its slow disk and nobody else does.
func TestKillWithSlowDisk(t *testing.T) {
	t.Parallel()
	if err := slowfs.Available(); err != nil {
		t.Skip(err)
	}
	for _, tt := range []struct {
		name    string
		args    []string
		restart string // a member to kill and restart with `cluster fault` first
	}{
		// A member whose fsync the dying server had already read would wait
		// for the answer for ever if it shared the FUSE connection.
		{"1s WAL fsyncs", []string{"--members", "1", "--fsync-delay", "1s", "--fsync-delay-wal-only"}, ""},
		{"rtt 40ms", []string{"--members", "3", "--rtt", "40ms", "--fsync-delay", "20ms"}, "m3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			state := filepath.Join(dir, cluster.DefaultStateFile)
			up := startUp(t, dir, append(tt.args, "--data-dir", data)...)
			st := waitState(t, state, up.exitedStderr)
			if tt.restart != "" {
				for _, f := range []string{"kill", "restart"} {
					if code, out := cli(t, dir, "cluster", "fault", f, tt.restart); code != 0 {
						t.Fatalf("fault %s %s: %d %s", f, tt.restart, code, out)
					}
				}
				waitHealthyCLI(t, dir)
				st = readState(t, state)
			}
			for _, m := range st.Members {
				if got := slowfs.MountsOf(m.PID, m.DataDir); len(got) != 1 || got[0] != m.DataDir {
					t.Fatalf("member %s (pid %d) sees slow-disk mounts %v, want [%s]", m.Name, m.PID, got, m.DataDir)
				}
			}
			if got := slowfs.MountsUnder(data); len(got) != 0 {
				t.Errorf("slow-disk mounts visible outside the cluster: %v", got)
			}
			// Keep puts in flight, so the kill finds fsyncs pending.
			kv, err := etcdclient.New(st.Client())
			if err != nil {
				t.Fatal(err)
			}
			defer kv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			flowing := make(chan struct{})
			go func() {
				for i, first := 0, true; ctx.Err() == nil; i++ {
					if _, err := kv.Put(ctx, "k", strconv.Itoa(i)); err == nil && first {
						first = false
						close(flowing)
					}
				}
			}()
			select { // once a put went through, the next ones are fsyncing
			case <-flowing:
			case <-ctx.Done():
				t.Fatal("no put went through")
			}
			killed := time.Now()
			if err := up.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = up.wait(t)
			assertMembersGone(t, st)
			if !clustertest.Eventually(5*time.Second, func() bool { return len(mountsNaming(t, data)) == 0 }) {
				t.Fatalf("5 s after kill -9, /proc/mounts still lists:\n%s", strings.Join(mountsNaming(t, data), "\n"))
			}
			if err := os.RemoveAll(data); err != nil {
				t.Fatalf("after kill -9: %v", err)
			}
			t.Logf("nothing left %v after kill -9", time.Since(killed).Round(time.Millisecond))
		})
	}
}

// mountsNaming returns the lines of /proc/mounts whose mount point is dir
// or under it.
func mountsNaming(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/mounts")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 1 && (f[1] == dir || strings.HasPrefix(f[1], dir+"/")) {
			out = append(out, l)
		}
	}
	return out
}

// waitHealthyCLI waits until `cluster status` exits 0.
func waitHealthyCLI(t *testing.T, dir string) {
	t.Helper()
	var out string
	if !clustertest.Eventually(15*time.Second, func() bool {
		var code int
		code, out = cli(t, dir, "cluster", "status")
		return code == 0
	}) {
		t.Fatalf("cluster not healthy: %s", out)
	}
}

func readState(t *testing.T, path string) cluster.State {
	t.Helper()
	st, err := cluster.ReadStateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestClusterFault pauses, resumes and kills members of a `cluster up`
// from another process, and checks what status sees.
func TestClusterFault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	up := startUp(t, dir, "--members", "3")
	st := waitState(t, filepath.Join(dir, cluster.DefaultStateFile), up.exitedStderr)
	type step struct {
		args []string
		code int
		want string
	}
	steps := []step{
		{[]string{"cluster", "fault", "pause", "m2"}, 0, "paused m2"},
		{[]string{"cluster", "status"}, 1, "timed out"},
		{[]string{"cluster", "fault", "resume", "m2"}, 0, "resumed m2"},
		{[]string{"cluster", "fault", "kill", "m3"}, 0, "killed m3"},
		{[]string{"cluster", "status"}, 1, "connection refused (member process"},
		{[]string{"cluster", "fault", "kill", "m9"}, 2, `no member "m9"`},
		{[]string{"cluster", "fault", "explode", "m1"}, 2, "unknown fault"},
		{[]string{"cluster", "fault", "kill", "m3"}, 1, "has exited"},
		{[]string{"cluster", "fault", "restart", "m1"}, 1, "member m1 is still running"},
		{[]string{"cluster", "fault", "restart", "m3"}, 0, "restarted m3"},
		{[]string{"cluster", "fault", "link", "m1", "m2", "--delay", "5ms"}, 2, "started without network emulation"},
		{[]string{"cluster", "fault", "partition", "m1", "m2", "m3"}, 2, "one or two member names"},
		{[]string{"cluster", "fault", "cpulimit", "m1", "none"}, 2, "CORES must be a number"},
	}
	if _, err := cgroup.Open(0); err == nil {
		steps = append(steps, []step{
			{[]string{"cluster", "fault", "cpulimit", "m1", "0.5"}, 0, "limited m1 to 0.5 CPUs"},
			{[]string{"cluster", "fault", "cpuunlimit", "m1"}, 0, "removed m1's CPU limit"},
		}...)
	}
	for _, tt := range steps {
		if len(tt.args) > 2 && tt.args[2] == "link" {
			// The restarted member's new process is in the state file.
			waitHealthyCLI(t, dir)
		}
		code, out := cli(t, dir, tt.args...)
		if code != tt.code || !strings.Contains(out, tt.want) {
			t.Fatalf("%v: exit %d\n%s\nwant %d with %q", tt.args, code, out, tt.code, tt.want)
		}
	}
	if !st.Members[1].Process().Alive() {
		t.Fatal("paused and resumed member died")
	}
	st = readState(t, filepath.Join(dir, cluster.DefaultStateFile))
	if code, out := cli(t, dir, "cluster", "down"); code != 0 {
		t.Fatalf("down: %d %s", code, out)
	}
	_ = up.wait(t)
	assertMembersGone(t, st)
}

// TestBudgetsLeaveNothing: `cluster up --member-cpus 0.5` puts each member
// in a cgroup of its own, and kill -9 of `cluster up` followed by
// `cluster down` leaves none of them (issue 24).
func TestBudgetsLeaveNothing(t *testing.T) {
	t.Parallel()
	h, err := cgroup.Open(0)
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	state := filepath.Join(dir, cluster.DefaultStateFile)
	up := startUp(t, dir, "--member-cpus", "0.5")
	st := waitState(t, state, up.exitedStderr)
	groups := func() []string {
		g, _ := filepath.Glob(filepath.Join(h.Dir(), cgroup.GroupName(st.Controller.PID, "*")))
		return g
	}
	if g := groups(); len(g) != 3 {
		t.Fatalf("groups %v, want one per member", g)
	}
	for _, m := range st.Members {
		if m.CPUs != 0.5 {
			t.Errorf("member %s: budget %g in the state file, want 0.5", m.Name, m.CPUs)
		}
	}
	if err := up.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = up.wait(t)
	assertMembersGone(t, st)
	if code, out := cli(t, dir, "cluster", "down"); code != 1 || !strings.Contains(out, "stale") {
		t.Fatalf("down on a dead cluster: %d %s", code, out)
	}
	if g := groups(); len(g) != 0 {
		t.Fatalf("cgroups left after kill -9 and down: %v", g)
	}
}

// TestClusterUpgradeCommand: `cluster up --etcd 3.6.16` (built from
// modules, cached), then `cluster upgrade` from another process moves it to
// the embedded etcd (3.7); the table and the state file name every member's new
// version; what etcd cannot do is refused in one line.
func TestClusterUpgradeCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etcd 3.6 from its modules")
	}
	t.Parallel()
	dir := t.TempDir()
	up := startUp(t, dir, "--members", "3", "--etcd", "3.6.16")
	statePath := filepath.Join(dir, cluster.DefaultStateFile)
	st := waitStateWithin(t, statePath, up.exitedStderr, 10*time.Minute)
	if st.EtcdVersion != "3.6.16" || st.Members[0].EtcdVersion != "3.6.16" {
		t.Fatalf("up --etcd 3.6.16: the state says %q / %q", st.EtcdVersion, st.Members[0].EtcdVersion)
	}
	type step struct {
		args []string
		code int
		want string
	}
	steps := []step{
		{[]string{"cluster", "upgrade"}, 2, "--to is required"},
		{[]string{"cluster", "upgrade", "--to", "/usr/bin/true"}, 2, "printed no etcd version"},
		{[]string{"cluster", "upgrade", "--to", "3.4.23"}, 2, "cannot be built from its Go modules"},
	}
	if _, err := os.Stat(debianEtcd); err == nil { // 3.6 to 3.4 skips a minor
		steps = append(steps, step{[]string{"cluster", "upgrade", "--to", debianEtcd}, 2, "one minor version at a time"})
	}
	steps = append(steps, step{[]string{"cluster", "upgrade", "--to", "embedded"}, 0, "upgraded 3 members to etcd " + version.Etcd()})
	for _, tt := range steps {
		code, out := cli(t, dir, tt.args...)
		if code != tt.code || !strings.Contains(out, tt.want) || code != 0 && strings.Count(strings.TrimSpace(out), "\n") > 0 {
			t.Fatalf("%v: exit %d\n%s\nwant %d with %q", tt.args, code, out, tt.code, tt.want)
		}
		if code == 0 && (strings.Count(out, "3.6.16") != 3 || !strings.Contains(out, "led; handed to")) {
			t.Errorf("%v: want a row per member from 3.6.16 and the leader's hand-over:\n%s", tt.args, out)
		}
	}
	st = readState(t, statePath)
	for _, m := range st.Members {
		if m.EtcdVersion != version.Etcd() || m.EtcdBinary != "" || !m.Process().Alive() {
			t.Errorf("after the upgrade, the state says %s runs %q from %q (alive %v)", m.Name, m.EtcdVersion, m.EtcdBinary, m.Process().Alive())
		}
	}
	if code, out := cli(t, dir, "cluster", "status"); code != 0 || strings.Count(out, version.Etcd()) < 3 {
		t.Errorf("status after the upgrade: exit %d\n%s", code, out)
	}
	// `cluster fault downgrade` is lab/cluster's registry fault, which
	// refuses an etcd that is no downgrade in one line, touching nothing.
	if code, out := cli(t, dir, "cluster", "fault", "downgrade", "embedded"); code != 2 || !strings.Contains(out, "is no downgrade") {
		t.Errorf("cluster fault downgrade embedded: exit %d\n%s", code, out)
	}
	// Back down, written as a versioned result document.
	code, out := cli(t, dir, "cluster", "upgrade", "--to", "3.6.16", "-o", "json")
	doc, err := result.Read(strings.NewReader(out))
	if code != 0 || err != nil || doc.Kind != result.KindUpgrade || doc.Upgrade == nil || !doc.Upgrade.Downgrade ||
		len(doc.Upgrade.Steps) != 3 || doc.Upgrade.DowngradeBegan.IsZero() || doc.Environment.MemberVersions["m1"] != "3.6.16" {
		t.Fatalf("cluster upgrade --to 3.6.16 -o json: exit %d, %v\n%s", code, err, out)
	}
	st = readState(t, statePath)
	if code, out := cli(t, dir, "cluster", "down"); code != 0 {
		t.Fatalf("down: %d %s", code, out)
	}
	if err := up.wait(t); err != nil {
		t.Fatalf("cluster up: %v\n%s", err, up.exitedStderr())
	}
	assertMembersGone(t, st)
}
