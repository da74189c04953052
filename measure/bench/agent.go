package bench

import (
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

// Agent makes a run one slice of a load that Count cooperating processes
// (agents) send together: bench --agents on one machine, or the pods of a
// Kubernetes Indexed Job. Agent Index sends clients/Count, conns/Count,
// total/Count and rate/Count (remainders go to the lowest indexes), into
// its own sub-prefix of the shared Prefix; only agent 0 runs canaries,
// scrapes the members and compacts: those measure the cluster, not the
// load. Waiting for the others before every run, so that their runs
// overlap, is the agents' coordination (package measure/agents, an
// Observer that is a Gate): Run refuses an agent's run without a Gate.
// Each agent writes its own result, which etcdlab merge combines.
type Agent struct {
	Index, Count int
	// StartAt, if set, is when the first measured run starts on every
	// agent, by each agent's own clock, instead of a barrier.
	StartAt time.Time
	// Wait bounds how long an agent waits for the others at a barrier.
	Wait time.Duration
	// Host names the machine or pod in the result.
	Host string
}

// DefaultAgentWait is Agent.Wait's default: long enough for pods to be
// scheduled and pull an image.
const DefaultAgentWait = 5 * time.Minute

// splits reports whether command's load splits into independent slices.
func splits(command string) bool {
	switch command {
	case CmdPut, CmdRange, CmdTxnPut, CmdTxnMixed:
		return true
	}
	return false
}

// agents reports whether the run is one agent of several.
func (c *Config) agents() bool { return c.Agent.Count > 1 }

// validateAgent checks Agent against the whole load, before it is sliced.
func (c *Config) validateAgent() error {
	a := c.Agent
	if a.Count < 0 || (a.Count <= 1 && a.Index != 0) {
		return invalid.Errorf("{Agents} must be at least 2 to split the load, not %d", a.Count)
	}
	if a.Count <= 1 {
		return nil
	}
	if !splits(c.Command) {
		return invalid.Errorf("%s does not split into agents (put, range, txn-put and txn-mixed do)", c.Command)
	}
	if a.Index < 0 || a.Index >= a.Count {
		return invalid.Errorf("agent index %d is not one of 0..%d ({Agents} is %d)", a.Index, a.Count-1, a.Count)
	}
	if c.Prefix == "" {
		return invalid.Errorf("agents share one {Prefix}: give it, the same to every agent")
	}
	if c.Cluster == nil && len(c.Conn.Endpoints) == 0 {
		return invalid.Errorf("agents need {Endpoints}: they load one cluster together")
	}
	for _, f := range []struct {
		name string
		ns   []int
	}{{"Conns", c.Conns}, {"Clients", c.Clients}} {
		for _, n := range f.ns {
			if n < a.Count {
				return invalid.Errorf("{"+f.name+"} %d cannot be split into %d agents: give at least one per agent", n, a.Count)
			}
		}
	}
	if c.Total > 0 && c.Total < int64(a.Count) {
		return invalid.Errorf("{Total} %d cannot be split into %d agents", c.Total, a.Count)
	}
	if c.KeySpaceSize > 0 && c.KeySpaceSize < int64(a.Count) {
		return invalid.Errorf("{KeySpaceSize} %d cannot be split into %d agents", c.KeySpaceSize, a.Count)
	}
	if w, _ := parseWarmup(c.Warmup); w.count > 0 && w.count < int64(a.Count) {
		return invalid.Errorf("{Warmup} %d cannot be split into %d agents", w.count, a.Count)
	}
	if a.Wait < 0 {
		return invalid.Errorf("{AgentWait} must not be negative")
	}
	return nil
}

// share is agent i's part of n split among count agents: n/count, and
// one more for the first n%count agents.
func share(n int64, i, count int) int64 {
	s := n / int64(count)
	if int64(i) < n%int64(count) {
		s++
	}
	return s
}

// AgentPrefix is agent index's own sub-prefix of the shared prefix: its
// keys go there, and nobody else's.
func AgentPrefix(prefix string, index int) string { return fmt.Sprintf("%sagent-%d/", prefix, index) }

// sliced returns agent Index's slice of the whole load c.
func (c Config) sliced() Config {
	a := c.Agent
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
	if w, _ := parseWarmup(c.Warmup); w.count > 0 {
		s.Warmup = fmt.Sprint(share(w.count, a.Index, a.Count))
	}
	s.Prefix = AgentPrefix(c.Prefix, a.Index)
	if a.Index != 0 {
		s.Canary, s.ScrapeInterval, s.CompactInterval, s.CheckHashKV, s.Compact = 0, 0, 0, false, false
	}
	return s
}
