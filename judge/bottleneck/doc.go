// Package bottleneck says what limited an experiment's throughput: for
// each cell, the resource (the members' or the load generator's CPU, the
// disk, the round trip between members, the quota, a fault, a client rate
// limit) whose figure is furthest past its limit, with the figures that
// show it; for the whole sweep, how the limit moved along it. The figures
// are result.MeasureCell's; the limits are rows of package judge's limits
// table. Statements are written into the result document (Fill) by the
// command that makes it, so that reports draw them and never judge.
// Everything here is a pure function of its arguments: safe for
// concurrent use on documents nobody writes.
package bottleneck
