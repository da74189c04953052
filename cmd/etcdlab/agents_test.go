package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/measure/agents"
	"github.com/etcdlab/etcdlab/result"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// decodeManifests decodes agent manifests' YAML strictly into
// Kubernetes' own types: an unknown or misspelt field fails.
func decodeManifests(t *testing.T, y string) (*corev1.ServiceAccount, *corev1.ConfigMap, *batchv1.Job) {
	t.Helper()
	var sa corev1.ServiceAccount
	var cm corev1.ConfigMap
	var job batchv1.Job
	docs := strings.Split(y, "\n---\n")
	if len(docs) != 3 {
		t.Fatalf("%d YAML documents, want 3", len(docs))
	}
	for i, into := range []any{&sa, &cm, &job} {
		if err := yaml.UnmarshalStrict([]byte(docs[i]), into); err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
	}
	if sa.Kind != "ServiceAccount" || cm.Kind != "ConfigMap" || job.Kind != "Job" || job.APIVersion != "batch/v1" {
		t.Fatalf("kinds %s %s %s/%s", sa.Kind, cm.Kind, job.APIVersion, job.Kind)
	}
	return &sa, &cm, &job
}

// TestAgentManifests: the committed Job (deploy/kubernetes) is what the
// command writes for the documented command line, and it decodes
// strictly into k8s.io/api's types as an Indexed Job whose pods run
// `etcdlab agent` on the ConfigMap's command line, which bench accepts.
func TestAgentManifests(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(context.Background(), "agent", "manifests", "--agents", "4", "--image", "registry.example.com/etcdlab:latest", "--tls-secret", "etcd-client", "--",
		"--endpoints=https://etcd-0.etcd:2379,https://etcd-1.etcd:2379,https://etcd-2.etcd:2379", "--conns=8", "--clients=400", "put", "--key-size=8", "--val-size=256", "--rate=8000", "--duration=60s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	committed, err := os.ReadFile("../../deploy/kubernetes/etcdlab-agents.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(committed) {
		t.Errorf("deploy/kubernetes/etcdlab-agents.yaml is not what `etcdlab agent manifests` writes for the command in docs/agents.md; regenerate it:\n%s", out)
	}
	sa, cm, job := decodeManifests(t, out)
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 4 || *s.Parallelism != 4 || *s.BackoffLimit != 0 {
		t.Errorf("job spec %+v", s)
	}
	pod := s.Template.Spec
	if pod.ServiceAccountName != sa.Name || *sa.AutomountServiceAccountToken || pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("pod spec %+v", pod)
	}
	c := pod.Containers[0]
	if strings.Join(c.Args, " ") != "agent --args-file "+agents.ArgsDir+"/"+agents.ArgsFile || c.Image != "registry.example.com/etcdlab:latest" {
		t.Errorf("container %+v", c)
	}
	mounted := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounted[m.Name] = m.MountPath
	}
	for _, v := range pod.Volumes {
		switch {
		case v.ConfigMap != nil && v.ConfigMap.Name != cm.Name, v.Secret != nil && v.Secret.SecretName != "etcd-client", mounted[v.Name] == "":
			t.Errorf("volume %+v not the ConfigMap or Secret, or not mounted", v)
		}
	}
	args, err := agents.ReadArgsFile(writeTemp(t, cm.Data[agents.ArgsFile]))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--agents=4", "--prefix=/etcdlab/bench/etcdlab-bench/", "--cacert=" + agents.TLSDir + "/ca.crt", "put"} {
		if !strings.Contains(strings.Join(args, " "), want) {
			t.Errorf("command line %q lacks %s", args, want)
		}
	}
	// Bad input: one line, exit 2.
	for _, bad := range [][]string{
		{"agent", "manifests", "--agents", "1", "--image", "x", "--", "--endpoints=http://x:2379", "put"},
		{"agent", "manifests", "--agents", "2", "--", "--endpoints=http://x:2379", "put"},
		{"agent", "manifests", "--agents", "2", "--image", "x", "--", "put"},
		{"agent", "manifests", "--agents", "2", "--image", "x", "--", "--endpoints=http://x:2379", "--clients=1", "put"},
		{"agent", "manifests", "--agents", "2", "--image", "x", "--", "--endpoints=http://x:2379", "--agents=3", "put"},
		{"agent", "manifests", "--agents", "2", "--image", "x", "--", "--endpoints=http://x:2379", "--clients=2", "--conns=2", "watch-latency"},
	} {
		code, out, errOut := runCLI(context.Background(), bad...)
		if code != 2 || out != "" {
			t.Errorf("%q: exit %d, stdout %q", bad, code, out)
		}
		oneLine(t, errOut)
	}
}

