package job

import "go.yaml.in/yaml/v3"

// Checker is what Job.Check gets: the file around the workload.
type Checker interface {
	// Errorf is an invalid-input error at path below the workload's key
	// ("load", 0 in an incident): the file, the line, the path.
	Errorf(path []any, format string, args ...any) error
	// Setups are the file's setups, in order.
	Setups() []Setup
	// Swept reports whether the sweep gives param values.
	Swept(param string) bool
	// CheckFaults checks a fault timeline of the job's own (at path) against
	// the setups the workload runs on.
	CheckFaults(path []any, f Faults) error
}

// Setup is what a job may check of a setup.
type Setup struct {
	Name  string
	Index int // in the file's setups
	// Live: a live cluster (endpoints); Members: a local one's size.
	Live    bool
	Members int
	// Runs says the workload runs on this setup (its setups: list).
	Runs bool
}

// Faults is a fault timeline in a job's fields (an incident's faults:) as
// the file wrote it: the experiment reads its steps (experiment.Fault),
// checks them (Checker.CheckFaults) and runs them (Target.Timeline).
type Faults struct{ node *yaml.Node }

// UnmarshalYAML keeps the timeline's node.
func (f *Faults) UnmarshalYAML(n *yaml.Node) error {
	f.node = n
	return nil
}

// Node is the timeline as written, nil when the file gives none.
func (f Faults) Node() *yaml.Node { return f.node }

// WithFaults is fields that hold a fault timeline of their own.
type WithFaults interface {
	JobFaults() Faults
}
