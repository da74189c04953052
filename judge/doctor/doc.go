// Package doctor judges what `etcdlab doctor` measured (measure/doctor):
// each step's checks against package judge's thresholds and limits, then
// findings (typed causes, Cause) ranked by how far their evidence is past
// its limit and how directly it explains slowness. Its knowledge is in
// two tables beside the rules: scores.go (every score a finding gets, one
// row each with what it means) and explains.go (the causal model: which
// causes' roots explain a symptom of each kind, read by fold). Judge
// writes them into the result document; it must not run concurrently
// with other readers or writers of that document.
package doctor
