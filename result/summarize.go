package result

import "strings"

// Summarize aggregates runs per sweep point (same conns and clients), in
// the order the points first appear: throughput and latency as mean and
// sample standard deviation across each point's iterations. A point is
// named after its first run, less " iteration=1" when it has several.
func Summarize(runs []Run) []Summary {
	type key struct{ conns, clients int }
	var order []key
	groups := map[key][]Run{}
	for _, r := range runs {
		k := key{r.Conns, r.Clients}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	out := make([]Summary, 0, len(order))
	for _, k := range order {
		g := groups[k]
		pick := func(f func(Run) float64) MeanSD {
			xs := make([]float64, len(g))
			for i, r := range g {
				xs[i] = f(r)
			}
			return MeanSDOf(xs)
		}
		name := g[0].Name
		if len(g) > 1 {
			name = strings.TrimSuffix(name, " iteration=1")
		}
		out = append(out, Summary{
			Name: name, Conns: k.conns, Clients: k.clients, Iterations: len(g),
			ThroughputRPS: pick(func(r Run) float64 { return r.ThroughputRPS }),
			P50:           pick(func(r Run) float64 { return r.Latency.P50 }),
			P99:           pick(func(r Run) float64 { return r.Latency.P99 }),
			Mean:          pick(func(r Run) float64 { return r.Latency.Mean }),
		})
	}
	return out
}
