package agents

import (
	"slices"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/measure/bench"
)

// TestSlice: the agents' slices add up to the whole load, remainders on
// the lowest indexes, and only agent 0 measures the cluster.
func TestSlice(t *testing.T) {
	t.Parallel()
	whole := bench.Config{Command: bench.CmdPut, Conns: []int{3, 10}, Clients: []int{7}, Total: 1001, Rate: 300, SessionOptions: bench.SessionOptions{KeySpaceSize: 50},
		Warmup: "11", Prefix: "/p/", Canary: time.Second, ScrapeInterval: time.Second, CompactInterval: time.Minute, CheckHashKV: true, Compact: true,
		Agent: bench.Agent{Count: 3}}
	var conns, clients []int
	var total, space int64
	for i := range 3 {
		c := whole
		c.Agent.Index = i
		s := slice(c)
		conns, clients = append(conns, s.Conns...), append(clients, s.Clients...)
		total, space = total+s.Total, space+s.KeySpaceSize
		if s.Rate != 100 || s.Prefix != SubPrefix("/p/", i) || (i == 0) != (s.Canary > 0 && s.ScrapeInterval > 0 && s.CompactInterval > 0 && s.CheckHashKV && s.Compact) {
			t.Errorf("agent %d: %+v", i, s)
		}
		if want := []string{"4", "4", "3"}[i]; s.Warmup != want {
			t.Errorf("agent %d: warm-up %s, want %s", i, s.Warmup, want)
		}
	}
	if !slices.Equal(conns, []int{1, 4, 1, 3, 1, 3}) || !slices.Equal(clients, []int{3, 2, 2}) || total != 1001 || space != 50 {
		t.Errorf("conns %v, clients %v, total %d, key space %d", conns, clients, total, space)
	}
	one := whole
	one.Agent.Count = 0
	if s := slice(one); s.Prefix != "/p/" || s.Total != 1001 {
		t.Errorf("a load that is no agent's was sliced: %+v", s)
	}
	d := whole
	d.Warmup = "5s"
	if s := slice(d); s.Warmup != "5s" {
		t.Errorf("a warm-up by time was split: %q", s.Warmup)
	}
}
