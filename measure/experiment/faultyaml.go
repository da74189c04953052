package experiment

import (
	"fmt"

	"github.com/etcdlab/etcdlab/lab/cluster"

	"go.yaml.in/yaml/v3"
)

// UnmarshalYAML reads one step of a fault timeline: at, for, and one key
// per action named after a fault of lab/cluster's registry that takes a
// member or an etcd (upgrade, downgrade), so a fault added to the
// registry needs nothing here (timelineAction). It
// reports what go-yaml's strict decoding of a struct would, in its words
// (an unknown key, a repeated key, a value of the wrong type), so Parse's
// messages stay those of every other part of the file.
func (f *Fault) UnmarshalYAML(n *yaml.Node) error {
	// Fault holds the step's keys that are not actions; it is named so
	// that go-yaml's messages name experiment.Fault.
	type Fault struct {
		At  Duration `yaml:"at"`
		For Duration `yaml:"for"`
	}
	if n.Kind != yaml.MappingNode {
		var plain Fault
		if err := n.Decode(&plain); err != nil {
			return err
		}
		f.At, f.For, f.Actions = plain.At, plain.For, nil
		return nil
	}
	var errs []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		for j := i + 2; j+1 < len(n.Content); j += 2 {
			ki, kj := n.Content[i], n.Content[j]
			if ki.Kind == kj.Kind && ki.Value == kj.Value {
				errs = append(errs, fmt.Sprintf("line %d: mapping key %#v already defined at line %d", kj.Line, kj.Value, ki.Line))
			}
		}
	}
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	var plain Fault
	actions := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Value == "at" || k.Value == "for":
			d := &plain.At
			if k.Value == "for" {
				d = &plain.For
			}
			if err := v.Decode(d); err != nil {
				if !isTypeError(err) {
					return err // go-yaml stops at once on such an error
				}
				errs = append(errs, typeErrors(err)...)
			}
		case timelineAction(k.Value):
			var target string
			if err := v.Decode(&target); err != nil {
				if !isTypeError(err) {
					return err
				}
				errs = append(errs, typeErrors(err)...)
				continue
			}
			if target != "" { // as an empty string field: no action
				actions[k.Value] = target
			}
		default:
			errs = append(errs, fmt.Sprintf("line %d: field %s not found in type experiment.Fault", k.Line, k.Value))
		}
	}
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	f.At, f.For = plain.At, plain.For
	f.Actions = nil
	if len(actions) > 0 {
		f.Actions = actions
	}
	return nil
}

// timelineAction reports whether name is an action a timeline step may
// name: a fault of the registry that takes a member, one that takes an
// etcd (upgrade, downgrade), or the cluster's own (compact, alarm-disarm:
// "compact: cluster keep=1000").
func timelineAction(name string) bool {
	f, err := cluster.LookupFault(name)
	if err != nil {
		return false
	}
	a := f.About()
	return a.TakesMember() || (a.Etcd && a.MinArgs == 1) || a.OnCluster()
}

// isTypeError reports whether err is go-yaml's collected type errors,
// after which decoding goes on; any other error stops it.
func isTypeError(err error) bool {
	_, ok := err.(*yaml.TypeError) //nolint:errorlint // go-yaml returns it unwrapped
	return ok
}

// typeErrors are a decoding error's lines, as go-yaml collects them.
func typeErrors(err error) []string {
	if te, ok := err.(*yaml.TypeError); ok { //nolint:errorlint // go-yaml returns it unwrapped
		return te.Errors
	}
	return []string{err.Error()}
}
