package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/result"
)

func TestDiskCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out, stderr := runCLI(context.Background(), "disk", "--dir", dir, "--bs", "4096", "--size", "256k", "-o", "json")
	if code != 0 && code != 3 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := result.Read(strings.NewReader(out))
	if err != nil || doc.Disk.Jobs[0].Ops != 64 {
		t.Fatalf("json: %v %+v", err, doc)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"disk", "--dir", dir + "/missing"}, 2, "does not exist"},
		{[]string{"disk", "--dir", dir, "--bs", "0"}, 2, "--bs must be positive"},
		{[]string{"disk", "--dir", dir, "--bs", "8192", "--size", "4k"}, 2, "at least --bs"},
		{[]string{"disk", "--dir", dir, "--size", "lots"}, 2, "--size"},
		{[]string{"disk", "--dir", dir, "--suite", "half"}, 2, "--suite"},
	} {
		code, _, stderr := runCLI(context.Background(), tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: %d %q", tt.args, code, stderr)
		}
		oneLine(t, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

// TestDiskFailExitCode writes 32 MiB blocks: no disk syncs that in 10 ms,
// so the verdict is FAIL and the exit code 3.
func TestDiskFailExitCode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if fs := envinfo.Filesystem(dir); fs == "tmpfs" {
		t.Skip("tmpfs syncs are free")
	}
	code, out, stderr := runCLI(context.Background(), "disk", "--dir", dir, "--bs", "33554432", "--size", "96m")
	if code != 3 || !strings.Contains(out, "FAIL") || !strings.Contains(stderr, "FAILS") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}
