package check

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/observe/metrics"
)

func snap(t *testing.T, text string) *metrics.Snapshot {
	t.Helper()
	s, err := metrics.Parse("m", time.Now(), strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// exposition is a member's metrics with defrags defragmentations
// (seconds in all), compaction batches holding the lock held ms, and sent
// snapshots.
func exposition(defrags int, secs float64, batches int, held float64, sent int, inflight int) string {
	return "# TYPE etcd_server_has_leader gauge\netcd_server_has_leader 1\n" + strings.NewReplacer("DC", itoa(defrags), "DS", ftoa(secs), "CB", itoa(batches), "CH", ftoa(held), "SS", itoa(sent), "IF", itoa(inflight)).Replace(`# TYPE etcd_disk_backend_defrag_duration_seconds histogram
etcd_disk_backend_defrag_duration_seconds_bucket{le="1"} 0
etcd_disk_backend_defrag_duration_seconds_bucket{le="+Inf"} DC
etcd_disk_backend_defrag_duration_seconds_sum DS
etcd_disk_backend_defrag_duration_seconds_count DC
# TYPE etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds histogram
etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds_bucket{le="+Inf"} CB
etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds_sum CH
etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds_count CB
# TYPE etcd_network_snapshot_send_success counter
etcd_network_snapshot_send_success{To="b"} SS
# TYPE etcd_disk_defrag_inflight gauge
etcd_disk_defrag_inflight IF
`)
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// TestMaintenanceNote: each kind of maintenance between the check's two
// scrapes is named on its member, and a quiet cluster gets no note.
func TestMaintenanceNote(t *testing.T) {
	quiet := exposition(2, 4, 10, 50, 0, 0)
	cases := []struct {
		name  string
		after []string
		want  []string
	}{
		{"quiet", []string{quiet, quiet}, nil},
		{"defrag", []string{exposition(3, 6.5, 10, 50, 0, 0), quiet}, []string{"m1 defragmented (1, 2.5 s)"}},
		{"defrag in flight", []string{quiet, exposition(2, 4, 10, 50, 0, 1)}, []string{"m2 defragmented (in flight at an end)"}},
		{"compaction", []string{exposition(2, 4, 40, 170, 0, 0), exposition(2, 4, 12, 60, 0, 0)}, []string{"m1 compacted (30 batches holding the backend's lock 120 ms)", "m2 compacted (2 batches"}},
		{"catch-up", []string{exposition(2, 4, 10, 50, 1, 0), quiet}, []string{"m1 sent 1 snapshot(s) to a peer catching up"}},
	}
	for _, c := range cases {
		before := []*metrics.Snapshot{snap(t, quiet), snap(t, quiet)}
		after := []*metrics.Snapshot{snap(t, c.after[0]), snap(t, c.after[1])}
		got := maintenanceNote([]string{"m1", "m2"}, before, after)
		if len(c.want) == 0 {
			if got != "" {
				t.Errorf("%s: %q, want no note", c.name, got)
			}
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
	}
}
