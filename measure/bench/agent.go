package bench

import (
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

// Agent makes a run one slice of a load that Count cooperating processes
// (agents) send together: bench --agents on one machine, or the pods of a
// Kubernetes Indexed Job. Agent Index sends clients/Count, conns/Count,
// total/Count and rate/Count (remainders go to the lowest indexes), into
// its own sub-prefix of the shared Prefix; only agent 0 runs canaries,
// scrapes the members and compacts: those measure the cluster, not the
// load. Slicing the load and waiting for the others before every run, so
// that their runs overlap, is the agents' coordination (package
// measure/agents, an Observer that is a Slicer and a Gate): Run refuses
// an agent's run without a Slicer.
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
