package main

import (
	"errors"
	"io"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/measure/bench"
)

// selfBudget puts this whole process (every thread) under a load budget of
// cores CPUs (--load-cpus), for commands whose process sends load and runs
// nothing else that the budget must not hold: bench and check against a
// cluster etcdlab did not start (--endpoints), an agent. Close takes it
// back out and removes the group; after a kill -9 the next etcdlab sweeps
// the group. The error exits 2 when cgroups cannot be written here.
func selfBudget(cores float64, log io.Writer) (*bench.LoadBudget, error) {
	b, err := bench.NewLoadBudget(cores, log)
	if err == nil {
		if err = b.Add(0); err != nil {
			_ = b.Close()
		}
	}
	return b, budgetExit(err)
}

// budgetExit gives a *cluster.BudgetError (no permission to write
// cgroups) the usage exit code: this machine cannot do what was asked,
// and nothing was done.
func budgetExit(err error) error {
	var be *cluster.BudgetError
	if errors.As(err, &be) {
		return exitcode.With(err, exitcode.Usage)
	}
	return err
}
