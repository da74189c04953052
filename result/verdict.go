package result

// Verdict statuses, ordered by severity.
const (
	Pass = "PASS"
	Warn = "WARN"
	Fail = "FAIL"
	Skip = "SKIP" // could not be measured
)

// Verdict is one judged measurement: what was measured, its value, the
// threshold it was held to and where that threshold comes from.
type Verdict struct {
	ID        string  `json:"id"`
	What      string  `json:"what"`
	Value     float64 `json:"value"`
	Unit      string  `json:"unit"`
	Display   string  `json:"display"`   // the value for people, with its unit
	Threshold string  `json:"threshold"` // e.g. "< 10 ms"
	Source    string  `json:"source"`
	Status    string  `json:"status"`
	// Explanation says what a WARN or FAIL means and what to do.
	Explanation string `json:"explanation,omitempty"`
}

// Overall returns the worst status of vs (SKIP counts as WARN), or PASS.
func Overall(vs []Verdict) string {
	worst := Pass
	for _, v := range vs {
		switch v.Status {
		case Fail:
			return Fail
		case Warn, Skip:
			worst = Warn
		}
	}
	return worst
}
