package result

// KindDoctor is a Document of `etcdlab doctor`: a read-only diagnosis of a
// live cluster.
const KindDoctor = "doctor"

// Doctor is what `etcdlab doctor` saw and concluded, step by step in the
// order the field reports work (membership, reads, CPU and memory,
// network, disk, the server's own complaints, logs, history, keyspace),
// then the findings ranked by how well their evidence explains a slow
// cluster.
type Doctor struct {
	// WindowSeconds is how long the members' metrics were watched (rates
	// and quantiles are over it).
	WindowSeconds float64 `json:"window_seconds"`
	// Members are the members as doctor found them.
	Members []DoctorMember `json:"members"`
	// Steps are the diagnosis steps in order, each with its checks and
	// what it could not see.
	Steps []DoctorStep `json:"steps"`
	// Findings are the conclusions, the best-explained first.
	Findings []Finding `json:"findings"`
	// Logs is the census of the members' logs (--logs); nil without.
	Logs *LogCensus `json:"logs,omitempty"`
	// Keyspace is the census of the keys (--keyspace); nil without.
	Keyspace *KeyspaceCensus `json:"keyspace,omitempty"`
}

// DoctorMember is one member as doctor found it.
type DoctorMember struct {
	Name      string `json:"name"`
	ID        string `json:"id,omitempty"`
	Endpoint  string `json:"endpoint"`
	Version   string `json:"version,omitempty"`
	IsLeader  bool   `json:"is_leader,omitempty"`
	IsLearner bool   `json:"is_learner,omitempty"`
	// Reachable is false when its endpoint did not answer; Error says why.
	Reachable bool   `json:"reachable"`
	Error     string `json:"error,omitempty"`
}

// DoctorStep is one step of the diagnosis.
type DoctorStep struct {
	// Name is the step: "membership", "reads", "cpu-memory", "network",
	// "disk", "complaints", "logs", "history", "keyspace".
	Name string `json:"name"`
	// Checks are its measurements against their thresholds.
	Checks []Verdict `json:"checks"`
	// Unseen says what the step could not see and why ("m2's metrics:
	// connection refused").
	Unseen []string `json:"unseen,omitempty"`
}

// Finding is one conclusion of the diagnosis.
type Finding struct {
	// Rank is 1 for the finding that best explains the symptom.
	Rank int `json:"rank"`
	// Status is FAIL or WARN.
	Status string `json:"status"`
	// Cause is what is wrong: disk, network, cpu, memory, quota,
	// fragmentation, leader, membership, requests.
	Cause string `json:"cause"`
	// Member names the member when the cause is one member's; empty when
	// it is the cluster's.
	Member string `json:"member,omitempty"`
	// Summary is the finding in one sentence with its figures.
	Summary string `json:"summary"`
	// Evidence are the measurements behind it, each with its threshold.
	Evidence []string `json:"evidence"`
	// Fix is what to do.
	Fix string `json:"fix"`
	// Source is where the threshold and the advice come from.
	Source string `json:"source"`
	// Score orders findings: how far past their thresholds the evidence
	// is, and how directly it explains slowness.
	Score float64 `json:"score"`
	// Versions are the etcd versions whose metrics or logs it relied on.
	Versions []string `json:"versions,omitempty"`
}

// LogCensus counts the known etcd log messages in the members' logs.
type LogCensus struct {
	// Sources are the files read ("-" for standard input).
	Sources []string `json:"sources"`
	// Formats are the log formats recognised: "json" (zap, etcd 3.4
	// and later), "text" (capnslog, etcd 3.4 without --logger=zap),
	// "journald-json", "journald-short".
	Formats []string `json:"formats,omitempty"`
	// Lines is how many lines were read; Unrecognised how many of them
	// were in no known format.
	Lines        int `json:"lines"`
	Unrecognised int `json:"unrecognised"`
	// Messages are the known messages found, per member.
	Messages []LogMessage `json:"messages"`
	// FirstUnix and LastUnix bound the timestamps seen (Unix seconds).
	FirstUnix float64 `json:"first_unix,omitempty"`
	LastUnix  float64 `json:"last_unix,omitempty"`
}

// LogMessage is one known message's occurrences in one member's log.
type LogMessage struct {
	Member string `json:"member"`
	// Key names the message ("slow-fdatasync", "apply-took-too-long").
	Key string `json:"key"`
	// Text is the message as etcd logs it.
	Text string `json:"text"`
	// Cause is what the message points to: disk, network, cpu, leader,
	// quota, clock.
	Cause string `json:"cause"`
	Count int    `json:"count"`
	// PerMinute counts by minute (Unix seconds of the minute's start).
	PerMinute []MinuteCount `json:"per_minute,omitempty"`
	// Took summarises the durations the messages report ("took"), in
	// seconds; nil when they report none.
	Took *TookSummary `json:"took,omitempty"`
}

// MinuteCount is a count within one minute.
type MinuteCount struct {
	Unix  int64 `json:"unix"`
	Count int   `json:"count"`
}

// TookSummary is min, median and max of reported durations (seconds).
type TookSummary struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// KeyspaceCensus is how the keys fill the database: per top-level prefix
// and, for Kubernetes, per /registry/<resource>.
type KeyspaceCensus struct {
	// Revision is the revision every page was read at.
	Revision int64 `json:"revision"`
	// Keys and Bytes (keys and values) in total.
	Keys  int64 `json:"keys"`
	Bytes int64 `json:"bytes"`
	// Prefixes are the groups, the largest in bytes first.
	Prefixes []PrefixUsage `json:"prefixes"`
}

// PrefixUsage is one group of keys.
type PrefixUsage struct {
	Prefix string `json:"prefix"`
	Keys   int64  `json:"keys"`
	Bytes  int64  `json:"bytes"`
}
