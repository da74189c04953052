package kubecp

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/lab/kubebuild"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// binaries returns the pinned control plane from the build cache, or
// skips the test: it is never built here (see lab/kubebuild's
// TestBuildAndCache, or docs/kube.md, for the build).
func binaries(t *testing.T) Binaries {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a real Kubernetes control plane")
	}
	v, _ := kubebuild.ParseVersion(kubebuild.Pinned)
	paths, ok := kubebuild.Builder{}.Cached(v, kubebuild.ControlPlane()...)
	if !ok {
		t.Skipf("Kubernetes %s is not in the build cache (build it once: ETCDLAB_BUILD_KUBE=1 go test -run TestBuildAndCache ./lab/kubebuild/)", kubebuild.Pinned)
	}
	return BinariesOf(paths)
}

// TestStartRefusals: a control plane without etcd endpoints or binaries is
// refused before anything is written.
func TestStartRefusals(t *testing.T) {
	dir := t.TempDir()
	self, _ := os.Executable()
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"no endpoints", Options{Dir: dir}, "no etcd endpoints"},
		{"no binaries", Options{Dir: dir, Etcd: etcdclient.Config{Endpoints: []string{"http://127.0.0.1:1"}}}, "not a control plane binary"},
		{"a directory", Options{Dir: dir, Etcd: etcdclient.Config{Endpoints: []string{"http://127.0.0.1:1"}}, Binaries: Binaries{APIServer: dir, ControllerManager: self, Scheduler: self}}, "not a control plane binary"},
	} {
		if _, err := Start(context.Background(), tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
}

// TestObjectPath: namespaced kinds go under their namespace, or the
// default one; cluster-scoped ones do not; an unknown kind is refused.
func TestObjectPath(t *testing.T) {
	core := &metav1.APIResourceList{APIResources: []metav1.APIResource{
		{Name: "pods", Kind: "Pod", Namespaced: true}, {Name: "pods/status", Kind: "Pod", Namespaced: true},
		{Name: "namespaces", Kind: "Namespace"},
	}}
	for _, tc := range []struct {
		apiVersion, kind, ns, want string
	}{
		{"v1", "Pod", "", "/api/v1/namespaces/dflt/pods/x"},
		{"v1", "Pod", "mine", "/api/v1/namespaces/mine/pods/x"},
		{"v1", "Namespace", "", "/api/v1/namespaces/x"},
		{"batch/v1", "Pod", "", "/apis/batch/v1/namespaces/dflt/pods/x"},
		{"v1", "Job", "", ""},
	} {
		got, err := objectPath(core, tc.apiVersion, tc.kind, tc.ns, "dflt", "x")
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("%s %s in %q: %q, %v; want %q", tc.apiVersion, tc.kind, tc.ns, got, err, tc.want)
		}
	}
}

// logTails puts the end of each component's log into a failed test's.
func logTails(t *testing.T, cp *ControlPlane) {
	if !t.Failed() {
		return
	}
	for _, p := range cp.procs {
		t.Logf("last lines of %s:\n%s", p.LogFile(), strings.Join(p.Tail(30), "\n"))
	}
}

// TestCommands: the apiserver gets the cluster's endpoints, and its TLS
// files only when the cluster has them; the controller manager and the
// scheduler elect leaders and serve no port.
func TestCommands(t *testing.T) {
	c := &credentials{dir: "/run", ca: "/run/ca.crt"}
	for _, tc := range []struct {
		name      string
		etcd      etcdclient.Config
		want, not []string
	}{
		{"plain", etcdclient.Config{Endpoints: []string{"http://127.0.0.1:1", "http://127.0.0.1:2"}},
			[]string{"--etcd-servers=http://127.0.0.1:1,http://127.0.0.1:2", "--secure-port=6443"}, []string{"--etcd-cafile", "--etcd-certfile"}},
		{"tls", etcdclient.Config{Endpoints: []string{"https://127.0.0.1:1"}, CACert: "/c/ca", Cert: "/c/crt", Key: "/c/key"},
			[]string{"--etcd-servers=https://127.0.0.1:1", "--etcd-cafile=/c/ca", "--etcd-certfile=/c/crt", "--etcd-keyfile=/c/key"}, nil},
	} {
		cmds := commands(Options{Etcd: tc.etcd}, c, []int{6443})
		if len(cmds) != 3 || cmds[0].name != apiserverName {
			t.Fatalf("%s: %+v", tc.name, cmds)
		}
		api := strings.Join(cmds[0].args, " ")
		for _, w := range tc.want {
			if !strings.Contains(api, w) {
				t.Errorf("%s: apiserver lacks %s: %s", tc.name, w, api)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(api, n) {
				t.Errorf("%s: apiserver has %s: %s", tc.name, n, api)
			}
		}
		for _, cmd := range cmds[1:] {
			args := strings.Join(cmd.args, " ")
			if !strings.Contains(args, "--leader-elect=true") || !strings.Contains(args, "--secure-port=0") {
				t.Errorf("%s: %s", cmd.name, args)
			}
		}
	}
}

// TestCommandsStacked: several apiservers take one member each, in turn,
// each on its own port, named apart; the controllers follow them.
func TestCommandsStacked(t *testing.T) {
	c := &credentials{dir: "/run", ca: "/run/ca.crt"}
	eps := []string{"http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3"}
	cmds := commands(Options{Etcd: etcdclient.Config{Endpoints: eps}}, c, []int{7001, 7002, 7003, 7004})
	if len(cmds) != 6 || cmds[4].name != kcmName || cmds[5].name != schedulerName {
		t.Fatalf("%+v", cmds)
	}
	for i, want := range []string{eps[0], eps[1], eps[2], eps[0]} {
		args := strings.Join(cmds[i].args, " ")
		if cmds[i].name != fmt.Sprintf("kube-apiserver-%d", i) ||
			!strings.Contains(args, "--etcd-servers="+want+" ") || !strings.Contains(args, fmt.Sprintf("--secure-port=%d", 7001+i)) {
			t.Errorf("apiserver %d: %s %s", i, cmds[i].name, args)
		}
	}
}
