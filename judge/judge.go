package judge

import (
	"fmt"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/result"
)

// Value judges v, measured in the unit of id's threshold, against that
// threshold and returns the verdict; display renders values (v and the
// limits) for people. An id without a threshold is a SKIP that says so: a
// bug in etcdlab, which the package's tests rule out for every constant.
func Value(id ID, v float64, display func(float64) string) result.Verdict {
	t, ok := Lookup(id)
	if !ok {
		return result.Verdict{ID: string(id), What: string(id), Value: v, Display: display(v), Status: result.Skip,
			Explanation: "no threshold " + string(id) + " in the table (a bug in etcdlab)"}
	}
	out := result.Verdict{ID: string(t.ID), What: t.What, Value: v, Unit: t.Unit, Display: display(v), Source: t.Source, Status: result.Pass}
	switch {
	case t.Fail > 0 && t.Warn > 0:
		out.Threshold = fmt.Sprintf("< %s (warn from %s)", display(t.Fail), display(t.Warn))
	case t.Fail > 0:
		out.Threshold = "< " + display(t.Fail)
	default:
		out.Threshold = "warn from " + display(t.Warn)
	}
	switch {
	case t.Fail > 0 && v >= t.Fail:
		out.Status = result.Fail
	case t.Warn > 0 && v >= t.Warn:
		out.Status = result.Warn
	}
	if out.Status != result.Pass {
		out.Explanation = fmt.Sprintf("%s %s (%s): %s", t.What, display(v), out.Threshold, t.Advice)
	}
	return out
}

// Unmeasured is the SKIP verdict for id when it could not be measured;
// reason says why.
func Unmeasured(id ID, reason string) result.Verdict {
	t, ok := Lookup(id)
	if !ok {
		t.What = string(id)
	}
	return result.Verdict{ID: string(id), What: t.What, Source: t.Source, Status: result.Skip, Display: "-", Explanation: "could not measure: " + reason}
}

// IOPSTier judges sequential fdatasync IOPS against the etcd tiers: below
// LimitIOPSUsable unusable (FAIL), from it development only (WARN), then
// small/medium (LimitIOPSSmall), medium/large (LimitIOPSMedium), and large
// clusters with heavy load (LimitIOPSLarge).
func IOPSTier(iops float64) result.Verdict {
	v := result.Verdict{ID: string(DiskFsyncIOPS), What: "sequential fdatasync IOPS", Value: iops, Unit: "IOPS",
		Display: units.Count(iops), Source: srcEtcdTiers}
	usable, small, medium, large := LimitIOPSUsable.Value(), LimitIOPSSmall.Value(), LimitIOPSMedium.Value(), LimitIOPSLarge.Value()
	switch {
	case iops < usable:
		v.Status, v.Threshold = result.Fail, fmt.Sprintf(">= %g (below: unusable)", usable)
		v.Explanation = fmt.Sprintf("%.0f sequential fdatasync IOPS is below etcd's minimum of %g: a cluster on this disk will miss heartbeats and elect leaders under the lightest load; use an SSD", iops, usable)
	case iops < small:
		v.Status, v.Threshold = result.Warn, fmt.Sprintf("tier %g: development only", usable)
		v.Explanation = fmt.Sprintf("%.0f IOPS is enough for development only; production clusters need %g (small/medium) to %g+ (heavy load)", iops, small, medium)
	case iops < medium:
		v.Status, v.Threshold = result.Pass, fmt.Sprintf("tier %g: small/medium cluster", small)
	case iops < large:
		v.Status, v.Threshold = result.Pass, fmt.Sprintf("tier %g: medium/large cluster", medium)
	default:
		v.Status, v.Threshold = result.Pass, fmt.Sprintf("tier %g+: large cluster, heavy load", large)
	}
	return v
}