func writeTemp(t *testing.T, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAgentsAsTheJobRunsThem is the Job end to end, without Kubernetes:
// the manifests' ConfigMap becomes the args file, three `etcdlab agent`
// processes run it with JOB_COMPLETION_INDEX set as the Indexed Job sets
// it, their output (logs and result lines together, as kubectl logs shows
// them) goes to etcdlab merge, and the merged result holds every request,
// with percentiles equal to one histogram of every agent's samples; no key
// is left behind.
func TestAgentsAsTheJobRunsThem(t *testing.T) {
	t.Parallel()
	c := startCluster(t, cluster.Options{Members: 3})
	code, y, errOut := runCLI(context.Background(), "agent", "manifests", "--agents", "3", "--image", "etcdlab:test", "--name", "e2e", "--",
		"--endpoints="+strings.Join(c.Endpoints(), ","), "--conns=3", "--clients=6", "put", "--total=3000", "--val-size=64")
	if code != 0 {
		t.Fatalf("manifests: exit %d: %s", code, errOut)
	}
	_, cm, job := decodeManifests(t, y)
	argsFile := writeTemp(t, cm.Data[agents.ArgsFile])
	n := int(*job.Spec.Completions)
	cmds := make([]*exec.Cmd, n)
	logs := make([]bytes.Buffer, n)
	for i := range n {
		ctr := job.Spec.Template.Spec.Containers[0]
		args := append([]string(nil), ctr.Args...)
		args[len(args)-1] = argsFile // the ConfigMap's mount
		cmds[i] = exec.Command(binary, args...)
		cmds[i].Env = append(os.Environ(), agents.IndexEnv+"="+strconv.Itoa(i))
		cmds[i].Stdout, cmds[i].Stderr = &logs[i], &logs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("agent %d: %v\n%s", i, err, logs[i].String())
		}
	}
	var all bytes.Buffer
	hand := hdrhistogram.New(1, 60_000_000, 3)
	var sum int64
	for i := range logs {
		docs, err := agents.ReadResults(bytes.NewReader(logs[i].Bytes()))
		if err != nil || len(docs) != 1 || docs[0].Agent.Index != i {
			t.Fatalf("agent %d's log: %v %v\n%s", i, err, docs, logs[i].String())
		}
		r := docs[0].Runs[0]
		sum += r.Requests
		h, err := hdrhistogram.Decode([]byte(r.Histogram))
		if err != nil {
			t.Fatal(err)
		}
		hand.Merge(h)
		all.Write(logs[i].Bytes())
	}
	code, out, errOut := runCLI(context.Background(), "merge", "-o", "json", writeTemp(t, all.String()))
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	doc, err := result.Read(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	r := doc.Runs[0]
	if doc.Agents == nil || doc.Agents.Count != 3 || len(doc.Agents.Merged) != 3 || len(doc.Agents.Missing) != 0 {
		t.Fatalf("agents %+v", doc.Agents)
	}
	if r.Requests != 3000 || sum != 3000 || r.Conns != 3 || r.Clients != 6 || r.ErrorCount() != 0 {
		t.Errorf("merged run: %d requests (agents %d), %d conns, %d clients, errors %v", r.Requests, sum, r.Conns, r.Clients, r.Errors)
	}
	for _, p := range []struct {
		got  float64
		perc float64
	}{{r.Latency.P50, 50}, {r.Latency.P90, 90}, {r.Latency.P99, 99}, {r.Latency.P999, 99.9}} {
		want := math.Min(math.Max(float64(hand.ValueAtPercentile(p.perc))/1e6, r.Latency.Min), r.Latency.Max)
		if p.got != want {
			t.Errorf("p%g = %g, one histogram of every sample says %g", p.perc, p.got, want)
		}
	}
	if k := c.Count("/etcdlab/bench/e2e/"); k != 0 {
		t.Errorf("%d keys left under the agents' prefix", k)
	}
}

// TestBenchAgentKilled: bench --agents 3 on this machine, agent 1 killed
// with SIGKILL mid-run. The merged result names it missing (and says it
// was killed), the command fails after writing the result, the others'
// share is merged, and the killed agent's keys are deleted too.
func TestBenchAgentKilled(t *testing.T) {
	t.Parallel()
	c := startCluster(t, cluster.Options{Members: 1})
	prefix := "/etcdlab/test/killed/"
	cmd := exec.Command(binary, "bench", "--endpoints="+strings.Join(c.Endpoints(), ","), "--agents=3", "--conns=3", "--clients=6", "--prefix="+prefix,
		"--agent-wait=20s", "put", "--rate=300", "--duration=6s", "-o", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	victim := 0
	clustertest.Eventually(20*time.Second, func() bool {
		victim = agentPID(cmd.Process.Pid, 1)
		return victim != 0
	})
	if victim == 0 {
		t.Fatalf("agent 1 never started: %s", stderr.String())
	}
	// Kill it once its keys are being written.
	clustertest.Eventually(20*time.Second, func() bool { return c.Count(prefix+"agent-1/") > 0 })
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "MISSING: agent 1 (killed by signal 9") {
		t.Errorf("stderr does not name the killed agent:\n%s", stderr.String())
	}
	doc, err := result.Read(&stdout)
	if err != nil {
		t.Fatalf("no merged result: %v\n%s", err, stderr.String())
	}
	a := doc.Agents
	if a == nil || a.Count != 3 || fmt.Sprint(a.Merged) != "[0 2]" || len(a.Missing) != 1 || a.Missing[0].Index != 1 {
		t.Fatalf("agents %+v", a)
	}
	var shares int64
	for _, s := range a.PerAgent {
		shares += s.Requests
	}
	if r := doc.Runs[0]; r.Requests != shares || r.Requests < 500 || r.Clients != 4 {
		t.Errorf("merged run: %d requests from %d clients; the merged agents sent %d", r.Requests, r.Clients, shares)
	}
	if k := c.Count(prefix); k != 0 {
		t.Errorf("%d keys left under %s", k, prefix)
	}
}

// agentPID finds agent index's process among parent's children.
func agentPID(parent, index int) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := proc.ReadStat(pid)
		if err != nil || st.PPID != parent {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if bytes.Contains(env, []byte("\x00"+agents.IndexEnv+"="+strconv.Itoa(index)+"\x00")) {
			return pid
		}
	}
	return 0
}

