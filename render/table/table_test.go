package table

import (
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := Write(&b, []string{"NAME", "µS"}, [][]string{{"m1", "12"}, {"member-2"}}); err != nil {
		t.Fatal(err)
	}
	want := `+----------+----+
| NAME     | µS |
+----------+----+
| m1       | 12 |
| member-2 |    |
+----------+----+
`
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s     string
		width int
		want  []string
	}{
		{"etcd FAQ; OpenShift etcd docs", 40, []string{"etcd FAQ; OpenShift etcd docs"}},
		{"etcd FAQ; OpenShift etcd docs", 10, []string{"etcd FAQ;", "OpenShift", "etcd docs"}},
		{"at least s: 150 writes/s", 11, []string{"at least s:", "150", "writes/s"}},
		{"WAL fsync p99 (etcd_disk_wal_fsync_duration_seconds)", 12, []string{"WAL fsync", "p99", "(etcd_disk_w", "al_fsync_dur", "ation_second", "s)"}},
		{"a  b   c", 3, []string{"a b", "c"}},
		{"µs µs µs", 5, []string{"µs µs", "µs"}},
		{"", 5, []string{""}},
		{"no limit", 0, []string{"no limit"}},
	} {
		if got := Wrap(tt.s, tt.width); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}

func TestWriteWrapped(t *testing.T) {
	t.Parallel()
	headers := []string{"VERDICT", "MEASURED", "SOURCE"}
	rows := [][]string{
		{"PASS", "fdatasync p99", "etcd FAQ; OpenShift etcd docs"},
		{"FAIL", "highest check perf level sustained (tried s to xl)", "etcdctl check perf"},
	}
	for _, tt := range []struct {
		name        string
		width, wide int // the limit, and the width of the table's lines
		want        string
	}{
		{"fits: as Write", 100, 96, `+---------+----------------------------------------------------+-------------------------------+
| VERDICT | MEASURED                                           | SOURCE                        |
+---------+----------------------------------------------------+-------------------------------+
| PASS    | fdatasync p99                                      | etcd FAQ; OpenShift etcd docs |
| FAIL    | highest check perf level sustained (tried s to xl) | etcdctl check perf            |
+---------+----------------------------------------------------+-------------------------------+
`},
		{"the widest column gives way first", 60, 60, `+---------+-----------------------+------------------------+
| VERDICT | MEASURED              | SOURCE                 |
+---------+-----------------------+------------------------+
| PASS    | fdatasync p99         | etcd FAQ; OpenShift    |
|         |                       | etcd docs              |
| FAIL    | highest check perf    | etcdctl check perf     |
|         | level sustained       |                        |
|         | (tried s to xl)       |                        |
+---------+-----------------------+------------------------+
`},
		{"down to the longest words", 35, 35, `+---------+-----------+-----------+
| VERDICT | MEASURED  | SOURCE    |
+---------+-----------+-----------+
| PASS    | fdatasync | etcd FAQ; |
|         | p99       | OpenShift |
|         |           | etcd docs |
| FAIL    | highest   | etcdctl   |
|         | check     | check     |
|         | perf      | perf      |
|         | level     |           |
|         | sustained |           |
|         | (tried s  |           |
|         | to xl)    |           |
+---------+-----------+-----------+
`},
		{"then words break, headers never", 20, 31, `+---------+----------+--------+
| VERDICT | MEASURED | SOURCE |
+---------+----------+--------+
| PASS    | fdatasyn | etcd   |
|         | c p99    | FAQ;   |
|         |          | OpenSh |
|         |          | ift    |
|         |          | etcd   |
|         |          | docs   |
| FAIL    | highest  | etcdct |
|         | check    | l      |
|         | perf     | check  |
|         | level    | perf   |
|         | sustaine |        |
|         | d (tried |        |
|         | s to xl) |        |
+---------+----------+--------+
`},
	} {
		var b strings.Builder
		if err := WriteWrapped(&b, headers, rows, tt.width); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, b.String(), tt.want)
		}
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if n := len([]rune(l)); n != tt.wide {
				t.Errorf("%s: a line of %d runes, want %d: %s", tt.name, n, tt.wide, l)
			}
		}
	}
}
