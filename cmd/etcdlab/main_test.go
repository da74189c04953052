package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/lab/member"
)

// binary is the etcdlab executable built once for the tests that must run
// it as a separate process (SIGKILL, Ctrl-C, cluster down).
var binary string

func TestMain(m *testing.M) {
	if code, ok := member.RunIfChild(); ok {
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "etcdlab-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "etcdlab")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build etcdlab: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runCLI runs one command line in-process.
func runCLI(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(ctx, args, &o, &e)
	return code, o.String(), e.String()
}

// oneLine fails unless s is exactly one line.
func oneLine(t *testing.T, s string) {
	t.Helper()
	if strings.Count(strings.TrimRight(s, "\n"), "\n") != 0 || strings.TrimSpace(s) == "" {
		t.Errorf("want one line of error, got %q", s)
	}
}
