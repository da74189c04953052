// Package agents splits a bench load over several processes and puts
// their results back together: RunLocal starts the agents on this machine
// as the Kubernetes Indexed Job would start them (the same command, with
// JOB_COMPLETION_INDEX set), Merge combines agents' results into one bench
// result whose percentiles are those of one histogram holding every
// sample, ReadResults finds agents' results in files or in `kubectl logs`
// output, and Manifests writes the Job that runs them on Kubernetes.
// The agents themselves are bench runs with bench.Config.Agent set.
package agents
