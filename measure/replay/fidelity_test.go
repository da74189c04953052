package replay

import (
	"strings"
	"testing"

	rp "github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/result"
)

// TestCompare: rates are scaled, sizes are not; a row off its tolerance
// is marked; a figure the profile lacks is no row.
func TestCompare(t *testing.T) {
	want := &rp.Profile{
		Operations: []rp.Operation{
			{Op: rp.OpPut, Prefix: "/a/", Rate: 100, ValueBytes: 1000},
			{Op: rp.OpRange, Prefix: "/a/", Rate: 50, RangeKeys: 10, RangeBytes: 10000},
		},
		Watches:  &rp.Watches{Watchers: 10, EventsPerSecond: 200},
		Keyspace: &rp.Keyspace{Keys: 1000, DBSize: 8 << 20},
		Totals:   rp.Totals{RevisionsPerSecond: 100},
	}
	got := &rp.Profile{
		Operations: []rp.Operation{
			{Op: rp.OpPut, Rate: 295, ValueBytes: 1100},
			{Op: rp.OpRange, Rate: 100, RangeKeys: 10, RangeBytes: 5000},
		},
		Watches:  &rp.Watches{Watchers: 10, EventsPerSecond: 610},
		Keyspace: &rp.Keyspace{Keys: 1050, DBSize: 8 << 20},
		Totals:   rp.Totals{RevisionsPerSecond: 300},
	}
	rows := Compare(want, got, 3)
	byName := map[string]result.FidelityRow{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	for _, c := range []struct {
		name      string
		want, got float64
		off       bool
	}{
		{"put rate", 300, 295, false},
		{"range rate", 150, 100, true},
		{"requests", 450, 395, true},
		{"bytes per put", 1000, 1100, false},
		{"bytes per range", 10000, 5000, true},
		{"watch events", 600, 610, false},
		{"watchers", 10, 10, false},
		{"keys", 1000, 1050, false},
		{"revisions", 300, 300, false},
	} {
		r, ok := byName[c.name]
		if !ok {
			t.Errorf("no row %q in %v", c.name, rows)
			continue
		}
		if r.Want != c.want || r.Got != c.got || r.Off != c.off {
			t.Errorf("%s: want %g got %g off %v; expected %g, %g, %v", c.name, r.Want, r.Got, r.Off, c.want, c.got, c.off)
		}
	}
	for _, absent := range []string{"delete rate", "txn rate", "lease keep-alives"} {
		if _, ok := byName[absent]; ok {
			t.Errorf("row %q for a figure the profile lacks", absent)
		}
	}
}

// TestReach: reached is silent; a busy generator is named as the limit
// before the target; clients all waiting on slow answers is the target.
func TestReach(t *testing.T) {
	run := func(reqs int64, cpu float64, clients int, svcMean float64) result.Run {
		return result.Run{Clients: clients, LoadCPUCores: cpu, LoadCoresLimit: 2,
			Stats: result.Stats{Requests: reqs, DurationSeconds: 10, ServiceTime: &result.Latency{Mean: svcMean, P99: 2 * svcMean}}}
	}
	for _, c := range []struct {
		name string
		run  result.Run
		want string
	}{
		{"reached", run(9500, 0.3, 64, 0.002), ""},
		{"generator", run(5000, 1.9, 64, 0.002), "generator limit"},
		{"target", run(5000, 0.4, 64, 0.1), "target saturated"},
		{"neither", run(5000, 0.4, 64, 0.001), "schedule ran late"},
	} {
		got := reach(c.run, 1000)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: reach = %q, want it to say %q", c.name, got, c.want)
		}
	}
}
