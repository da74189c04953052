package kubecp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/lab/child"
)

// pollEvery is how often readiness is asked.
const pollEvery = 250 * time.Millisecond

// StartError is a control plane that did not become ready: which
// component, why, and the end of its log (lab/child's, as every child's).
type StartError = child.StartError

// logTailLines is how many lines of a component's log a StartError
// carries.
const logTailLines = 20

// waitReady waits until the apiserver at url (component name) answers ok
// on /readyz.
func (cp *ControlPlane) waitReady(ctx context.Context, name, url string) error {
	var last string
	return cp.poll(ctx, name, func() bool {
		code, body, err := cp.getFrom(ctx, url, "/readyz")
		if err != nil {
			last = err.Error()
			return false
		}
		last = fmt.Sprintf("/readyz answered %d: %s", code, lastLines(body, 3))
		return code == http.StatusOK
	}, &last)
}

// waitLeaders waits until the controller manager and the scheduler hold
// their leader leases in kube-system.
func (cp *ControlPlane) waitLeaders(ctx context.Context) error {
	for _, name := range []string{kcmName, schedulerName} {
		var last string
		err := cp.poll(ctx, name, func() bool {
			code, body, err := cp.get(ctx, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/"+name)
			if err != nil || code != http.StatusOK {
				last = fmt.Sprintf("no leader lease (%d %v)", code, err)
				return false
			}
			var lease struct {
				Spec struct {
					HolderIdentity string `json:"holderIdentity"`
				} `json:"spec"`
			}
			if json.Unmarshal(body, &lease) != nil || lease.Spec.HolderIdentity == "" {
				last = "its lease has no holder"
				return false
			}
			return true
		}, &last)
		if err != nil {
			return err
		}
	}
	return nil
}

// poll calls ready until it says yes, a component exits, or ctx ends;
// the error names component and what ready saw last.
func (cp *ControlPlane) poll(ctx context.Context, component string, ready func() bool, last *string) error {
	for {
		if ready() {
			return nil
		}
		for _, p := range cp.processes() {
			if done, _ := p.Exited(); done {
				return p.StartError(fmt.Errorf("exited while starting (%s)", p.ExitState()), logTailLines)
			}
		}
		select {
		case <-ctx.Done():
			why := fmt.Errorf("not ready: %s: %w", *last, ctx.Err())
			for _, p := range cp.processes() {
				if p.Name() == component {
					return p.StartError(why, logTailLines)
				}
			}
			return &StartError{Name: component, Err: why}
		case <-time.After(pollEvery):
		}
	}
}

// get sends GET path to the first apiserver as the administrator.
func (cp *ControlPlane) get(ctx context.Context, path string) (int, []byte, error) {
	return cp.getFrom(ctx, cp.url, path)
}

// getFrom sends GET path to the apiserver at url as the administrator.
func (cp *ControlPlane) getFrom(ctx context.Context, url, path string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+path, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := cp.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}
