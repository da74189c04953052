package cluster

import "maps"

// Faults a Cluster's methods inject, as Counts names them.
const (
	FaultKill      = "kill"
	FaultPause     = "pause"
	FaultResume    = "resume"
	FaultRestart   = "restart"
	FaultLink      = "link"
	FaultPartition = "partition"
	FaultHeal      = "heal"
)

// tally counts what happened to the members while the cluster ran. It is
// guarded by Cluster.mu.
type tally struct {
	starts, exits map[string]int64 // by member
	faults        map[string]int64 // by Fault* name
}

func newTally() tally {
	return tally{starts: map[string]int64{}, exits: map[string]int64{}, faults: map[string]int64{}}
}

// Counts is what a Cluster counted since it started. It is a plain value.
type Counts struct {
	// Starts counts each member's processes started (1, plus restarts).
	Starts map[string]int64
	// Exits counts each member's processes that exited while the cluster
	// ran (killed by a fault, by anyone, or crashed; not Stop's).
	Exits map[string]int64
	// Faults counts the faults injected through the Cluster's methods
	// (Kill, Pause, Resume, Restart, SetLink, Partition, Heal: also those
	// its control socket serves), by Fault* name, when they succeeded.
	// Signals another process sends a member are not among them (they
	// show in Exits, and in a stopped process).
	Faults map[string]int64
}

// Counts returns what the cluster counted so far.
func (c *Cluster) Counts() Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Counts{Starts: maps.Clone(c.tally.starts), Exits: maps.Clone(c.tally.exits), Faults: maps.Clone(c.tally.faults)}
}

// counted counts fault f unless err says it failed, and returns err.
func (c *Cluster) counted(f string, err error) error {
	if err == nil {
		c.mu.Lock()
		c.tally.faults[f]++
		c.mu.Unlock()
	}
	return err
}
