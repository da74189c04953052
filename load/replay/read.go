package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/etcdlab/etcdlab/invalid"
	"sigs.k8s.io/yaml"
)

// maxProfileBytes bounds a profile file: a week of one-minute points is
// well under it.
const maxProfileBytes = 64 << 20

// ReadFile reads and checks the profile at path. Every error is an
// invalid.Error of one line naming the file: a profile that cannot be
// replayed is bad input.
//
// A path "sample:NAME" is one of the sample profiles shipped with etcdlab
// (Samples).
func ReadFile(path string) (*Profile, error) {
	if name, ok := strings.CutPrefix(path, SamplePrefix); ok {
		return sample(name)
	}
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, invalid.Errorf("profile %s: no such file", path)
		}
		return nil, invalid.Errorf("profile %s: %v", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, invalid.Errorf("profile %s: not a regular file", path)
	}
	if fi.Size() > maxProfileBytes {
		return nil, invalid.Errorf("profile %s: %d bytes, more than a profile's %d", path, fi.Size(), maxProfileBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, invalid.Errorf("profile %s: %v", path, err)
	}
	p, err := Parse(b)
	if err != nil {
		return nil, invalid.Errorf("profile %s: %s", path, err.Error())
	}
	return p, nil
}

// Parse reads a profile document (YAML or JSON) and checks it. Its errors
// are invalid.Errors of one line.
func Parse(b []byte) (*Profile, error) {
	var head struct {
		Kind    string `json:"kind"`
		Version int    `json:"version"`
	}
	if err := yaml.Unmarshal(b, &head); err != nil {
		return nil, invalid.Errorf("not a profile: %s", firstLine(err.Error()))
	}
	switch {
	case head.Kind != Kind:
		if head.Kind == "" {
			return nil, invalid.Errorf("not a profile: no kind: %s (etcdlab profile writes one)", Kind)
		}
		return nil, invalid.Errorf("not a profile: kind %q, not %q", head.Kind, Kind)
	case head.Version > Version:
		return nil, invalid.Errorf("profile version %d is newer than this etcdlab reads (%d): upgrade etcdlab", head.Version, Version)
	case head.Version < 1:
		return nil, invalid.Errorf("profile version %d: versions start at 1", head.Version)
	}
	var p Profile
	if err := yaml.UnmarshalStrict(b, &p); err != nil {
		return nil, invalid.Errorf("profile: %s", firstLine(err.Error()))
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate checks what a replay needs of a profile: known operations, rates
// that are positive and finite, sizes that are not negative. Its errors are
// invalid.Errors of one line.
func (p *Profile) Validate() error {
	if len(p.Operations) == 0 && p.Watches == nil && p.Leases == nil {
		return invalid.Errorf("profile: no operations, watches or leases: nothing to replay")
	}
	ops := Ops()
	for i, o := range p.Operations {
		where := fmt.Sprintf("operations[%d]", i)
		if !slices.Contains(ops, o.Op) {
			return invalid.Errorf("profile: %s: unknown operation %q (known: %s)", where, o.Op, strings.Join(ops, ", "))
		}
		if !(o.Rate > 0) || math.IsInf(o.Rate, 0) {
			return invalid.Errorf("profile: %s (%s): rate must be positive, not %g", where, o.Op, o.Rate)
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"valueBytes", o.ValueBytes}, {"createValueBytes", o.CreateValueBytes}, {"rangeKeys", o.RangeKeys}, {"rangeBytes", o.RangeBytes}} {
			if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
				return invalid.Errorf("profile: %s (%s): %s must not be negative, not %g", where, o.Op, f.name, f.v)
			}
		}
		if o.Serializable < 0 || o.Serializable > 1 {
			return invalid.Errorf("profile: %s (%s): serializable is a share from 0 to 1, not %g", where, o.Op, o.Serializable)
		}
		if o.ValueBytes > maxValueBytes {
			return invalid.Errorf("profile: %s (%s): valueBytes %g is past etcd's request limit (%d)", where, o.Op, o.ValueBytes, maxValueBytes)
		}
	}
	if k := p.Keyspace; k != nil {
		if k.Keys < 0 {
			return invalid.Errorf("profile: keyspace: keys must not be negative, not %d", k.Keys)
		}
		for i, s := range k.Prefixes {
			if s.Keys < 0 || s.KeyBytes < 0 || s.ValueBytes < 0 {
				return invalid.Errorf("profile: keyspace.prefixes[%d] (%s): counts and sizes must not be negative", i, s.Prefix)
			}
			if s.ValueBytes > maxValueBytes {
				return invalid.Errorf("profile: keyspace.prefixes[%d] (%s): valueBytes %g is past etcd's request limit (%d)", i, s.Prefix, s.ValueBytes, maxValueBytes)
			}
		}
	}
	if w := p.Watches; w != nil && (w.Watchers < 0 || w.Streams < 0 || w.EventsPerSecond < 0 || w.FanOut < 0) {
		return invalid.Errorf("profile: watches: counts and rates must not be negative")
	}
	if w := p.Watches; w != nil {
		for i, wp := range w.Prefixes {
			if wp.Watchers < 0 || wp.Prefix == "" {
				return invalid.Errorf("profile: watches.prefixes[%d]: a prefix and a watcher count that is not negative are required", i)
			}
		}
	}
	if l := p.Leases; l != nil {
		if l.Count < 0 || l.KeepalivesPerSecond < 0 || l.KeysPerLease < 0 {
			return invalid.Errorf("profile: leases: counts and rates must not be negative")
		}
		if l.Count > 0 && l.TTL.D() <= 0 {
			return invalid.Errorf("profile: leases: %d leases need a positive ttl", l.Count)
		}
	}
	if s := p.Series; s != nil {
		if len(s.Points) > 0 && s.Step.D() <= 0 {
			return invalid.Errorf("profile: series: step must be positive, not %s", s.Step.D())
		}
		for i, pt := range s.Points {
			if pt.Rate < 0 || math.IsNaN(pt.Rate) || math.IsInf(pt.Rate, 0) {
				return invalid.Errorf("profile: series.points[%d]: rate must not be negative, not %g", i, pt.Rate)
			}
		}
	}
	return nil
}

// maxValueBytes is etcd's default request limit (--max-request-bytes,
// 1.5 MiB): a larger value cannot be written.
const maxValueBytes = 1536 * 1024

// Marshal writes p as YAML, behind a header that says what the document is
// and where its fields are documented.
func Marshal(p *Profile) ([]byte, error) {
	b, err := yaml.Marshal(p)
	if err != nil {
		return nil, err
	}
	head := "# etcdlab load profile (docs/profiles.md): rates per second, sizes in bytes.\n" +
		"# Replay it with: etcdlab bench replay THIS-FILE\n"
	return append([]byte(head), b...), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
