package series

import (
	"bufio"
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/observe/metrics"
)

// rawSum sums the samples of a metric in Prometheus text whose label text
// (between the braces, "" for none) match accepts: a reading of the
// recorded scrapes that shares no code with the recorder's.
func rawSum(t *testing.T, text []byte, name string, match func(labels string) bool) float64 {
	t.Helper()
	sum := 0.0
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		labels := ""
		if rest[0] == '{' {
			end := strings.LastIndexByte(rest, '}')
			labels, rest = rest[1:end], rest[end+1:]
		}
		if match != nil && !match(labels) {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		sum += v
	}
	return sum
}

func all(string) bool { return true }

var leRe = regexp.MustCompile(`le="([^"]+)"`)

// rawBuckets reads a histogram's cumulative buckets, summed over label
// sets, keyed by upper bound.
func rawBuckets(t *testing.T, text []byte, name string) map[float64]float64 {
	t.Helper()
	out := map[float64]float64{}
	for _, m := range regexp.MustCompile(`(?m)^`+name+`_bucket\{([^}]*)\} (\S+)$`).FindAllSubmatch(text, -1) {
		le := leRe.FindSubmatch(m[1])
		bound, err := strconv.ParseFloat(strings.Replace(string(le[1]), "+Inf", "Inf", 1), 64)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := strconv.ParseFloat(string(m[2]), 64)
		out[bound] += v
	}
	return out
}

// rawQuantile is histogram_quantile(q) (with the lowest bucket read as its
// bound: metrics.UpperQuantile) over the bucket increases between
// two recorded texts (a histogram missing from before counts from zero),
// 0 when nothing was observed.
func rawQuantile(t *testing.T, q float64, before, after []byte, name string) float64 {
	t.Helper()
	b, a := rawBuckets(t, before, name), rawBuckets(t, after, name)
	d := map[float64]float64{}
	for le, v := range a {
		d[le] = v - b[le]
	}
	if d[math.Inf(1)] == 0 {
		return 0
	}
	return metrics.UpperQuantile(q, d)
}

