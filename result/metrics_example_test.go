package result_test

import (
	"fmt"

	"github.com/etcdlab/etcdlab/result"
)

// A report, a statement or an experiment file's check reads a cell's
// figure by its name through the table: what it is called, its unit,
// which way is better and the cell's value.
func ExampleMetricOf() {
	c := &result.Cell{ID: "disk/put", Status: result.CellOK, Runs: []result.Run{
		{Name: "put", Stats: result.Stats{Requests: 12000, ThroughputRPS: 1190, Latency: result.Latency{P50: 0.004, P99: 0.009}}},
		{Name: "put", Stats: result.Stats{Requests: 12000, ThroughputRPS: 1210, Latency: result.Latency{P50: 0.004, P99: 0.011}}},
	}}
	m := result.MeasureCell(c)
	for _, name := range []result.MetricName{result.MetricThroughput, result.MetricLatencyP99} {
		mt := name.Metric()
		v, ok := mt.Of(c, &m)
		fmt.Printf("%s (%s, higher is better: %v): %.4g %v\n", mt.What, mt.Unit, mt.Better == result.HigherIsBetter, v, ok)
	}
	// Output:
	// throughput (req/s, higher is better: true): 1200 true
	// latency p99 (s, higher is better: false): 0.01 true
}
