package jobs

import "github.com/etcdlab/etcdlab/measure/experiment/job"

import judgedoctor "github.com/etcdlab/etcdlab/judge/doctor"

// DoctorJob is an incident: what is done to a fresh local cluster (data
// written first, a background load, a fault timeline) before `etcdlab
// doctor` diagnoses it with the members' logs, and the diagnosis it
// should reach. A catalogue of them proves the doctor's causal model
// (docs/doctor.md, "incidents").
type DoctorJob struct {
	// Expect is the injected cause and member the diagnosis should name.
	Expect Expect `yaml:"expect"`
	// Leader moves the leadership to this member before anything else
	// ("" leaves it where the election put it).
	Leader string `yaml:"leader"`
	// Fill writes data before the load starts.
	Fill *Fill `yaml:"fill"`
	// Load are bench command lines (as a bench workload's) run together
	// in the background from before the faults until the diagnosis ends;
	// their --duration is set to cover it.
	Load []string `yaml:"load"`
	// Faults is the incident's timeline, from the load's start, in the
	// form of the file's faults (the experiment reads and runs it).
	Faults job.Faults `yaml:"faults"`
	// Settle is how long the incident runs before the diagnosis starts
	// (default 3s).
	Settle job.Duration `yaml:"settle"`
	// Window is the diagnosis' window (default doctor's, 8s).
	Window job.Duration `yaml:"window"`
}

// Expect is an incident's expected diagnosis. Cause is a doctor cause
// (judge/doctor's Cause: disk, cpu, network, membership, leader, quota,
// fragmentation, defrag, requests, compaction, catch-up; expectable lists
// them), "" for a
// healthy cluster (no finding at all).
// Member is a member name, "leader" (the member the timeline's "leader"
// step hit, else the leader when the diagnosis starts), or "" (the
// cluster's, or any member).
// Fires are verdict IDs that must be WARN or FAIL in the diagnosis
// (server.grpc_p99: etcd's etcdGRPCRequestsSlow).
type Expect struct {
	Cause  judgedoctor.Cause `yaml:"cause"`
	Member string            `yaml:"member"`
	Fires  []string          `yaml:"fires"`
}

// Fill is data written before an incident's load, in transactions of
// many puts under the incident's prefix: Keys keys of ValueBytes each,
// or until the database reaches QuotaShare of its quota, or until the
// cluster refuses a write for lack of space (UntilNoSpace, which raises
// the NOSPACE alarm). Delete then deletes every key written and compacts:
// a database file mostly free (fragmented). Rewrites writes the Keys keys
// that many times more (each write a new version of a key, kept in the
// history): a history for a compaction to remove (Keys at least 16, one
// transaction's batch).
type Fill struct {
	Keys         int     `yaml:"keys"`
	Rewrites     int     `yaml:"rewrites"`
	ValueBytes   int     `yaml:"value_bytes"`
	QuotaShare   float64 `yaml:"quota_share"`
	UntilNoSpace bool    `yaml:"until_nospace"`
	Delete       bool    `yaml:"delete"`
}

// defaultSettle is DoctorJob.Settle's default: long enough for a fault's
// effects (an election, a throttled process's backlog) to show.
const defaultSettle = 3_000_000_000 // 3 s, in Duration's nanoseconds

// JobFaults is the incident's own timeline (job.WithFaults).
func (d *DoctorJob) JobFaults() job.Faults { return d.Faults }
