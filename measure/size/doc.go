// Package size answers "what does etcd need for this Kubernetes cluster?":
// it turns a cluster's size (load/sizing's model) or a live cluster's
// profile into etcd load, plays that load (bench replay, through a
// one-cell experiment) on each candidate cluster in the lab, finds the
// knee by a search (doubling, then bisection) against the SLOs with their
// sources, measures the round-trip budget, and sets the answer beside
// etcd's hardware guide and OpenShift's sizing.
//
// A candidate bigger than this machine runs scaled down: its load and its
// members' CPU budgets (beyond a member's idle share, measured here) times
// the same factor, on the real disk and the real round trips
// (docs/sizing.md, "Method"). Run is safe to call from one goroutine at a
// time per Options; it starts only clusters of its own, each stopped
// before the next probe.
package size
