package kubereal

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// nStages is how many milestones a watcher of pods sees: stageName's.
const nStages = 4

// stageName is milestone i's name, in order.
func stageName(i int) string {
	return [nStages]string{"pods created", "pods scheduled", "pods running", "pods ready"}[i]
}

// podWatch follows a namespace's pods through a real apiserver's watch
// and records when each first reached each stage (as the field report's
// script, which watched pods until all were Ready). Its methods are safe
// for concurrent use.
type podWatch struct {
	start time.Time

	mu     sync.Mutex
	seen   map[string]*[nStages]time.Time
	counts [nStages]int
	err    error
	change chan struct{} // closed and replaced on every change
}

// watchPods starts watching namespace ns's pods through the apiserver at
// url (client must not time out: the watch lasts until ctx ends). Stages
// are timed from start. A watch the apiserver ends is resumed from the
// last resource version seen, or after a fresh list when that is too old
// (410 Gone), as client-go's reflector does.
func watchPods(ctx context.Context, client *http.Client, url, ns string, start time.Time) (*podWatch, error) {
	w := &podWatch{start: start, seen: map[string]*[nStages]time.Time{}, change: make(chan struct{})}
	base := url + "/api/v1/namespaces/" + ns + "/pods"
	rv, err := w.list(ctx, client, base)
	if err != nil {
		return nil, err
	}
	body, err := openWatch(ctx, client, base, rv)
	if err != nil {
		return nil, err
	}
	go func() {
		for ctx.Err() == nil {
			var gone bool
			rv, gone = w.follow(body, rv)
			body.Close()
			if ctx.Err() != nil {
				return
			}
			if gone {
				if rv, err = w.list(ctx, client, base); err != nil {
					w.fail(err)
					return
				}
			}
			if body, err = openWatch(ctx, client, base, rv); err != nil {
				if ctx.Err() == nil {
					w.fail(err)
				}
				return
			}
		}
	}()
	return w, nil
}

// list lists the pods, observes each and returns the list's resource
// version.
func (w *podWatch) list(ctx context.Context, client *http.Client, base string) (string, error) {
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	body, err := getBody(lctx, client, base)
	if err != nil {
		return "", fmt.Errorf("list pods: %w", err)
	}
	var list corev1.PodList
	if err := json.Unmarshal(body, &list); err != nil {
		return "", fmt.Errorf("list pods: %w", err)
	}
	now := time.Now()
	for i := range list.Items {
		w.observe("ADDED", &list.Items[i], now)
	}
	return list.ResourceVersion, nil
}

// openWatch opens a watch of base from resource version rv.
func openWatch(ctx context.Context, client *http.Client, base, rv string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"?watch=1&allowWatchBookmarks=true&resourceVersion="+rv, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("watch pods: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("watch pods: %s", resp.Status)
	}
	return resp.Body, nil
}

// follow reads a watch stream until it ends and returns the last resource
// version seen (rv if none), and whether the apiserver said it is gone.
func (w *podWatch) follow(body io.Reader, rv string) (string, bool) {
	dec := json.NewDecoder(bufio.NewReader(body))
	for {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			return rv, false
		}
		if ev.Type == "ERROR" {
			var st metav1.Status
			_ = json.Unmarshal(ev.Object, &st)
			return rv, st.Code == http.StatusGone
		}
		var p corev1.Pod
		if err := json.Unmarshal(ev.Object, &p); err != nil {
			continue
		}
		if p.ResourceVersion != "" {
			rv = p.ResourceVersion
		}
		w.observe(ev.Type, &p, time.Now())
	}
}

// observe records one watch event seen at t.
func (w *podWatch) observe(typ string, p *corev1.Pod, t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if typ != "ADDED" && typ != "MODIFIED" {
		return
	}
	st := w.seen[p.Name]
	if st == nil {
		st = &[nStages]time.Time{}
		w.seen[p.Name] = st
	}
	reached := [nStages]bool{true, p.Spec.NodeName != "", p.Status.Phase == corev1.PodRunning, podReady(p)}
	for i, ok := range reached {
		if ok && st[i].IsZero() {
			st[i] = t
			w.counts[i]++
		}
	}
	close(w.change)
	w.change = make(chan struct{})
}

// fail records the watch's end.
func (w *podWatch) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.err = err
	close(w.change)
	w.change = make(chan struct{})
}

// podReady is the pod's Ready condition.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// waitReady waits until total pods are Ready, the watch fails or ctx
// ends; progress (if set) is called with each new count.
func (w *podWatch) waitReady(ctx context.Context, total int, progress func(ready, total int)) error {
	last := -1
	for {
		w.mu.Lock()
		ready, err, change := w.counts[nStages-1], w.err, w.change
		w.mu.Unlock()
		if ready != last && progress != nil {
			progress(ready, total)
		}
		last = ready
		switch {
		case ready >= total:
			return nil
		case err != nil:
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-change:
		}
	}
}

// milestones are the seconds from start until every one of total pods had
// reached each stage (a stage not reached by all is left out), in time
// order, and the pods Ready.
func (w *podWatch) milestones(total int) (ms []stageTime, ready int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range nStages {
		if w.counts[i] < total {
			continue
		}
		var last time.Time
		for _, st := range w.seen {
			if st[i].After(last) {
				last = st[i]
			}
		}
		ms = append(ms, stageTime{stageName(i), last.Sub(w.start).Seconds()})
	}
	// In time order: a hollow kubelet's pod is Ready from its first
	// status, before its phase is Running.
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].seconds < ms[j].seconds })
	return ms, w.counts[nStages-1]
}

// stageTime is a milestone.
type stageTime struct {
	name    string
	seconds float64
}

// getBody GETs url and returns its body, or an error for any status but 200.
func getBody(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return body, nil
}
