package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/member"
	"github.com/etcdlab/etcdlab/result"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestMaintenanceFaultArgs: the maintenance faults' arguments, checked
// before anything runs; a refusal is one invalid-input line.
func TestMaintenanceFaultArgs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault string
		args  []string
		err   string // "" for none
	}{
		{FaultCompact, nil, ""},
		{FaultCompact, []string{"1234"}, ""},
		{FaultCompact, []string{"keep=0"}, ""},
		{FaultCompact, []string{"keep=1000"}, ""},
		{FaultCompact, []string{"keep=x"}, `keep= takes a number of revisions (keep=1000), not "x"`},
		{FaultCompact, []string{"keep=-1"}, `keep= takes a number`},
		{FaultCompact, []string{"0"}, "give a revision (a positive number) or keep=N"},
		{FaultCompact, []string{"m1"}, "give a revision"},
		{FaultCompact, []string{"1", "2"}, `compact takes a revision or keep=N, not "1 2"`},
		{FaultDefragment, nil, "needs one member name"},
		{FaultDefragment, []string{"m1"}, ""},
		{FaultSnapshot, []string{"m1", "m2"}, "needs one member name"},
		{FaultCatchUp, []string{"m1"}, ""},
		{FaultCatchUp, []string{"m1", "20000"}, ""},
		{FaultCatchUp, []string{"m1", "lots"}, "ENTRIES is a positive number"},
		{FaultCatchUp, nil, "needs one member name"},
		{FaultAlarmDisarm, nil, ""},
		{FaultAlarmDisarm, []string{"m1"}, "needs nothing"},
	} {
		_, err := ParseFault(tc.fault, tc.args)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s %v: %v", tc.fault, tc.args, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !invalid.Is(err) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s %v: %v, want an invalid-input line with %q", tc.fault, tc.args, err, tc.err)
		}
	}
	for _, name := range []string{FaultDefragment, FaultCompact, FaultSnapshot, FaultCatchUp, FaultAlarmDisarm} {
		f, err := LookupFault(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := f.(LongFault); !ok || !f.About().LongRunning() {
			t.Errorf("%s is no long fault", name)
		}
	}
	if a, _ := LookupFault(FaultCompact); a.About().TakesMember() {
		t.Errorf("compact takes a member")
	}
}

