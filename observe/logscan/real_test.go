package logscan

import (
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/result"
)

// message returns member's key in census, or a zero one.
func message(census result.LogCensus, member, key string) result.LogMessage {
	for _, m := range census.Messages {
		if m.Member == member && m.Key == key {
			return m
		}
	}
	return result.LogMessage{}
}

// TestRealSlowFdatasync runs a member whose WAL syncs take 1.1 s (a slow
// disk under FUSE): etcd itself logs "slow fdatasync" for each, and the
// census finds them in its real log, under the name etcd logged (the
// file is etcd.log), with etcd's durations.
func TestRealSlowFdatasync(t *testing.T) {
	t.Parallel()
	if err := slowfs.Available(); err != nil {
		t.Skip(err)
	}
	const delay = 1100 * time.Millisecond
	d, err := slowfs.ParseDelay(delay.String())
	if err != nil {
		t.Fatal(err)
	}
	c := clustertest.Start(t, cluster.Options{Members: 1, FsyncDelay: d, FsyncWALOnly: true})
	path := c.State().Members[0].LogFile
	census, err := Read(context.Background(), path, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if census.Lines == 0 || census.Unrecognised != 0 || len(census.Formats) != 1 || census.Formats[0] != formatJSON {
		t.Fatalf("real log read as %d lines, %d unrecognised, formats %v", census.Lines, census.Unrecognised, census.Formats)
	}
	slow := message(census, "m1", "slow-fdatasync")
	if slow.Count == 0 || slow.Took == nil {
		t.Fatalf("no slow fdatasync for m1 with a %v fsync delay: %+v", delay, census.Messages)
	}
	if slow.Took.Min < delay.Seconds() || slow.Took.Max > 10*delay.Seconds() {
		t.Fatalf("slow fdatasync took %+v with a %v delay", *slow.Took, delay)
	}
	perMinute := 0
	for _, m := range slow.PerMinute {
		perMinute += m.Count
	}
	if perMinute != slow.Count || census.FirstUnix <= 0 || census.LastUnix < census.FirstUnix {
		t.Fatalf("per minute %v adds to %d, not %d; span %f..%f", slow.PerMinute, perMinute, slow.Count, census.FirstUnix, census.LastUnix)
	}
	if e := message(census, "m1", "elected-leader"); e.Count != 1 || e.Took != nil {
		t.Fatalf("elected-leader %+v, want 1 without durations", e)
	}
	t.Logf("%d lines, slow fdatasync %d times, took %+v", census.Lines, slow.Count, *slow.Took)
}

// copyLogs copies each member's log into dir as NAME.log, the last one
// gzipped as NAME.log.gz.
func copyLogs(t *testing.T, c *clustertest.Cluster, dir string) {
	t.Helper()
	ms := c.State().Members
	for i, m := range ms {
		b, err := os.ReadFile(m.LogFile)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, m.Name+".log")
		if i < len(ms)-1 {
			err = os.WriteFile(name, b, 0o600)
		} else {
			err = writeGzip(name+".gz", b)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func writeGzip(path string, b []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// TestRealLeaderPause stops a 3-member cluster's leader (SIGSTOP) until
// another member leads, resumes it, and reads the three real logs from a
// directory (one gzipped): every member logged the first election, the
// two others the new one, and the old leader that it lost or changed its
// leader; nothing else counts a leader change twice.
func TestRealLeaderPause(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, cluster.Options{Members: 3})
	names := map[string]string{}
	for i, ep := range c.Endpoints() {
		names[ep] = c.Names()[i]
	}
	lw, err := cluster.NewLeaderWatch(c.Client(), names)
	if err != nil {
		t.Fatal(err)
	}
	defer lw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	old, ok := lw.Current(ctx, time.Second)
	if !ok {
		t.Fatal("no leader")
	}
	paused := time.Now()
	if err := c.Pause(old.Name); err != nil {
		t.Fatal(err)
	}
	_, took, err := lw.WaitChange(ctx, old, paused)
	if err := c.Resume(old.Name); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("paused %s for %v until another member led", old.Name, took)

	dir := t.TempDir()
	var census result.LogCensus
	for {
		copyLogs(t, c, dir)
		if census, err = Read(ctx, dir, nil, Options{}); err != nil {
			t.Fatal(err)
		}
		if message(census, old.Name, "lost-leader").Count+message(census, old.Name, "elected-leader").Count >= 2 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never logged that it lost the lead: %+v", old.Name, census.Messages)
		case <-time.After(100 * time.Millisecond):
		}
	}
	if len(census.Sources) != 3 || census.Unrecognised != 0 {
		t.Fatalf("sources %v, %d of %d lines unrecognised", census.Sources, census.Unrecognised, census.Lines)
	}
	changes := 0
	for _, name := range c.Names() {
		e := message(census, name, "elected-leader")
		if e.Count == 0 || e.Cause != "leader" {
			t.Errorf("%s: elected-leader %+v", name, e)
		}
		changes += e.Count + message(census, name, "lost-leader").Count
		t.Logf("%s: %d elected, %d lost, heartbeat late %+v", name, e.Count, message(census, name, "lost-leader").Count, message(census, name, "heartbeat-late").Took)
	}
	// 3 first elections, then at least the new leader's and the other
	// follower's news of it, and the old leader's.
	if changes < 6 {
		t.Fatalf("%d leader messages in all: %+v", changes, census.Messages)
	}
}
