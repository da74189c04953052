package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/result"
	"github.com/etcdlab/etcdlab/result/compare"
)

// maintenanceOpsTable lists every maintenance operation of the
// experiment: its cell and round, what it did to which member, the
// database it met, how long it took, how long the member and the cluster
// did not answer, and the worst p99 and the errors of the load's
// operations meanwhile.
func (m expModel) maintenanceOpsTable() (Table, []string, bool) {
	t := Table{Header: []string{"cell", "op", "member", "database", "free", "took", "blocked", "cluster unav.", "clients' p99", "errors"}}
	for _, c := range m.Cells {
		mt := c.Cell.Maintenance
		if mt == nil {
			continue
		}
		for ri, r := range mt.Rounds {
			name := c.Cell.ID
			if len(mt.Rounds) > 1 {
				name += fmt.Sprintf(" #%d", ri+1)
			}
			for _, o := range r.Ops {
				db, free := "-", "-"
				if o.DBBytesBefore > 0 {
					db = humanize.IBytes(uint64(o.DBBytesBefore))
					if o.DBBytesAfter > 0 {
						db += " → " + humanize.IBytes(uint64(o.DBBytesAfter))
					}
					if o.DBInUseBefore > 0 {
						free = fmt.Sprintf("%.0f%%", 100*(1-float64(o.DBInUseBefore)/float64(o.DBBytesBefore)))
					}
				}
				switch {
				case o.Op == result.OpCompact && o.Revisions > 0:
					db = humanize.Comma(o.Revisions) + " revisions"
				case o.Op == result.OpSnapshot && o.Bytes > 0:
					db = humanize.IBytes(uint64(o.Bytes)) + " saved"
				case o.Op == result.OpCatchUp:
					db = humanize.Comma(o.Distance) + " entries behind"
					if o.SnapshotSent {
						db += ", snapshot"
					}
				}
				member := o.Member
				if member == "" {
					member = "all"
				}
				took := secs(o.Seconds)
				if o.Error != "" {
					took = "failed: " + o.Error
				}
				cluster := "0"
				if o.Cluster != nil {
					cluster = secs(o.Cluster.LongestSeconds)
				}
				w99, errs := "-", "-"
				if len(o.Clients) > 0 {
					r := result.MaintenanceRound{During: o.Clients}
					v, op := r.WorstP99()
					w99 = secs(v) + " (" + op + ")"
					errs = strconv.FormatInt(r.Errors(), 10)
				}
				blocked := secs(o.BlockedSeconds())
				if o.Op == result.OpCatchUp {
					blocked = "down" // it answers nothing until it has started: Seconds
				}
				t.Rows = append(t.Rows, []string{name, o.Op, member, db, free, took, blocked, cluster, w99, errs})
			}
			for _, s := range r.Skipped {
				t.Rows = append(t.Rows, []string{name, mt.Op, strings.SplitN(s, ":", 2)[0], "", "", "skipped: " + strings.TrimSpace(strings.SplitN(s, ":", 2)[1]), "", "", "", ""})
			}
		}
	}
	if len(t.Rows) == 0 {
		return t, nil, false
	}
	notes := []string{"Maintenance: a member is blocked from the last answer before a gap to the first after it, for a canary's linearizable read to that member alone every 20 ms; the cluster is unavailable when no member answers; the clients' p99 is the highest p99 of the load's operations over the requests in flight during the operation (exact, from every request), and errors their failed requests (a catch-up's member is down until it has started: the load pinned to it fails meanwhile, as its node's apiserver would)."}
	return t, notes, true
}

// defragCurveTable is the defragmentation time per GiB of database per
// setup, with the fit's error, from result.DefragCurves.
func (m expModel) defragCurveTable() (Table, []string, bool) {
	curves := result.DefragCurves(m.resultCells())
	t := Table{Header: []string{"setup", "points", "sizes", "s/GiB in use (fit)", "fixed", "rms", "worst", "median s/GiB", "blocked s/GiB"}}
	var notes []string
	for _, d := range curves {
		if !d.Fitted {
			t.Rows = append(t.Rows, []string{d.Setup, strconv.Itoa(len(d.Points)), strconv.Itoa(d.Sizes), fmt.Sprintf("not fitted: %d of %d sizes", d.Sizes, result.MinFitSizes), "", "", "", fmt.Sprintf("%.2f", d.MedianRate), ""})
			continue
		}
		t.Rows = append(t.Rows, []string{d.Setup, strconv.Itoa(len(d.Points)), strconv.Itoa(d.Sizes),
			fmt.Sprintf("%.2f ± %.2f", d.SecondsPerGiB, d.SlopeError), secs(d.Intercept), secs(d.RMSError),
			fmt.Sprintf("%.0f%% off", 100*d.MaxRelError), fmt.Sprintf("%.2f", d.MedianRate), fmt.Sprintf("%.2f", d.BlockedPerGiB)})
	}
	if len(t.Rows) == 0 {
		return t, nil, false
	}
	notes = append(notes, "Defragmentation: least squares of the call's seconds against the GiB in use in the database before it (what it copies), per setup, from the cells that defragment one follower (± the slope's standard error); points are defragmentations; fixed is the line at no data; rms the residuals' root mean square; worst the largest residual over its point's time; median s/GiB is the median of the points' seconds per GiB in use (a rate through the origin, what doctor's estimate of a next defragmentation uses).")
	return t, notes, true
}

