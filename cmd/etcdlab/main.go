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

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"google.golang.org/grpc/grpclog"
)

func main() {
	// gRPC logs to stderr by default; etcdlab reports errors itself.
	grpclog.SetLoggerV2(grpclog.NewLoggerV2(io.Discard, io.Discard, io.Discard))

	// First signal: stop gracefully (members stopped, files removed).
	// Second signal: exit at once; members die with us (parent-death signal).
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-sigs
		cancel()
		<-sigs
		fmt.Fprintln(os.Stderr, "etcdlab: second interrupt, exiting now")
		os.Exit(exitcode.Interrupted)
	}()
	code := (&app{stdout: os.Stdout, stderr: os.Stderr, maxProcs: runtime.GOMAXPROCS}).run(ctx, os.Args[1:])
	signal.Stop(sigs)
	cancel()
	os.Exit(code)
}
