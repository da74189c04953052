package member

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/emulate/syscalldelay"
	"go.etcd.io/etcd/server/v3/embed"
)

// Environment variables through which a cluster hands a member process its
// configuration and the pipe whose closing means "your parent is gone".
const (
	EnvConfig   = "ETCDLAB_MEMBER_CONFIG"
	EnvParentFD = "ETCDLAB_PARENT_FD"
)

// stopTimeout bounds a graceful stop; past it the member exits anyway (the
// WAL makes that safe).
const stopTimeout = 5 * time.Second

// TeardownSignal is what a cluster sends a member when the whole cluster is
// being stopped: the member stops at once, without handing leadership to a
// peer that is stopping too. SIGTERM (or cancelling Run's context) is the
// graceful stop of one member, with leadership transfer, as etcd does it.
const TeardownSignal = syscall.SIGUSR1

// NotifyTeardown returns a channel closed when the process receives
// TeardownSignal, and a function that stops listening. The process's main
// calls it and hands the channel to Run.
func NotifyTeardown() (<-chan struct{}, func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, TeardownSignal)
	out := make(chan struct{})
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			close(out)
		case <-done:
		}
	}()
	return out, func() { signal.Stop(sig); close(done) }
}

// Run starts the etcd member described by the etcd configuration file at
// path and serves until ctx is cancelled (graceful stop), teardown is closed
// or the parent process goes away (immediate stop), or etcd fails. It is
// meant to be the whole life of a member process.
func Run(ctx context.Context, path string, teardown <-chan struct{}) error {
	cfg, err := embed.ConfigFromFile(path)
	if err != nil {
		return fmt.Errorf("read member config %s: %w", path, err)
	}
	parentGone := watchParent()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("start etcd member %s: %w", cfg.Name, err)
	}
	var runErr error
	hard := true
	select {
	case <-ctx.Done():
		hard = false
	case <-teardown:
	case <-parentGone:
		runErr = errors.New("parent process went away")
	case err := <-e.Err():
		runErr = fmt.Errorf("etcd member %s failed: %w", cfg.Name, err)
	}
	closed := make(chan struct{})
	go func() {
		if hard {
			// Stopping the raft loop first cancels the server's context,
			// so Close skips the leadership transfer.
			e.Server.HardStop()
		}
		e.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(stopTimeout):
		return errors.New("graceful stop timed out")
	}
	return runErr
}

// RunIfChild runs a member when the process was started as one by a cluster
// (the environment names a member configuration) and reports the exit code
// the process should end with; first, a shim started by
// emulate/syscalldelay execve's its command. Test binaries use it through RunTests, so
// that clusters started by tests can re-execute the test binary.
func RunIfChild() (code int, ok bool) {
	// A member whose syncs are delayed through seccomp starts as the
	// shim, which installs the filter and execve's the member.
	if code, shim := syscalldelay.ExecIfShim(); shim {
		return code, true
	}
	path := os.Getenv(EnvConfig)
	if path == "" {
		return 0, false
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	teardown, stopTeardown := NotifyTeardown()
	defer stopTeardown()
	if err := Run(ctx, path, teardown); err != nil {
		fmt.Fprintln(os.Stderr, "etcdlab member:", err)
		return 1, true
	}
	return 0, true
}

// watchParent returns a channel closed when the pipe inherited from the
// parent reaches EOF, which happens when the parent exits however it dies.
// Without the pipe (a member started by hand) the channel never closes.
func watchParent() <-chan struct{} {
	gone := make(chan struct{})
	fd, err := strconv.Atoi(os.Getenv(EnvParentFD))
	if err != nil || fd < 3 {
		return gone
	}
	f := os.NewFile(uintptr(fd), "parent-pipe")
	go func() {
		_, _ = io.Copy(io.Discard, f)
		close(gone)
	}()
	return gone
}

// RunTests is TestMain for packages whose tests start clusters: it runs a
// member when the process is one, and the tests otherwise, and returns the
// exit code:
//
//	func TestMain(m *testing.M) { os.Exit(member.RunTests(m)) }
func RunTests(m interface{ Run() int }) int {
	if code, ok := RunIfChild(); ok {
		return code
	}
	return m.Run()
}
