package render

import (
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/result"
)

// peerRTTTable lists, for an experiment that publishes an article's peer
// round-trip range, the lowest and highest buckets of etcd's round-trip
// histogram each member observed in each cell (over its runs), beside
// the article's range for the same cells: bucket labels beside bucket
// labels, as the article's dashboard showed them. Pure: it reads the
// model only.
func (m expModel) peerRTTTable() (Table, bool) {
	t := Table{Header: []string{"cell", "member", "lowest bucket (le)", "highest bucket (le)", "the article's range"}}
	for _, c := range m.Cells {
		var lo, hi float64
		for _, p := range m.pubs {
			if !matches(p.Match, c.Cell) {
				continue
			}
			switch result.MetricName(p.Metric) {
			case result.MetricPeerRTTLowest:
				lo = p.Value
			case result.MetricPeerRTTHighest:
				hi = p.Value
			}
		}
		if lo == 0 && hi == 0 {
			continue
		}
		article := secOrDash(lo) + " – " + secOrDash(hi)
		for _, name := range memberNames(c.Cell) {
			var low, high float64
			for _, r := range c.Cell.Runs {
				if r.Server == nil {
					continue
				}
				for _, mb := range r.Server.Members {
					s := mb.Summary
					if mb.Name != name || s.PeerRTTLowestBucket == 0 {
						continue
					}
					if low == 0 || s.PeerRTTLowestBucket < low {
						low = s.PeerRTTLowestBucket
					}
					high = max(high, s.PeerRTTHighestBucket)
				}
			}
			t.Rows = append(t.Rows, []string{c.Cell.ID, name, bucketOrNone(low), bucketOrNone(high), article})
		}
	}
	return t, len(t.Rows) > 0
}

// memberNames are the members a cell's runs scraped, in first-seen order.
func memberNames(c *result.Cell) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range c.Runs {
		if r.Server == nil {
			continue
		}
		for _, mb := range r.Server.Members {
			if !seen[mb.Name] {
				seen[mb.Name] = true
				names = append(names, mb.Name)
			}
		}
	}
	return names
}

// bucketOrNone is a bucket label, or says the member observed none (etcd
// observes its probers' round trip every 30 s: a short run may hold none).
func bucketOrNone(v float64) string {
	if v == 0 {
		return "none observed"
	}
	return units.Seconds(v)
}
