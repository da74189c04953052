package agents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/lab/child"
	"github.com/etcdlab/etcdlab/result"
)

// BudgetedEnv is set (to 1) in the environment of agents RunLocal puts
// into a load budget's group (LocalOptions.Place): an agent with a load
// budget and without it makes a budget of its own.
const BudgetedEnv = "ETCDLAB_LOAD_BUDGETED"

// IndexEnv is the variable a Kubernetes Indexed Job sets in each pod to
// its completion index: the agent's index.
const IndexEnv = "JOB_COMPLETION_INDEX"

// LocalOptions are the agents RunLocal starts on this machine.
type LocalOptions struct {
	// Exe is the etcdlab binary the agents run (default: this
	// process's).
	Exe string
	// Count is how many agents; Args is bench's command line (after
	// "bench", with --agents Count), given to every agent as the Job's
	// ConfigMap gives it: `etcdlab agent -- ARGS`.
	Count int
	Args  []string
	// AgentArgs, if set, adds arguments of agent i's own (its metrics
	// address).
	AgentArgs func(i int) []string
	// Stderr receives the agents' own stderr, each line prefixed with
	// "agent I: ".
	Stderr io.Writer
	// Grace is how long agents get to stop on their own (Ctrl-C: they
	// delete their keys) before they are killed; default 30 s.
	Grace time.Duration
	// Place, if set, is called with each agent's pid right after it
	// starts: a load budget's group (bench.LoadBudget.Add). An agent it
	// fails for is killed, and RunLocal returns the error.
	Place func(pid int) error
}

// LocalResult is what the agents left: the results they wrote, and why
// the others wrote none.
type LocalResult struct {
	Docs    []*result.Document
	Missing map[int]string
	// Failed says how agents that wrote a result but failed ended (what
	// they measured is in Docs; their own lines said why).
	Failed map[int]string
}

// RunLocal runs Count agents of the load as separate processes, exactly
// as the Indexed Job runs its pods (the same command, JOB_COMPLETION_INDEX
// set, the result on stdout as in the pods' logs), waits for all of them
// and reads their results. Cancelling ctx interrupts them (SIGINT: they
// stop and delete their keys), and kills them after Grace. Should this
// process die (even by SIGKILL), the kernel interrupts them the same way
// (parent-death signal), so they still delete their keys and exit.
// An agent that failed is in Missing, or in Failed when it wrote a
// result, with how it ended.
func RunLocal(ctx context.Context, o LocalOptions) (LocalResult, error) {
	if o.Grace <= 0 {
		o.Grace = 30 * time.Second
	}
	if o.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return LocalResult{}, fmt.Errorf("find etcdlab's binary for the agents: %w", err)
		}
		o.Exe = exe
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Agents are forked from one thread that lives until every agent has
	// been reaped, so their parent-death signal means this process died.
	sp := child.NewSpawner()
	defer sp.Close()
	stderr := &lockedWriter{w: o.Stderr}
	var wg sync.WaitGroup
	ends := make([]string, o.Count)
	outs := make([]bytes.Buffer, o.Count)
	for i := range o.Count {
		args := append([]string{"agent", "--"}, o.Args...)
		if o.AgentArgs != nil {
			args = append(args, o.AgentArgs(i)...)
		}
		cmd := exec.Command(o.Exe, args...)
		cmd.Env = append(os.Environ(), IndexEnv+"="+strconv.Itoa(i))
		if o.Place != nil {
			cmd.Env = append(cmd.Env, BudgetedEnv+"=1")
		}
		cmd.Stdout = &outs[i]
		cmd.Stderr = &prefixWriter{w: stderr, prefix: fmt.Sprintf("agent %d: ", i)}
		// Their own process group (child.Spawner.Start): a terminal's
		// Ctrl-C reaches only this process, which passes one interrupt on
		// (a second would make them exit without deleting their keys).
		p, err := sp.Start(child.Spec{Name: fmt.Sprintf("agent %d", i), Cmd: cmd, DeathSignal: syscall.SIGINT})
		if err != nil {
			cancel() // the others would wait for this one
			wg.Wait()
			return LocalResult{}, fmt.Errorf("start the agents: %w", err)
		}
		if o.Place != nil {
			// After the start, not before: the agent's first moments (the
			// runtime's start, parsing its command line) run outside the
			// budget, its load never does. Cgroup v2 could start it inside
			// (SysProcAttr.UseCgroupFD), v1 cannot, and one way serves both.
			if err := o.Place(p.ID().PID); err != nil {
				_ = p.Kill()
				cancel()
				wg.Wait()
				return LocalResult{}, fmt.Errorf("agent %d: %w", i, err)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ends[i] = wait(ctx, p, o.Grace)
		}()
	}
	wg.Wait()
	res := LocalResult{Missing: map[int]string{}, Failed: map[int]string{}}
	for i := range o.Count {
		docs, err := ReadResults(&outs[i])
		if err != nil || len(docs) != 1 {
			res.Missing[i] = ends[i]
			continue
		}
		res.Docs = append(res.Docs, docs[0])
		if ends[i] != "exited 0" {
			res.Failed[i] = ends[i]
		}
	}
	if len(res.Docs) == 0 {
		return res, errors.New("no agent wrote a result: agent 0 " + ends[0])
	}
	return res, nil
}

// wait waits for p, interrupting it when ctx ends and killing it grace
// later; it describes how the process ended.
func wait(ctx context.Context, p *child.Process, grace time.Duration) string {
	select {
	case <-p.Done():
	case <-ctx.Done():
		p.Stop(syscall.SIGINT, grace)
	}
	err := p.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return "exited 0"
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
		}
		return fmt.Sprintf("exited %d", exit.ExitCode())
	}
	return err.Error()
}

// prefixWriter writes whole lines to w, each prefixed; one belongs to
// one process's stderr (exec copies to it from one goroutine).
type prefixWriter struct {
	w       io.Writer
	prefix  string
	partial []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.partial[:i])
		p.partial = p.partial[i+1:]
	}
	if len(p.partial) > 1<<16 { // a line without end: show it anyway
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.partial)
		p.partial = p.partial[:0]
	}
	return len(b), nil
}

// lockedWriter serialises the agents' lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
