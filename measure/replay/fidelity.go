package replay

import (
	"fmt"
	"math"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/result"
)

// Tolerances of the fidelity rows: rates within ±10% (an open loop sends
// exactly its schedule, so more is the replay's fault), sizes, watch events,
// keys and the database within ±15% (they depend on how the target stores
// and batches what it was sent).
const (
	rateTolerance = 0.10
	sizeTolerance = 0.15
)

// Compare puts the target's figures during a replay (got, derived from
// its metrics with the profile command's own code) beside the profile's
// (want), rates multiplied by scale. A figure the profile does not have is
// not compared, nor one no metric tells (keys per range: a range's count
// of keys returned is in no etcd metric, so it is a figure of the plan,
// not of the fidelity).
func Compare(want, got *replay.Profile, scale float64) []result.FidelityRow {
	var rows []result.FidelityRow
	add := func(name, unit string, w, g, tol float64, note string) {
		if w <= 0 {
			return
		}
		r := result.FidelityRow{Name: name, Unit: unit, Want: w, Got: g, Tolerance: tol, Note: note}
		r.Ratio = g / w
		r.Off = math.Abs(r.Ratio-1) > tol
		rows = append(rows, r)
	}
	wr, gr := opRates(want), opRates(got)
	for _, op := range replay.Ops() {
		add(op+" rate", "/s", wr[op]*scale, gr[op], rateTolerance, "")
	}
	add("requests", "/s", sumRates(want)*scale, sumRates(got), rateTolerance, "")
	add("bytes per put", "B", meanOf(want, putBytes), meanOf(got, putBytes), sizeTolerance, "")
	add("bytes per range", "B", meanOf(want, rangeBytes), meanOf(got, rangeBytes), sizeTolerance, "")
	if want.Watches != nil {
		var g replay.Watches
		if got.Watches != nil {
			g = *got.Watches
		}
		add("watchers", "", float64(want.Watches.Watchers), float64(g.Watchers), rateTolerance, "")
		add("watch events", "/s", want.Watches.EventsPerSecond*scale, g.EventsPerSecond, sizeTolerance, "")
	}
	if want.Leases != nil {
		var g replay.Leases
		if got.Leases != nil {
			g = *got.Leases
		}
		add("lease keep-alives", "/s", want.Leases.KeepalivesPerSecond*scale, g.KeepalivesPerSecond, rateTolerance, "")
	}
	add("revisions", "/s", want.Totals.RevisionsPerSecond*scale, got.Totals.RevisionsPerSecond, rateTolerance, "")
	if want.Keyspace != nil {
		var g replay.Keyspace
		if got.Keyspace != nil {
			g = *got.Keyspace
		}
		add("keys", "", float64(want.Keyspace.Keys), float64(g.Keys), sizeTolerance, "")
		add("database size", "B", float64(want.Keyspace.DBSize), float64(g.DBSize), sizeTolerance, dbNote(want, &g))
	}
	return rows
}

// dbNote says what a database size row compares: the file, which a
// defragmented source has smaller than a fresh target's history makes it.
func dbNote(want *replay.Profile, got *replay.Keyspace) string {
	if want.Keyspace.DBSizeInUse > 0 && got.DBSizeInUse > 0 {
		return fmt.Sprintf("in use: %s against %s", humanize.IBytes(uint64(got.DBSizeInUse)), humanize.IBytes(uint64(want.Keyspace.DBSizeInUse)))
	}
	return ""
}

// opRates sums a profile's rates per operation over its prefixes.
func opRates(p *replay.Profile) map[string]float64 {
	m := map[string]float64{}
	for _, o := range p.Operations {
		m[o.Op] += o.Rate
	}
	return m
}

func sumRates(p *replay.Profile) float64 {
	s := 0.0
	for _, o := range p.Operations {
		if o.Op == replay.OpKeepalive {
			continue // leases' own row
		}
		s += o.Rate
	}
	return s
}

// meanOf is the mean of a figure over the rows that have it, weighted by
// their rates (a txn's by its puts: the figures are per put or per range);
// f reports the figure and whether a row has one.
func meanOf(p *replay.Profile, f func(replay.Operation) (float64, bool)) float64 {
	var sum, w float64
	for _, o := range p.Operations {
		if v, ok := f(o); ok {
			n := o.Rate
			if o.Op == replay.OpTxn && o.Txn != nil {
				n *= o.Txn.Puts // a txn's value size is its puts'
			}
			sum += v * n
			w += n
		}
	}
	if w == 0 {
		return 0
	}
	return sum / w
}

func putBytes(o replay.Operation) (float64, bool) {
	return o.ValueBytes, (o.Op == replay.OpPut || o.Op == replay.OpTxn) && o.ValueBytes > 0
}

func rangeBytes(o replay.Operation) (float64, bool) {
	return o.RangeBytes, o.Op == replay.OpRange && o.RangeBytes > 0
}
