package kube

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// client-go's event correlator defaults (k8s.io/client-go
// tools/record/events_cache.go): more than 10 events differing only by
// message about one object within 10 minutes are aggregated into one
// event that is patched from then on; a source may send 25 events about an
// object, refilled at one per 5 minutes (the spam filter); the
// broadcaster queues at most 1,000 events and drops the rest
// (tools/record/event.go maxQueuedEvents).
const (
	aggregateMaxEvents = 10
	aggregateInterval  = 600 * time.Second
	spamBurst          = 25
	spamRefill         = 300 * time.Second
	maxQueuedEvents    = 1000
)

// eventRecorder is one component's client-go event recorder: events are
// queued without blocking the caller and written by one goroutine through
// the component's event client, after the correlator's spam filter and
// aggregation. Safe for concurrent use.
type eventRecorder struct {
	api             *apiserver
	cl              *client
	component, host string
	ch              chan *corev1.Event

	spam map[string]*rate.Limiter
	agg  map[string]*aggState

	written, filtered, dropped atomic.Int64
}

type aggState struct {
	first time.Time
	n     int
	name  string // the aggregate event, once created
	count int32
}

func newEventRecorder(api *apiserver, cl *client, component, host string) *eventRecorder {
	return &eventRecorder{api: api, cl: cl, component: component, host: host, ch: make(chan *corev1.Event, maxQueuedEvents),
		spam: map[string]*rate.Limiter{}, agg: map[string]*aggState{}}
}

// emit queues a Normal event about o (kind, apiVersion its type).
func (r *eventRecorder) emit(o object, kind, apiVersion, reason, msg string) {
	now := metav1.NewTime(time.Now())
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", o.GetName(), time.Now().UnixNano()), Namespace: o.GetNamespace()},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: o.GetNamespace(), Name: o.GetName(), UID: o.GetUID(),
			APIVersion: apiVersion, ResourceVersion: o.GetResourceVersion()},
		Reason: reason, Message: msg, Source: corev1.EventSource{Component: r.component, Host: r.host},
		FirstTimestamp: now, LastTimestamp: now, Count: 1, Type: corev1.EventTypeNormal,
		ReportingController: r.component, ReportingInstance: r.component + "-" + r.host,
	}
	if ev.Namespace == "" {
		ev.Namespace = metav1.NamespaceDefault
	}
	select {
	case r.ch <- ev:
	default:
		r.dropped.Add(1)
	}
}

// run writes queued events until ctx ends.
func (r *eventRecorder) run(ctx context.Context, wg *sync.WaitGroup) {
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-r.ch:
				if err := r.write(ctx, ev); err == nil {
					r.written.Add(1)
				}
			}
		}
	})
}

func (r *eventRecorder) write(ctx context.Context, ev *corev1.Event) error {
	o := ev.InvolvedObject
	spamKey := ev.Source.Component + ev.Source.Host + o.Kind + o.Namespace + o.Name + string(o.UID) + o.APIVersion
	lim := r.spam[spamKey]
	if lim == nil {
		lim = rate.NewLimiter(rate.Every(spamRefill), spamBurst)
		r.spam[spamKey] = lim
	}
	if !lim.Allow() {
		r.filtered.Add(1)
		return nil
	}
	aggKey := spamKey + ev.Type + ev.Reason
	now := time.Now()
	a := r.agg[aggKey]
	if a == nil || now.Sub(a.first) > aggregateInterval {
		a = &aggState{first: now}
		r.agg[aggKey] = a
	}
	a.n++
	if a.n <= aggregateMaxEvents {
		err := r.api.createEvent(ctx, r.cl, ev)
		return err
	}
	msg := "(combined from similar events): " + ev.Message
	if a.name == "" {
		ev.Message = msg
		a.name, a.count = ev.Name, 1
		err := r.api.createEvent(ctx, r.cl, ev)
		return err
	}
	a.count++
	count := a.count
	_, err := r.api.patchEvent(ctx, r.cl, ev.Namespace, a.name, func(cur object) (object, error) {
		e := cur.(*corev1.Event)
		e.Count, e.Message, e.LastTimestamp = count, msg, metav1.NewTime(now)
		return e, nil
	})
	return err
}
