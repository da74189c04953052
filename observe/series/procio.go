package series

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
)

// ioSample is one reading of a process's /proc/PID/io.
//
// Of its fields, the series uses read_bytes and write_bytes: the bytes the
// process made the kernel fetch from, or send to, the storage layer (page
// cache misses on read; pages dirtied on write, counted when etcd writes,
// not when the kernel flushes them; 0 on tmpfs, where nothing reaches a
// disk). rchar and wchar, and the operation counts syscr and syscw, count
// every read and write system call, sockets included: an idle etcd leader
// makes dozens of write calls a second (heartbeats to its peers) while
// write_bytes stays still, so they say nothing about the disk, and
// /proc/PID/io has no count of disk operations. The series therefore
// leaves result.ServerSummary's DiskReadOps and DiskWriteOps (and the
// points' DiskWriteOpsPerS) empty; WAL fsyncs and backend commits, the
// disk operations etcd waits for, are counted from its own histograms.
type ioSample struct {
	id                    proc.ID
	at                    time.Time
	readBytes, writeBytes float64
}

// readIO reads id's /proc/PID/io, or returns nil when the process is gone
// (or the PID now names another process) or the file cannot be read.
func readIO(id proc.ID) *ioSample {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", id.PID))
	at := time.Now()
	if err != nil || !id.Alive() {
		return nil
	}
	s, err := parseIO(b)
	if err != nil {
		return nil
	}
	s.id, s.at = id, at
	return s
}

// parseIO reads the read_bytes and write_bytes lines of /proc/PID/io.
func parseIO(b []byte) (*ioSample, error) {
	s := &ioSample{}
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := bytes.Cut(sc.Bytes(), []byte(": "))
		if !ok {
			continue
		}
		var dst *float64
		switch string(k) {
		case "read_bytes":
			dst = &s.readBytes
		case "write_bytes":
			dst = &s.writeBytes
		default:
			continue
		}
		n, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("/proc/PID/io: %s: %w", k, err)
		}
		*dst = float64(n)
		found++
	}
	if found != 2 {
		return nil, fmt.Errorf("/proc/PID/io: no read_bytes or write_bytes")
	}
	return s, nil
}

// ioBetween is what the process did between two readings: nil without
// both; counted from zero when the process was replaced (a member
// restarted: its counters began again).
func ioBetween(before, after *ioSample) *ioDelta {
	if before == nil || after == nil {
		return nil
	}
	d := &ioDelta{seconds: after.at.Sub(before.at).Seconds(), readBytes: after.readBytes, writeBytes: after.writeBytes}
	if before.id == after.id {
		d.readBytes -= before.readBytes
		d.writeBytes -= before.writeBytes
	}
	return d
}
