package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/emulate/labnet"
	"github.com/etcdlab/etcdlab/lab/cluster"
)

// TestEmulatedUpFaultsAndKill runs `cluster up --rtt` as a process: status
// shows every link with its probed round trip, links change at run time,
// a partitioned leader is replaced (--wait-leader reports the election),
// and kill -9 of etcdlab leaves no member behind, after which the next
// emulated `cluster up` works.
func TestEmulatedUpFaultsAndKill(t *testing.T) {
	t.Parallel()
	if err := labnet.Available(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	up := startUp(t, dir, "--rtt", "10ms")
	st := waitState(t, filepath.Join(dir, cluster.DefaultStateFile), up.exitedStderr)
	if !st.Emulated {
		t.Fatal("state does not say emulated")
	}
	code, out := cli(t, dir, "cluster", "status")
	if code != 0 || !strings.Contains(out, "m1->m2") || !strings.Contains(out, "PROBED RTT") {
		t.Fatalf("status: %d\n%s", code, out)
	}
	if code, out := cli(t, dir, "cluster", "fault", "link", "m1", "m2", "--both", "--delay", "30ms"); code != 0 {
		t.Fatalf("link: %d %s", code, out)
	}
	code, out = cli(t, dir, "cluster", "status", "-o", "json")
	var got struct {
		Members []cluster.MemberStatus `json:"members"`
		Links   []cluster.LinkView     `json:"links"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("status json: %d\n%s", code, out)
	}
	leader := ""
	for _, m := range got.Members {
		if m.Role == "leader" {
			leader = m.Name
		}
	}
	for _, l := range got.Links {
		if l.From == "m1" && l.To == "m2" {
			if l.Link.Delay != 30*time.Millisecond || l.ProbeRTT < 60*time.Millisecond || l.ProbeRTT > 90*time.Millisecond {
				t.Errorf("m1->m2 after the change: delay %v, probed RTT %v (want 30ms, 60..90ms)", l.Link.Delay, l.ProbeRTT)
			}
		}
	}
	code, out = cli(t, dir, "cluster", "fault", "partition", leader, "--wait-leader", "15s")
	if code != 0 || !strings.Contains(out, "new leader") || !strings.Contains(out, "the old leader was "+leader) {
		t.Fatalf("partition %s: %d\n%s", leader, code, out)
	}
	t.Log(strings.TrimSpace(out))
	if code, out := cli(t, dir, "cluster", "fault", "heal", leader); code != 0 {
		t.Fatalf("heal: %d %s", code, out)
	}
	waitHealthyCLI(t, dir)

	// kill -9: members die with their parent, and the namespace with them.
	if err := up.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = up.wait(t)
	assertMembersGone(t, st)
	up2 := startUp(t, dir, "--rtt", "2ms")
	var st2 cluster.State
	for deadline := time.Now().Add(40 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		st2 = waitState(t, filepath.Join(dir, cluster.DefaultStateFile), up2.exitedStderr)
		if st2.Controller != st.Controller {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the next cluster up never wrote its state")
		}
	}
	if code, out := cli(t, dir, "cluster", "down"); code != 0 {
		t.Fatalf("down: %d %s", code, out)
	}
	_ = up2.wait(t)
	assertMembersGone(t, st2)
	if entries, _ := os.ReadDir(filepath.Join(dir, ".etcdlab")); len(entries) != 0 {
		t.Errorf(".etcdlab left: %v", entries)
	}
}

// TestEmulationErrors: each bad request is one line and a usage exit;
// without root, emulation says what it needs.
func TestEmulationErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	yaml := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(yaml, []byte("links: [{between: [m1, m7], rtt: 5ms}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"cluster", "up", "--rtt", "-5ms"}, 2, `--rtt "-5ms": give a round trip like 40ms`},
		{[]string{"cluster", "up", "--rtt", "fast"}, 2, `--rtt "fast"`},
		{[]string{"cluster", "up", "--topology", "multicloud-9"}, 2, `no preset or file "multicloud-9"`},
		{[]string{"cluster", "up", "--topology", yaml}, 2, `link m1->m7: no member "m7" in a 3-member cluster`},
		{[]string{"cluster", "fault", "link", "m1"}, 2, "fault link needs FROM and TO"},
	} {
		code, out := cli(t, dir, tt.args...)
		if code != tt.code || !strings.Contains(out, tt.want) || strings.Count(strings.TrimSpace(out), "\n") > 0 {
			t.Errorf("%v: exit %d\n%s\nwant %d and one line with %q", tt.args, code, out, tt.code, tt.want)
		}
	}
	// Not root: the binary run as nobody explains itself.
	bin := filepath.Join(dir, "etcdlab")
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(work, 0o777); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot run as nobody")
	}
	for _, tc := range []struct{ flag, value, want string }{
		{"--rtt", "10ms", "network emulation needs root"},
		{"--fsync-delay", "10ms", "slow-disk emulation mounts a FUSE file system and needs root"},
	} {
		cmd := exec.Command(bin, "cluster", "up", tc.flag, tc.value)
		cmd.Dir = work
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), tc.want) || strings.Count(strings.TrimSpace(string(out)), "\n") > 0 {
			t.Errorf("%s as nobody: %v\n%s", tc.flag, err, out)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(work, ".etcdlab")); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestPmemPreset: the pmem preset puts the data on tmpfs, and nothing is
// left there afterwards.
func TestPmemPreset(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
	dir := t.TempDir()
	up := startUp(t, dir, "--topology", "pmem", "--members", "1")
	st := waitState(t, filepath.Join(dir, cluster.DefaultStateFile), up.exitedStderr)
	if !strings.HasPrefix(st.DataDir, "/dev/shm/etcdlab/") || st.Emulated {
		t.Fatalf("data dir %s, emulated %v", st.DataDir, st.Emulated)
	}
	if code, out := cli(t, dir, "cluster", "down"); code != 0 {
		t.Fatalf("down: %d %s", code, out)
	}
	_ = up.wait(t)
	if _, err := os.Stat(st.DataDir); !os.IsNotExist(err) {
		t.Errorf("%s left behind", st.DataDir)
	}
}
