package result

import "time"

// AgentRun is what one bench agent (bench --agents, or one pod of the
// Indexed Job) records beside its slice of the load, for the merge: which
// slice it ran and when, by its own clock, it saw each barrier complete.
// An agent's Document is an ordinary bench document of its slice; its
// Bench config is the whole load's.
type AgentRun struct {
	Index int    `json:"index"`
	Count int    `json:"count"`
	Host  string `json:"host,omitempty"`
	// Prefix is where this agent's keys went (the load's prefix plus its
	// own sub-prefix).
	Prefix string `json:"prefix"`
	// StartMode is how the agents agreed on their first start: "cluster"
	// (a barrier of keys in the target cluster) or "wall-clock" (a time
	// given to every agent; their clocks' skew then shifts their starts).
	StartMode string `json:"start_mode"`
	// Barriers are the points every agent waited for the others at, in
	// order, with when this agent saw the last one arrive (its own clock).
	// etcd delivers that event to every agent at nearly the same moment,
	// so the differences between agents' times are their clock offsets
	// plus delivery differences (common-view time transfer).
	Barriers []Barrier `json:"barriers,omitempty"`
	// RoundTripSeconds is the median round trip of this agent's barrier
	// writes: delivery differences are of that order at most.
	RoundTripSeconds float64 `json:"round_trip_seconds,omitempty"`
}

// Barrier is one synchronisation point of the agents.
type Barrier struct {
	Name string    `json:"name"`
	Seen time.Time `json:"seen"`
}

// Agents says how a merged bench result was put together from its agents'
// results (etcdlab merge, bench --agents).
type Agents struct {
	// Count is how many agents the load was split into; Merged lists the
	// indexes whose results are in this document, Missing the others.
	// A result with Missing agents measured only part of the load.
	Count   int            `json:"count"`
	Merged  []int          `json:"merged"`
	Missing []MissingAgent `json:"missing,omitempty"`
	// PerAgent is each merged agent's share.
	PerAgent []AgentShare `json:"per_agent"`
	// ClockSkewSeconds is the largest difference between two agents'
	// clock offsets, measured at the barriers (AgentRun.Barriers);
	// ClockSkewMethod says how, and its uncertainty.
	ClockSkewSeconds float64 `json:"clock_skew_seconds"`
	ClockSkewMethod  string  `json:"clock_skew_method"`
	StartMode        string  `json:"start_mode"`
}

// MissingAgent is an agent whose result is not in a merged document.
type MissingAgent struct {
	Index  int    `json:"index"`
	Reason string `json:"reason"`
}

// AgentShare is one agent's part of a merged result.
type AgentShare struct {
	Index    int    `json:"index"`
	Host     string `json:"host,omitempty"`
	Requests int64  `json:"requests"`
	Errors   int64  `json:"errors"`
	// ClockOffsetSeconds is this agent's clock minus agent Reference's
	// (the lowest merged index), the median over the barriers; the merge
	// moved its times by minus that.
	ClockOffsetSeconds float64   `json:"clock_offset_seconds"`
	RoundTripSeconds   float64   `json:"round_trip_seconds,omitempty"`
	Start              time.Time `json:"start"`
}
