package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/lab/child"
	"github.com/etcdlab/etcdlab/measure/disk"
	"github.com/etcdlab/etcdlab/result"
)

// diskChildGrace is how long the disk job's child gets to remove its test
// file once interrupted before it is killed.
const diskChildGrace = 10 * time.Second

// runDiskChild runs the disk job as `etcdlab disk ... -o json` in a child
// process and reads its result. It is for a directory on a slow file
// system this process serves: I/O on a FUSE mount from the process that
// serves it can leave that process unkillable. start starts the child in
// the mount namespace where the slow file system covers the directory
// (cluster.Cluster.StartChild: anywhere else the directory holds the real
// files). The child dies with this process (parent-death signal);
// cancelling ctx interrupts it, and it removes its test file as `etcdlab
// disk` does. runDiskChild returns once it has been reaped.
func runDiskChild(ctx context.Context, exe string, o disk.Options, start func(child.Spec) (*child.Process, error)) (*result.Document, error) {
	args := []string{"disk", "--dir", o.Dir, "-o", "json"}
	if o.Profile != "" {
		args = append(args, "--profile", o.Profile)
	}
	if o.BlockSize > 0 {
		args = append(args, "--bs", strconv.Itoa(o.BlockSize))
	}
	if o.Size > 0 {
		args = append(args, "--size", strconv.FormatInt(o.Size, 10))
	}
	if o.Runtime > 0 {
		args = append(args, "--runtime", o.Runtime.String())
	}
	if o.Sync != "" {
		args = append(args, "--sync", o.Sync)
	}
	if o.Suite {
		args = append(args, "--suite", "full")
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	p, err := start(child.Spec{Name: "the disk job", Cmd: cmd})
	if err != nil {
		return nil, fmt.Errorf("run %s disk: %w", exe, err)
	}
	stopped := false
	select {
	case <-p.Done():
	case <-ctx.Done():
		p.Stop(syscall.SIGINT, diskChildGrace)
		stopped = true
	}
	err = p.Wait()
	if err == nil && stopped {
		err = ctx.Err() // it ended well, but not because it was done
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return nil, fmt.Errorf("run %s disk: %w", exe, err)
	}
	doc, rerr := result.Read(&stdout)
	if rerr != nil || doc.Disk == nil {
		return nil, fmt.Errorf("%s disk (the disk job on a slow file system runs in a child etcdlab): %s", exe, lastLine(stderr.String(), err))
	}
	// Exit code 3 is a FAIL verdict, which the result says; anything
	// else after a result is an interruption.
	if ee != nil && ee.ExitCode() != 3 {
		return doc, errors.New(lastLine(stderr.String(), err))
	}
	return doc, nil
}

// lastLine is the last line a child wrote on stderr, or err.
func lastLine(stderr string, err error) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return strings.TrimPrefix(l, "etcdlab: ")
	}
	if err != nil {
		return err.Error()
	}
	return "no result"
}
