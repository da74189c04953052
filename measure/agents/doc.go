// Package agents splits a bench load over several processes and puts
// their results back together. Every agent is a bench run of its slice of
// the load (bench.Config.Agent) with Coordination among its observers
// (RunAgent): a lease and barriers of keys in the target cluster start
// the agents' runs together and measure their clocks. Local is
// `bench --agents` on this machine (a cluster started for the agents if
// none is given, RunLocal starting them as the Kubernetes Indexed Job
// would, with JOB_COMPLETION_INDEX set, their results merged, the keys of
// missing agents deleted); Merge combines agents' results into one bench
// result whose percentiles are those of one histogram holding every
// sample, ReadResults finds agents' results in files or in `kubectl logs`
// output, and Manifests writes the Job that runs them on Kubernetes.
package agents
