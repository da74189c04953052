package agents

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// agentCluster starts a one-member cluster and returns it with a client.
func agentCluster(t *testing.T) (*cluster.Cluster, *clientv3.Client) {
	t.Helper()
	c := clustertest.Start(t, cluster.Options{Members: 1})
	return c.Cluster, c.KV()
}

// agentConfig is a put load of 2 agents under prefix with a warm-up and
// 2 iterations.
func agentConfig(c *cluster.Cluster, prefix string) bench.Config {
	return bench.Config{
		Command: bench.CmdPut, Conn: c.Client(), Conns: []int{2}, Clients: []int{4}, Total: 400, Warmup: "20",
		RequestTimeout: 5 * time.Second, Iterations: 2, KeySize: 8, ValSize: 32, SessionOptions: bench.SessionOptions{Consistency: "l"}, Prefix: prefix,
		Agent: bench.Agent{Count: 2, Wait: 30 * time.Second},
	}
}

// runAgents runs every agent of cfg's load in this process, each with its
// own Index, and returns their results and errors by index.
func runAgents(ctx context.Context, cfg bench.Config) ([]*result.Document, []error) {
	docs, errs := make([]*result.Document, cfg.Agent.Count), make([]error, cfg.Agent.Count)
	var wg sync.WaitGroup
	for i := range cfg.Agent.Count {
		wg.Go(func() {
			c := cfg
			c.Agent.Index, c.Agent.Host = i, "here"
			docs[i], errs[i] = RunAgent(ctx, c)
		})
	}
	wg.Wait()
	return docs, errs
}

// TestRunAgents: two agents run as a library user runs them (RunAgent)
// pass the same barriers (warm-up, each run, the end), delete their own
// keys and the coordination's, and merge into the whole load.
func TestRunAgents(t *testing.T) {
	t.Parallel()
	c, cli := agentCluster(t)
	cfg := agentConfig(c, "/agents-lib/")
	docs, errs := runAgents(context.Background(), cfg)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("agent %d: %v", i, err)
		}
	}
	want := []string{"warmup-0", "run-0", "run-1", "end"}
	for i, d := range docs {
		var names []string
		for _, b := range d.Agent.Barriers {
			names = append(names, b.Name)
		}
		if strings.Join(names, ",") != strings.Join(want, ",") || d.Agent.Index != i || d.Agent.Prefix != SubPrefix("/agents-lib/", i) {
			t.Errorf("agent %d: barriers %q, agent %+v", i, names, d.Agent)
		}
	}
	merged, err := Merge(docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Runs) != 2 || merged.Runs[0].Requests != 400 || merged.Runs[0].Clients != 4 {
		t.Fatalf("merged runs %+v", merged.Runs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if r, err := cli.Get(ctx, "/agents-lib/", clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil || r.Count != 0 {
		t.Fatalf("keys left under the prefix: %v %v", r, err)
	}
}

// TestAgentStops: when one agent cannot start (its safety check refuses a
// prefix in use), it tells the others, and one waiting at its barrier
// stops with a LostError naming it.
func TestAgentStops(t *testing.T) {
	t.Parallel()
	c, cli := agentCluster(t)
	cfg := agentConfig(c, "/agents-stop/")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	put, err := cli.Put(ctx, SubPrefix("/agents-stop/", 1)+"someone", "else")
	if err != nil {
		t.Fatal(err)
	}
	// Agent 0 first, until it waits at its first barrier: an agent that
	// has left takes its keys (its stopped/ one too) with it.
	waiting := "/agents-stop/agents/barrier/warmup-0/0"
	wch := cli.Watch(ctx, waiting, clientv3.WithRev(put.Header.Revision+1))
	errs := make(chan error, 1)
	go func() {
		_, err := RunAgent(context.Background(), cfg)
		errs <- err
	}()
	for wr := range wch {
		if len(wr.Events) > 0 {
			break
		}
	}
	if ctx.Err() != nil {
		t.Fatal("agent 0 did not reach its first barrier")
	}
	one := cfg
	one.Agent.Index = 1
	if _, err := RunAgent(context.Background(), one); err == nil || errors.As(err, new(*LostError)) {
		t.Fatalf("agent 1: %v, want its refusal", err)
	}
	var lost *LostError
	if err := <-errs; !errors.As(err, &lost) || lost.Index != 1 || lost.Died {
		t.Fatalf("agent 0: %v, want agent 1 gone", err)
	}
}
