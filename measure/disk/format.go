package disk

import "github.com/etcdlab/etcdlab/render"

// formatSeconds renders a latency with an explicit unit (render.Seconds).
func formatSeconds(s float64) string { return render.Seconds(s) }
