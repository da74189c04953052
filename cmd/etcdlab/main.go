// Command etcdlab answers "is my etcd fast enough, why is it slow, and what
// happens if I change it?" on a real etcd. This package only parses the
// command line; the work is done by the library packages.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/etcdlab/etcdlab/emulate/syscalldelay"
	"github.com/etcdlab/etcdlab/internal/exitcode"
	"google.golang.org/grpc/grpclog"
)

func main() {
	// A member whose syncs are delayed through seccomp starts as this
	// program, the shim: it installs the filter and execve's the member.
	if code, shim := syscalldelay.ExecIfShim(); shim {
		os.Exit(code)
	}
	// gRPC logs to stderr by default; etcdlab reports errors itself.
	grpclog.SetLoggerV2(grpclog.NewLoggerV2(io.Discard, io.Discard, io.Discard))

	// First signal: stop gracefully (members stopped, files removed).
	// Second signal: exit at once; members die with us (parent-death signal).
	agent := len(os.Args) > 1 && os.Args[1] == "agent"
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-sigs
		cancel()
		for s := range sigs {
			// An agent's parent-death SIGINT comes once per thread of the
			// dying parent (each reparenting): only another kind of signal
			// is a second request. Nobody's Ctrl-C reaches an agent.
			if agent && s == os.Interrupt {
				continue
			}
			fmt.Fprintln(os.Stderr, "etcdlab: second interrupt, exiting now")
			os.Exit(exitcode.Interrupted)
		}
	}()
	if agent {
		// An agent's parent (bench --agents) may die and close the pipes
		// it reads; the agent must still stop and delete its keys, so a
		// write to them fails instead of killing it.
		signal.Ignore(syscall.SIGPIPE)
	}
	code := (&app{stdout: os.Stdout, stderr: os.Stderr, maxProcs: runtime.GOMAXPROCS}).run(ctx, os.Args[1:])
	signal.Stop(sigs)
	cancel()
	os.Exit(code)
}