// TestBenchAgentsWallClock: with --agent-start-at the agents start their
// run at that time by their clocks (here one clock), not at a barrier,
// and the result says so.
func TestBenchAgentsWallClock(t *testing.T) {
	t.Parallel()
	c := startCluster(t, cluster.Options{Members: 1})
	at := time.Now().Add(4 * time.Second).UTC()
	code, out, errOut := runBinary(t, "bench", "--endpoints="+strings.Join(c.Endpoints(), ","), "--agents=2", "--conns=2", "--clients=4",
		"--agent-start-at="+at.Format(time.RFC3339Nano), "put", "--total=400", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	doc, err := result.Read(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	a := doc.Agents
	if a == nil || a.StartMode != "wall-clock" || len(a.Merged) != 2 || doc.Runs[0].Requests != 400 {
		t.Fatalf("agents %+v, %d requests", a, doc.Runs[0].Requests)
	}
	for _, s := range a.PerAgent {
		if d := s.Start.Sub(at); d < 0 || d > 500*time.Millisecond {
			t.Errorf("agent %d started %v after the start time", s.Index, d)
		}
	}
	// A start time already past is refused by the agents.
	code, _, errOut = runBinary(t, "bench", "--endpoints="+strings.Join(c.Endpoints(), ","), "--agents=2", "--conns=2", "--clients=4",
		"--agent-start-at="+time.Now().Add(-time.Minute).Format(time.RFC3339), "put", "--total=400", "-o", "json")
	if code != 1 || !strings.Contains(errOut, "passed") {
		t.Errorf("past start: exit %d: %s", code, errOut)
	}
}

// runBinary runs the built etcdlab (agents need a binary to start).
func runBinary(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var o, e bytes.Buffer
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), o.String(), e.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, o.String(), e.String()
}

// TestBenchAgentsParentKilled: SIGKILL of bench --agents mid-run leaves
// nothing: the kernel interrupts the agents (parent-death signal), which
// stop, delete their keys and exit.
func TestBenchAgentsParentKilled(t *testing.T) {
	t.Parallel()
	c := startCluster(t, cluster.Options{Members: 1})
	prefix := "/etcdlab/test/parent-killed/"
	cmd := exec.Command(binary, "bench", "--endpoints="+strings.Join(c.Endpoints(), ","), "--agents=2", "--conns=2", "--clients=4", "--prefix="+prefix,
		"put", "--rate=200", "--duration=60s", "-o", "json")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	clustertest.WaitFor(t, 20*time.Second, "both agents' first keys", func() bool {
		return c.Count(prefix+"agent-1/") > 0 && c.Count(prefix+"agent-0/") > 0
	})
	agentsOf := func() []int {
		var pids []int
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			cl, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err == nil && bytes.Contains(cl, []byte("--prefix="+prefix)) && bytes.HasPrefix(bytes.SplitN(cl, []byte{0}, 3)[1], []byte("agent")) {
				pid, _ := strconv.Atoi(e.Name())
				pids = append(pids, pid)
			}
		}
		return pids
	}
	if n := len(agentsOf()); n != 2 {
		t.Fatalf("%d agent processes, want 2", n)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if !clustertest.Eventually(20*time.Second, func() bool { return len(agentsOf()) == 0 && c.Count(prefix) == 0 }) {
		t.Fatalf("20 s after bench was killed: agents %v still running, %d keys under %s", agentsOf(), c.Count(prefix), prefix)
	}
}

// TestAgentListenMetrics: an agent serves its own metrics, with its index
// and the agents' count, while it waits for the others and while it runs.
func TestAgentListenMetrics(t *testing.T) {
	t.Parallel()
	c := startCluster(t, cluster.Options{Members: 1})
	line := []string{"--endpoints=" + strings.Join(c.Endpoints(), ","), "--agents=2", "--conns=2", "--clients=2", "--prefix=/etcdlab/test/agent-metrics/", "put", "--total=200"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	one := runBackground(ctx, append([]string{"agent", "--index", "1", "--"}, append(line, "--listen-metrics=127.0.0.1:0")...)...)
	mfs, err := scrapeText(one.metricsURL(t))
	if err != nil {
		t.Fatal(err)
	}
	if i, ok := value(mfs, "etcdlab_agent_index", nil); !ok || i != 1 {
		t.Errorf("etcdlab_agent_index %g (%v), want 1", i, ok)
	}
	if n, ok := value(mfs, "etcdlab_agent_count", nil); !ok || n != 2 {
		t.Errorf("etcdlab_agent_count %g (%v), want 2", n, ok)
	}
	zero := runBackground(ctx, append([]string{"agent", "--index", "0", "--"}, line...)...)
	if code := zero.wait(t, time.Minute); code != 0 {
		t.Errorf("agent 0: exit %d: %s", code, zero.stderr.String())
	}
	if code := one.wait(t, 90*time.Second); code != 0 { // it waited for agent 0 first
		t.Errorf("agent 1: exit %d: %s", code, one.stderr.String())
	}
	for i, b := range []*background{zero, one} {
		docs, err := agents.ReadResults(strings.NewReader(b.stdout.String()))
		if err != nil || len(docs) != 1 || docs[0].Runs[0].Requests != 100 {
			t.Errorf("agent %d's result: %v", i, err)
		}
	}
}

// TestBenchAgentsLocalCluster: without --endpoints, bench --agents starts
// a local cluster for its agents, says so in the merged result, and
// removes it afterwards.
func TestBenchAgentsLocalCluster(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var o, e bytes.Buffer
	cmd := exec.Command(binary, "bench", "--agents=2", "--members=1", "--conns=2", "--clients=4", "put", "--total=200", "-o", "json")
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, e.String())
	}
	doc, err := result.Read(&o)
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Environment.LocalCluster || doc.Runs[0].Requests != 200 || len(doc.Agents.Merged) != 2 {
		t.Errorf("local %v, %d requests, agents %+v", doc.Environment.LocalCluster, doc.Runs[0].Requests, doc.Agents)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".etcdlab", "data-*")); len(left) > 0 {
		t.Errorf("the local cluster was left behind: %v", left)
	}
}