func snapshot(t *testing.T, text []byte, at time.Time) *metrics.Snapshot {
	t.Helper()
	s, err := metrics.NewScraper(nil, families(), []metrics.Name{metrics.GRPCHandled}).Parse("http://127.0.0.1:2381/metrics", at, text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDeriveRecorded replays scrapes recorded from a real etcd 3.6
// cluster (testdata, see TestCapture) through the recorder's filter,
// parser and derivation, and checks every figure against a plain reading
// of the text.
func TestDeriveRecorded(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
	secs := float64(recordedSeconds)
	unary := func(l string) bool { return strings.Contains(l, `grpc_type="unary"`) }
	notOK := func(l string) bool { return unary(l) && !strings.Contains(l, `grpc_code="OK"`) }
	for _, tc := range []struct {
		name          string
		before, after string
		leader        bool
	}{
		{"leader", leaderBefore, leaderAfter, true},
		{"follower", followerBefore, followerAfter, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bt, at := recorded(t, tc.before), recorded(t, tc.after)
			m := &member{name: tc.name, interval: recordedSeconds * time.Second}
			m.observe(snapshot(t, bt, t0), nil)
			m.observe(snapshot(t, at, t0.Add(recordedSeconds*time.Second)), nil)
			ms := m.series()
			if len(ms.Points) != 1 {
				t.Fatalf("%d points from two scrapes, want 1", len(ms.Points))
			}
			p, s := ms.Points[0], ms.Summary
			diff := func(name string, match func(string) bool) float64 {
				return rawSum(t, at, name, match) - rawSum(t, bt, name, match)
			}
			fsyncs := diff("etcd_disk_wal_fsync_duration_seconds_count", nil)
			if fsyncs < 50 {
				t.Fatalf("the recording has only %g fsyncs: recapture it", fsyncs)
			}
			requests, errs := diff("grpc_server_handled_total", unary), diff("grpc_server_handled_total", notOK)
			outOfRange := diff("grpc_server_handled_total", func(l string) bool { return unary(l) && strings.Contains(l, `grpc_code="OutOfRange"`) })
			if errs == 0 || outOfRange != errs {
				t.Fatalf("the recording has %g failed unary RPCs, %g OutOfRange: recapture it", errs, outOfRange)
			}
			for _, c := range []struct {
				what      string
				got, want float64
			}{
				{"WAL fsyncs", s.WALFsyncs, fsyncs},
				{"WAL fsync seconds (_sum)", s.WALFsyncSeconds, diff("etcd_disk_wal_fsync_duration_seconds_sum", nil)},
				{"WAL fsync p50", s.WALFsyncP50, rawQuantile(t, 0.5, bt, at, "etcd_disk_wal_fsync_duration_seconds")},
				{"WAL fsync p99", p.WALFsyncP99, rawQuantile(t, 0.99, bt, at, "etcd_disk_wal_fsync_duration_seconds")},
				{"backend commit p99", p.BackendCommitP99, rawQuantile(t, 0.99, bt, at, "etcd_disk_backend_commit_duration_seconds")},
				{"peer RTT p99 (no observation before)", s.PeerRTTP99, rawQuantile(t, 0.99, bt, at, "etcd_network_peer_round_trip_time_seconds")},
				{"CPU cores", p.CPUCores, diff("process_cpu_seconds_total", nil) / secs},
				{"CPU cores mean", s.CPUCoresMean, diff("process_cpu_seconds_total", nil) / secs},
				{"RSS", s.RSSMaxBytes, rawSum(t, at, "process_resident_memory_bytes", nil)},
				{"gRPC unary/s", p.GRPCPerSecond, requests / secs},
				{"gRPC errors/s", p.GRPCErrorsPerSec, errs / secs},
				{"gRPC errors", s.GRPCErrors, errs},
				{"OutOfRange", s.GRPCErrorsByCode["OutOfRange"], outOfRange},
				{"Range", s.GRPCByMethod["Range"], diff("grpc_server_handled_total", func(l string) bool { return unary(l) && strings.Contains(l, `grpc_method="Range"`) })},
				{"by method, summed", sum(s.GRPCByMethod), requests},
				{"watch events sent", s.WatchEventsSent, diff("etcd_debugging_mvcc_events_total", nil)},
				{"DB size", p.DBSizeBytes, rawSum(t, at, "etcd_mvcc_db_total_size_in_bytes", nil)},
				{"DB in use", s.DBInUseBytes, rawSum(t, at, "etcd_mvcc_db_total_size_in_use_in_bytes", nil)},
				{"received bytes/s", p.NetReceivePerS, (diff("etcd_network_client_grpc_received_bytes_total", nil) + diff("etcd_network_peer_received_bytes_total", all)) / secs},
				{"sent bytes", s.NetSendBytes, diff("etcd_network_client_grpc_sent_bytes_total", nil) + diff("etcd_network_peer_sent_bytes_total", all)},
				{"leader changes", s.LeaderChanges, diff("etcd_server_leader_changes_seen_total", nil)},
				{"proposals pending", p.ProposalsPending, rawSum(t, at, "etcd_server_proposals_pending", nil)},
			} {
				if math.Abs(c.got-c.want) > 1e-9*math.Max(1, math.Abs(c.want)) {
					t.Errorf("%s: %g, want %g", c.what, c.got, c.want)
				}
			}
			if lo, hi := s.PeerRTTLowestBucket, s.PeerRTTHighestBucket; lo <= 0 || hi < lo || s.PeerRTTP99 <= lo/2 || s.PeerRTTP99 > hi {
				t.Errorf("peer RTT buckets %g-%g do not hold its p99 %g", lo, hi, s.PeerRTTP99)
			}
			if s.WALFsyncP99 <= 0 || s.BackendCommitP99 <= 0 || s.PeerRTTP99 <= 0 || s.CPUCoresMean <= 0 || s.NetSendBytes <= 0 {
				t.Errorf("a figure the recording has is 0: %+v", s)
			}
			if !p.HasLeader || p.IsLeader != tc.leader || s.SecondsWithoutLead != 0 {
				t.Errorf("has leader %v, is leader %v (want %v), %g s without leader", p.HasLeader, p.IsLeader, tc.leader, s.SecondsWithoutLead)
			}
			if len(m.versions) != 1 || m.versions[0] != "3.6.16" {
				t.Errorf("versions %q", m.versions)
			}
		})
	}
}

// TestDeriveRestart: when the process start time changes between two
// scrapes, the member restarted and its counters began from zero, so the
// interval counts what the new process's counters say, even where they
// have grown past the old process's; without a new start time, a counter
// that went down counts from zero (PromQL's increase).
func TestDeriveRestart(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
	early, late := recorded(t, leaderBefore), recorded(t, leaderAfter)
	startRe := regexp.MustCompile(`(?m)^process_start_time_seconds (\S+)$`)
	lateRestarted := startRe.ReplaceAll(late, []byte("process_start_time_seconds 2e9"))
	if bytes.Equal(lateRestarted, late) {
		t.Fatal("no process_start_time_seconds in the recording")
	}
	fsyncs := func(text []byte) float64 { return rawSum(t, text, "etcd_disk_wal_fsync_duration_seconds_count", nil) }
	cpu := func(text []byte) float64 { return rawSum(t, text, "process_cpu_seconds_total", nil) }
	for _, tc := range []struct {
		name          string
		before, after []byte
		fsyncs, cpu   float64
	}{
		{"restarted, counters past the old ones: all of the new process's", early, lateRestarted, fsyncs(late), cpu(late)},
		{"same process: the increase", early, late, fsyncs(late) - fsyncs(early), cpu(late) - cpu(early)},
		{"counters went down, same start time: from zero", late, early, fsyncs(early), cpu(early)},
	} {
		m := &member{interval: time.Second}
		m.observe(snapshot(t, tc.before, t0), nil)
		m.observe(snapshot(t, tc.after, t0.Add(2*time.Second)), nil)
		s := m.series().Summary
		if s.WALFsyncs != tc.fsyncs {
			t.Errorf("%s: %g fsyncs, want %g", tc.name, s.WALFsyncs, tc.fsyncs)
		}
		if math.Abs(s.CPUCoresMean-tc.cpu/2) > 1e-9 {
			t.Errorf("%s: CPU %g, want %g", tc.name, s.CPUCoresMean, tc.cpu/2)
		}
		if s.GRPCRequests < 0 || s.NetSendBytes < 0 || s.LeaderChanges < 0 {
			t.Errorf("%s: negative figures %+v", tc.name, s)
		}
	}
}

// TestIOBetween: /proc/PID/io deltas of one process, and of a process
// replaced by another (counted from zero).
func TestIOBetween(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	text := "rchar: 100\nwchar: 200\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\nwrite_bytes: %d\ncancelled_write_bytes: 0\n"
	a, err := parseIO([]byte(strings.Replace(text, "%d", "8192", 1)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseIO([]byte(strings.Replace(text, "%d", "40960", 1)))
	if err != nil {
		t.Fatal(err)
	}
	a.at, b.at = t0, t0.Add(2*time.Second)
	a.id.PID, b.id.PID = 10, 10
	if d := ioBetween(a, b); d == nil || d.writeBytes != 32768 || d.readBytes != 0 || d.seconds != 2 {
		t.Errorf("same process: %+v", d)
	}
	b.id.PID = 11
	if d := ioBetween(a, b); d == nil || d.writeBytes != 40960 || d.readBytes != 4096 {
		t.Errorf("replaced process: %+v", d)
	}
	if ioBetween(nil, b) != nil || ioBetween(a, nil) != nil {
		t.Error("a missing reading must give no figures")
	}
	if _, err := parseIO([]byte("rchar: 1\n")); err == nil {
		t.Error("no read_bytes: no error")
	}
}

// sum adds a map's values.
func sum(m map[string]float64) float64 {
	t := 0.0
	for _, v := range m {
		t += v
	}
	return t
}
