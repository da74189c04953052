// Package doctor judges what `etcdlab doctor` measured (measure/doctor):
// each step's checks against package judge's thresholds and limits, then
// findings (typed causes, Cause) ranked by how far their evidence is past
// its limit and how directly it explains slowness. Judge writes them into
// the result document; it must not run concurrently with other readers or
// writers of that document.
package doctor
