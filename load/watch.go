package load

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// WatchSpec is `benchmark watch-latency`: Streams watch streams with
// WatchersPerStream watchers each on one key, and PutTotal puts to that key
// at PutRate per second.
type WatchSpec struct {
	Key                        string
	ValueSize                  int
	Streams, WatchersPerStream int
	PrevKV                     bool
	PutTotal, PutRate          int
	RequestTimeout             time.Duration
	// Live, if set, shows the run's puts and watch events as they happen
	// (etcdlab_requests_in_flight is left out: the run does not count
	// events in flight).
	Live *Live
}

// RunWatchLatency measures put latency and the latency of each watch event:
// from the moment its put was sent until the watcher received it (etcd
// benchmark measures from the put's response and clamps at zero). Each
// value carries its put's index, so events are matched exactly.
func RunWatchLatency(ctx context.Context, cfg etcdclient.Config, endpoints []string, conns int, s WatchSpec) (result.Run, error) {
	clients := make([]*clientv3.Client, conns)
	for i := range clients {
		c := cfg
		c.Endpoints = []string{endpoints[i%len(endpoints)]}
		cli, err := etcdclient.New(c)
		if err != nil {
			return result.Run{}, err
		}
		defer cli.Close()
		clients[i] = cli
	}
	watchers := s.Streams * s.WatchersPerStream
	start := time.Now()
	rec := newRecorder(2, false, start)
	if s.Live != nil {
		stop := s.Live.track(&liveSource{rec: rec, ops: []string{"put", "watch"}})
		defer stop()
	}
	sent := make([]atomic.Int64, s.PutTotal)
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	opts := []clientv3.OpOption{clientv3.WithCreatedNotify()}
	if s.PrevKV {
		opts = append(opts, clientv3.WithPrevKV())
	}
	var wg sync.WaitGroup
	var created sync.WaitGroup
	for st := range s.Streams {
		w := clientv3.NewWatcher(clients[st%len(clients)])
		defer w.Close()
		for j := range s.WatchersPerStream {
			id := st*s.WatchersPerStream + j
			ch := w.Watch(wctx, s.Key, opts...)
			wg.Add(1)
			created.Add(1)
			go func() {
				defer wg.Done()
				got, first := 0, true
				for resp := range ch {
					if first {
						first = false
						created.Done()
					}
					now := time.Now()
					for _, ev := range resp.Events {
						if len(ev.Kv.Value) < 8 {
							continue
						}
						idx := binary.BigEndian.Uint64(ev.Kv.Value)
						if idx < uint64(len(sent)) {
							rec.record(id, 1, time.Unix(0, sent[idx].Load()), time.Unix(0, sent[idx].Load()), now, nil)
						}
						got++
					}
					if got >= s.PutTotal {
						return
					}
				}
				if first {
					created.Done()
				}
			}()
		}
	}
	created.Wait()
	if ctx.Err() != nil {
		return result.Run{}, ctx.Err()
	}
	value := make([]byte, max(8, s.ValueSize))
	copy(value[8:], RandomValue(len(value)-8))
	put := clients[0]
	pstart := time.Now()
	for i := range s.PutTotal {
		due := pstart.Add(time.Duration(float64(i) / float64(s.PutRate) * float64(time.Second)))
		if wait := time.Until(due); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			break
		}
		binary.BigEndian.PutUint64(value, uint64(i))
		t0 := time.Now()
		sent[i].Store(t0.UnixNano())
		pctx, cancel := context.WithTimeout(ctx, s.RequestTimeout)
		_, err := put.Put(pctx, s.Key, string(value))
		cancel()
		rec.record(0, 0, t0, t0, time.Now(), err)
	}
	// Wait for the last events, at most one request timeout.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	stopped := ""
	select {
	case <-done:
	case <-time.After(s.RequestTimeout):
		stopped = fmt.Sprintf("some of %d watchers had not received every event %s after the last put", watchers, s.RequestTimeout)
	case <-ctx.Done():
		stopped = "interrupted"
	}
	stopWatch()
	<-done
	elapsed := rec.lastEnd().Sub(start)
	run := result.Run{Start: start.UTC(), End: rec.lastEnd().UTC(), Clients: watchers, Conns: conns, StoppedEarly: stopped}
	run.Stats = rec.stats(0, elapsed)
	run.Ops = []result.Op{{Name: "put", Stats: rec.stats(0, elapsed)}, {Name: "watch", Stats: rec.stats(1, elapsed)}}
	if run.Requests == 0 && len(run.Errors) == 0 {
		return run, errors.New("no put completed")
	}
	return run, nil
}
