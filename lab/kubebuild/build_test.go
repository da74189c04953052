package kubebuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/buildcache"
)

// envBuild, set to 1, lets TestBuildAndCache build the control plane
// (about 8 minutes of 2 cores): CI's default run never does.
const envBuild = "ETCDLAB_BUILD_KUBE"

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in, want, tag, staging string
		ok                     bool
	}{
		{"1.34.2", "1.34.2", "v1.34.2", "v0.34.2", true},
		{"v1.37.2", "1.37.2", "v1.37.2", "v0.37.2", true},
		{"1.34", "1.34", "v1.34", "", true},
		{"3.5.35", "", "", "", false},
		{"v0.34.2", "", "", "", false},
		{"latest", "", "", "", false},
	} {
		v, ok := ParseVersion(tc.in)
		if ok != tc.ok || ok && (v.String() != tc.want || v.Tag() != tc.tag) || ok && v.Patch >= 0 && Staging(v) != tc.staging {
			t.Errorf("ParseVersion(%q) = %v (%s, %s), %v; want %s, %v", tc.in, v, v.Tag(), Staging(v), ok, tc.want, tc.ok)
		}
	}
	if _, ok := ParseVersion(Pinned); !ok {
		t.Errorf("Pinned %q does not parse", Pinned)
	}
}

// TestParseStaging: the staging modules are those replaced by a ./staging
// path, and only those.
func TestParseStaging(t *testing.T) {
	got, err := parseStaging([]byte(`{"Module":{"Path":"k8s.io/kubernetes"},"Replace":[
		{"Old":{"Path":"k8s.io/client-go"},"New":{"Path":"./staging/src/k8s.io/client-go"}},
		{"Old":{"Path":"k8s.io/api"},"New":{"Path":"./staging/src/k8s.io/api"}},
		{"Old":{"Path":"github.com/x/y"},"New":{"Path":"github.com/x/y","Version":"v1.0.0"}}]}`))
	if err != nil || strings.Join(got, " ") != "k8s.io/api k8s.io/client-go" {
		t.Errorf("got %v, %v", got, err)
	}
	if _, err := parseStaging([]byte(`{"Replace":[]}`)); err == nil {
		t.Error("a go.mod without staging replaces was accepted")
	}
	if f := ldflags(Version{Major: 1, Minor: 34, Patch: 2}, time.Date(2026, 11, 26, 5, 0, 0, 0, time.UTC)); !strings.Contains(f, "-X k8s.io/component-base/version.gitVersion=v1.34.2") || !strings.Contains(f, "version.gitMinor=34") || !strings.Contains(f, "buildDate=2026-11-26T05:00:00Z") {
		t.Errorf("ldflags = %s", f)
	}
}

// TestRefusals: what cannot be built is one line of invalid input, and
// nothing is left in the cache.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		b    Builder
		v    Version
		c    Component
		want string
	}{
		{Builder{Dir: dir}, Version{Major: 1, Minor: 34, Patch: 2}, "kubelet", "not a component the lab builds"},
		{Builder{Dir: dir}, Version{Major: 1, Minor: 20, Patch: 0}, APIServer, "1.30 and newer"},
		{Builder{Dir: dir, Go: "no-such-go-command"}, Version{Major: 1, Minor: 34, Patch: 2}, APIServer, "needs the Go toolchain"},
	} {
		_, err := tc.b.Binaries(context.Background(), tc.v, tc.c)
		if !invalid.Is(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %s: %v, want one line of invalid input with %q", tc.v, tc.c, err, tc.want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left in the cache: %v", left)
	}
	if _, ok := (Builder{Dir: dir}).Cached(Version{Major: 1, Minor: 34, Patch: 2}, APIServer); ok {
		t.Error("an empty cache holds kube-apiserver")
	}
}

// TestBuildWaitsForLock: while another process holds a version's lock, a
// build waits for it, until its context ends.
func TestBuildWaitsForLock(t *testing.T) {
	if _, err := os.Stat("/usr/local/go/bin/go"); err != nil {
		t.Skip("no Go toolchain")
	}
	dir := t.TempDir()
	f, err := os.OpenFile(filepath.Join(dir, "v1.34.2.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err = Builder{Dir: dir, Go: "/usr/local/go/bin/go"}.Binaries(ctx, Version{Major: 1, Minor: 34, Patch: 2}, APIServer)
	if err == nil || !strings.Contains(err.Error(), "waiting for another build") {
		t.Fatalf("got %v, want a wait for the lock that ends with the context", err)
	}
}

// TestBuildAndCache builds the pinned control plane into the shared cache
// (once per machine) when ETCDLAB_BUILD_KUBE=1, and finds it there again
// without a toolchain; it logs each binary's build time and size.
func TestBuildAndCache(t *testing.T) {
	if testing.Short() || os.Getenv(envBuild) != "1" {
		t.Skipf("builds Kubernetes %s (minutes of CPU): set %s=1", Pinned, envBuild)
	}
	v, _ := ParseVersion(Pinned)
	ctx := context.Background()
	cs := append(ControlPlane(), Kubemark)
	paths, err := Builder{Log: testWriter{t}}.Binaries(ctx, v, cs...)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if got, err := buildcache.VersionOf(ctx, paths[c], kubeVersionRE); err != nil || got != v.Tag() {
			t.Errorf("%s says %q (%v)", paths[c], got, err)
		}
	}
	again, err := Builder{Go: "no-such-go-command"}.Binaries(ctx, v, cs...)
	if err != nil || again[APIServer] != paths[APIServer] {
		t.Fatalf("the cached build: %v, %v; want %v", again, err, paths)
	}
	info, err := Builder{}.Info(v)
	if err != nil || len(info.Pinned) < 20 {
		t.Fatalf("build record: %+v, %v", info, err)
	}
	for _, c := range cs {
		bi := info.Binaries[string(c)]
		t.Logf("%s %s: built in %.0f s, %d MB", c, v, bi.Seconds, bi.Bytes>>20)
		if bi.Bytes == 0 {
			t.Errorf("no record of %s", c)
		}
	}
}

// testWriter sends the builder's lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
