package agents

import (
	"fmt"
	"strconv"

	"github.com/etcdlab/etcdlab/measure/bench"
)

// share is agent i's part of n split among count agents: n/count, and
// one more for the first n%count agents.
func share(n int64, i, count int) int64 {
	s := n / int64(count)
	if int64(i) < n%int64(count) {
		s++
	}
	return s
}

// SubPrefix is agent index's own sub-prefix of the shared prefix: its
// keys go there, and nobody else's.
func SubPrefix(prefix string, index int) string { return fmt.Sprintf("%sagent-%d/", prefix, index) }

// slice returns agent Index's slice of the whole load c (validated, so
// that its counts split: bench.Config.Validate): clients, connections,
// total, rate, key space and a warm-up's requests divided by Count
// (remainders to the lowest indexes), keys under its SubPrefix; only
// agent 0 keeps canaries, the members' scrapes and compaction, which
// measure the cluster rather than the load. A load that is no agent's
// is returned as it is.
func slice(c bench.Config) bench.Config {
	a := c.Agent
	if a.Count < 2 {
		return c
	}
	s := c
	s.Conns, s.Clients = nil, nil
	for _, n := range c.Conns {
		s.Conns = append(s.Conns, int(share(int64(n), a.Index, a.Count)))
	}
	for _, n := range c.Clients {
		s.Clients = append(s.Clients, int(share(int64(n), a.Index, a.Count)))
	}
	if c.Total > 0 {
		s.Total = share(c.Total, a.Index, a.Count)
	}
	s.Rate = c.Rate / float64(a.Count)
	if c.KeySpaceSize > 0 {
		s.KeySpaceSize = share(c.KeySpaceSize, a.Index, a.Count)
	}
	if n, err := strconv.ParseInt(c.Warmup, 10, 64); err == nil && n > 0 { // a request count, not a duration
		s.Warmup = fmt.Sprint(share(n, a.Index, a.Count))
	}
	s.Prefix = SubPrefix(c.Prefix, a.Index)
	if a.Index != 0 {
		s.Canary, s.ScrapeInterval, s.CompactInterval, s.CheckHashKV, s.Compact = 0, 0, 0, false, false
	}
	return s
}