// policyTable sets each policy's figures over its rounds beside the base
// policy's (the cell marked base: on the same setup, else the first): the
// worst client p99 and p99.9 during the maintenance and the errors, each
// with its change and whether that change is beyond the rounds' spread
// (compare.Change: twice the standard error of the difference).
func (m expModel) policyTable() (Table, []string, bool) {
	ps := result.Policies(m.resultCells())
	if len(ps) == 0 {
		return Table{}, nil, false
	}
	t := Table{Header: []string{"policy", "rounds", "ops", "p99", "vs base", "p99.9", "vs base", "errors", "vs base", "blocked", "elections", "p99 before"}}
	var named []string
	for _, p := range ps {
		base := policyBase(ps, p.Setup)
		ops := strconv.Itoa(p.Ops)
		if p.Skipped > 0 {
			ops += fmt.Sprintf(" (%d skipped)", p.Skipped)
		}
		row := []string{policyName(p), strconv.Itoa(p.Rounds), ops,
			meanSDOf(p.WorstP99, secs), vsBase(base, p, "p99", func(f result.PolicyFigures) result.MeanSD { return f.WorstP99 }),
			meanSDOf(p.WorstP999, secs), vsBase(base, p, "p99.9", func(f result.PolicyFigures) result.MeanSD { return f.WorstP999 }),
			meanSDOf(p.Errors, count), vsBase(base, p, "errors", func(f result.PolicyFigures) result.MeanSD { return f.Errors }),
			meanSDOf(p.Blocked, secs), meanSDOf(p.LeaderChanges, count), meanSDOf(p.BeforeP99, secs)}
		if p.Ops == 0 { // nothing ran: no window to read, not a window without latency
			for _, i := range []int{3, 4, 5, 6, 7, 8, 9} {
				row[i] = "-"
			}
			row[4] = "nothing ran"
		}
		t.Rows = append(t.Rows, row)
		named = append(named, fmt.Sprintf("%s (%s): %s", p.Workload, p.Setup, p.Policy))
	}
	notes := []string{"Policies: " + strings.Join(named, "; ") + ".", "Policies: figures are means ± standard deviations over the rounds; p99 (p99.9) is the highest p99 (p99.9) of any of the load's operations over the requests in flight during the maintenance's operations (pauses between members excluded), p99 before the same over the settle before them; vs base is the change from the base policy's (marked *) with \"(ns)\" when it is within twice the standard error of the difference (not significant) and \"(1 round)\" when either side ran one round (no spread to test against); blocked is the longest window a member did not answer, elections the leader changes the members saw."}
	return t, notes, true
}

func policyName(p result.PolicyFigures) string {
	if p.Base {
		return p.Workload + " *"
	}
	return p.Workload
}

// policyBase is the base policy of setup (the first marked base on it,
// else the first marked base anywhere), nil for none.
func policyBase(ps []result.PolicyFigures, setup string) *result.PolicyFigures {
	var any *result.PolicyFigures
	for i := range ps {
		if !ps[i].Base {
			continue
		}
		if ps[i].Setup == setup {
			return &ps[i]
		}
		if any == nil {
			any = &ps[i]
		}
	}
	return any
}

func vsBase(base *result.PolicyFigures, p result.PolicyFigures, what string, f func(result.PolicyFigures) result.MeanSD) string {
	if base == nil || base.Cell == p.Cell {
		return ""
	}
	r := compare.Change("", what, "", f(*base), f(p), base.Rounds, p.Rounds, false)
	s := pctChange(r.ChangePct)
	if f(*base).Mean == 0 {
		s = fmt.Sprintf("%+.3g", f(p).Mean-f(*base).Mean)
	}
	switch {
	case r.Significant == nil:
		return s + " (1 round)"
	case !*r.Significant:
		return s + " (ns)"
	}
	return s
}

func meanSDOf(v result.MeanSD, f func(float64) string) string {
	if v.Stddev == 0 {
		return f(v.Mean)
	}
	return f(v.Mean) + " ± " + f(v.Stddev)
}

// count is a count, or a mean of counts with two decimals.
func count(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// resultCells is the document's cells, for result's summaries of them.
func (m expModel) resultCells() []result.Cell {
	cells := make([]result.Cell, 0, len(m.Cells))
	for _, c := range m.Cells {
		cells = append(cells, *c.Cell)
	}
	return cells
}
