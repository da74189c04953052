package disk

import "github.com/etcdlab/etcdlab/report"

// formatSeconds renders a latency with an explicit unit (report.Seconds).
func formatSeconds(s float64) string { return report.Seconds(s) }
