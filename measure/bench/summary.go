package bench

import (
	"github.com/etcdlab/etcdlab/result"
)

// summarize aggregates iterations per sweep point (same conns and clients),
// in the order the points were run.
func summarize(runs []result.Run) []result.Summary {
	type key struct{ conns, clients int }
	var order []key
	groups := map[key][]result.Run{}
	for _, r := range runs {
		k := key{r.Conns, r.Clients}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	out := make([]result.Summary, 0, len(order))
	for _, k := range order {
		g := groups[k]
		pick := func(f func(result.Run) float64) result.MeanSD {
			xs := make([]float64, len(g))
			for i, r := range g {
				xs[i] = f(r)
			}
			return result.MeanSDOf(xs)
		}
		name := g[0].Name
		if len(g) > 1 {
			name = name[:len(name)-len(" iteration=1")]
		}
		out = append(out, result.Summary{
			Name: name, Conns: k.conns, Clients: k.clients, Iterations: len(g),
			ThroughputRPS: pick(func(r result.Run) float64 { return r.ThroughputRPS }),
			P50:           pick(func(r result.Run) float64 { return r.Latency.P50 }),
			P99:           pick(func(r result.Run) float64 { return r.Latency.P99 }),
			Mean:          pick(func(r result.Run) float64 { return r.Latency.Mean }),
		})
	}
	return out
}