// TestCompactFault: compact keep=N compacts to the revision asked (the
// current less N) and records how many revisions went; a Get at an older
// revision then fails with ErrCompacted, one at the revision does not; a
// second compact REV records the revisions since the first.
func TestCompactFault(t *testing.T) {
	t.Parallel()
	// The compaction's tuning: etcd takes the keys written for it.
	c := start(t, Options{Members: 3, BaseDir: tmpfsBase(t), Tuning: member.Tuning{CompactionBatchLimit: 50, CompactionSleepInterval: time.Millisecond}})
	cli := client(t, c.Client())
	ctx := context.Background()
	for i := range 300 {
		if err := put(cli, "/compact/k", strings.Repeat("v", i%7)); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := cli.Get(ctx, "/compact/k")
	if err != nil {
		t.Fatal(err)
	}
	current := resp.Header.Revision
	f, err := ParseFault(FaultCompact, []string{"keep=100"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.(LongFault).Run(ctx, c, Request{Args: []string{"keep=100"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := out.Maintenance
	t.Log(out.Detail)
	// Revision is current-100 unless the load of the canaries wrote
	// (they only read): it must be exactly what was asked.
	if rec == nil || rec.Op != result.OpCompact || rec.Revision != current-100 || rec.Revisions != current-100 || rec.Seconds <= 0 {
		t.Fatalf("compacted %+v, want revision %d (the first compaction: all of them)", rec, current-100)
	}
	if _, err := cli.Get(ctx, "/compact/k", clientv3.WithRev(rec.Revision-1)); !errors.Is(err, rpctypes.ErrCompacted) {
		t.Errorf("a Get at revision %d after compacting to %d: %v, want %v", rec.Revision-1, rec.Revision, err, rpctypes.ErrCompacted)
	}
	if _, err := cli.Get(ctx, "/compact/k", clientv3.WithRev(rec.Revision)); err != nil {
		t.Errorf("a Get at the compacted revision: %v", err)
	}
	out, err = f.(LongFault).Run(ctx, c, Request{Args: []string{"1"}})
	if err == nil || !errors.Is(err, rpctypes.ErrCompacted) || out.Maintenance == nil || out.Maintenance.Error == "" {
		t.Errorf("compact to revision 1 after %d: %+v, %v", rec.Revision, out, err)
	}
	rev := current - 50
	lines, err := f.Inject(ctx, c.State(), Request{Args: []string{itoa(rev)}})
	if err != nil || len(lines) != 1 || !strings.HasPrefix(lines[0], "compacted to revision "+itoa(rev)+" ") || !strings.Contains(lines[0], "(of ") || !strings.Contains(lines[0], "; 50 revisions)") {
		t.Errorf("inject compact %d: %v %v", rev, lines, err)
	}
	if n := c.Counts().Faults[FaultCompact]; n != 1 {
		t.Errorf("counted %d compactions, want 1 (Inject is another process's)", n)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestSnapshotFault: a snapshot of a member records its bytes (about the
// database), and leaves no file behind.
func TestSnapshotFault(t *testing.T) {
	t.Parallel()
	c := start(t, Options{Members: 1, BaseDir: tmpfsBase(t)})
	cli := client(t, c.Client())
	for i := range 50 {
		if err := put(cli, "/snap/"+itoa(int64(i)), strings.Repeat("s", 4<<10)); err != nil {
			t.Fatal(err)
		}
	}
	f, err := ParseFault(FaultSnapshot, []string{"m1"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.(LongFault).Run(context.Background(), c, Request{Args: []string{"m1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.Detail)
	rec := out.Maintenance
	if rec == nil || rec.Op != result.OpSnapshot || rec.Member != "m1" || rec.Bytes < 50*4<<10 || rec.Ended.Before(rec.Began) {
		t.Fatalf("snapshot %+v", rec)
	}
	left, _ := filepath.Glob(filepath.Join(c.DataDir(), "etcdlab-snapshot-*"))
	tmp, _ := filepath.Glob(filepath.Join(os.TempDir(), "etcdlab-snapshot-*"))
	if len(left)+len(tmp) > 0 {
		t.Errorf("snapshot files left: %v %v", left, tmp)
	}
}

// TestAlarmDisarmFault: a member out of space (a small quota, filled
// until NOSPACE) raises an alarm; alarm-disarm lists it and leaves none.
func TestAlarmDisarmFault(t *testing.T) {
	t.Parallel()
	c := start(t, Options{Members: 1, BaseDir: tmpfsBase(t), Tuning: member.Tuning{QuotaBackendBytes: 1 << 20}})
	cli := client(t, c.Client())
	ctx := context.Background()
	full := false
	for i := 0; i < 1000 && !full; i++ {
		err := put(cli, "/full/"+itoa(int64(i)), strings.Repeat("f", 64<<10))
		full = errors.Is(err, rpctypes.ErrNoSpace)
		if err != nil && !full {
			t.Fatal(err)
		}
	}
	if !full {
		t.Fatal("1000 puts of 64 KiB never ran out of a 1 MiB quota")
	}
	if _, err := cli.Delete(ctx, "/full/", clientv3.WithPrefix()); err == nil {
		t.Log("a delete passed the NOSPACE alarm")
	}
	f, err := ParseFault(FaultAlarmDisarm, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.(LongFault).Run(ctx, c, Request{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.Detail)
	if rec := out.Maintenance; rec == nil || len(rec.Alarms) != 1 || rec.Alarms[0] != "m1: NOSPACE" || out.Detail != "disarmed m1: NOSPACE" {
		t.Fatalf("alarm-disarm %+v", rec)
	}
	list, err := cli.AlarmList(ctx)
	if err != nil || len(list.Alarms) != 0 {
		t.Errorf("alarms after alarm-disarm: %v %v", list, err)
	}
	out, err = f.(LongFault).Run(ctx, c, Request{})
	if err != nil || out.Detail != "no alarms to disarm" || len(out.Maintenance.Alarms) != 0 {
		t.Errorf("a second alarm-disarm: %+v, %v", out, err)
	}
}

// TestCatchUpFault: with a snapshot count of 1000, a follower killed,
// 7000 entries written, then restarted, catches up from a snapshot the
// leader sent; it is healthy and at the leader's index after, and the
// entries are gone.
func TestCatchUpFault(t *testing.T) {
	t.Parallel()
	c := start(t, Options{Members: 3, BaseDir: tmpfsBase(t), Tuning: member.Tuning{SnapshotCount: 1000}})
	cli := client(t, c.Client())
	ctx := context.Background()
	st := c.State()
	leader, err := leadingMember(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	target := "m1"
	if leader.Name == target {
		target = "m2"
	}
	f, err := ParseFault(FaultCatchUp, []string{target})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.(LongFault).Run(ctx, c, Request{Args: []string{target}})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.Detail)
	rec := out.Maintenance
	if rec == nil || rec.Op != result.OpCatchUp || rec.Member != target || !rec.SnapshotSent || rec.Distance < 7000 || rec.Seconds <= 0 {
		t.Fatalf("catch-up %+v", rec)
	}
	m, _ := stateMember(st, target)
	conn := c.Client()
	conn.Endpoints = []string{m.ClientURL}
	mcli := client(t, conn)
	s, err := mcli.Status(ctx, m.ClientURL)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := cli.Status(ctx, leader.ClientURL)
	if err != nil {
		t.Fatal(err)
	}
	if s.RaftAppliedIndex+10 < ls.RaftIndex {
		t.Errorf("%s applied %d, the leader is at %d", target, s.RaftAppliedIndex, ls.RaftIndex)
	}
	if resp, err := mcli.Get(ctx, catchUpPrefix, clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil || resp.Count != 0 {
		t.Errorf("%s after the catch-up: %v, %v", catchUpPrefix, resp, err)
	}
	counts := c.Counts()
	if counts.Faults[FaultCatchUp] != 1 || counts.Faults[FaultKill] != 0 || counts.Faults[FaultRestart] != 0 || counts.Starts[target] != 2 {
		t.Errorf("counts %+v", counts)
	}
}
