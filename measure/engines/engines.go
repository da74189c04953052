// Package engines is the table of bench's engines (bench.Engine): bench's
// own and those of packages that import measure/bench and so cannot be
// imported by it (the real control plane, package measure/kubereal; the
// profile's replay, package measure/replay).
// There is no global registry: callers that run bench command lines (the
// CLI, the experiment runner) set bench.Config.Engines to All(). A new
// engine is one file (its type, in bench or in a package of its own) and
// one line here (or in bench.Builtin, for an engine of bench's).
package engines

import (
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/kubereal"
	"github.com/etcdlab/etcdlab/measure/replay"
)

// All returns every engine, in the order bench.Run tries them (the first
// whose For accepts the configuration sends the load). A fresh slice each
// call: the caller may append to it.
func All() []bench.Engine {
	return append(bench.Builtin(), kubereal.Engine{}, replay.Engine{})
}
