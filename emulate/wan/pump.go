package wan

import (
	"math/rand/v2"
	"net"
	"sync/atomic"
	"syscall"
	"time"
)

// chunkBytes is the most one read takes off a connection.
const chunkBytes = 32 << 10

// queueChunks bounds what one direction holds in flight; beyond it the
// reader stops reading and TCP's flow control pushes back on the sender.
const queueChunks = 1024

type chunk struct {
	b   []byte
	at  time.Time // when it was read
	due time.Time // when it may be written
}

// pump copies src to dst through the delay line of link e, until src ends
// or either side fails. When src ends cleanly, dst's write side is closed
// after everything queued was delivered; on any error both are closed.
// It returns when the writer is done.
func pump(t *Table, e *entry, dst, src net.Conn, seed uint64, quit <-chan struct{}) {
	q := make(chan chunk, queueChunks)
	var pending atomic.Int64 // chunks queued or being written
	ln := line{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		write(t, e, dst, src, q, &pending, quit)
	}()
	buf := make([]byte, chunkBytes)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			now := time.Now()
			l := e.link.Load()
			if l.passthrough() && pending.Load() == 0 {
				// Nothing ahead of it and nothing to do: no hand-off.
				if _, werr := dst.Write(buf[:n]); werr != nil {
					closeBoth(dst, src)
					break
				}
				e.stats.add(n, time.Since(now))
			} else {
				c := chunk{b: append([]byte(nil), buf[:n]...), at: now, due: ln.due(l, now, n)}
				pending.Add(1)
				q <- c
			}
		}
		if err != nil {
			break
		}
	}
	close(q)
	<-writerDone
}

// write delivers queued chunks at their due times.
func write(t *Table, e *entry, dst, src net.Conn, q <-chan chunk, pending *atomic.Int64, quit <-chan struct{}) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	failed := false
	for c := range q {
		if failed {
			pending.Add(-1)
			continue
		}
		for !failed {
			l := e.link.Load()
			if l.Partitioned {
				// Stall until the link changes; the data is delivered one
				// delay after the heal, like a retransmission.
				select {
				case <-t.waitChange():
				case <-quit:
					failed = true
					closeBoth(dst, src)
					continue
				}
				if l2 := e.link.Load(); !l2.Partitioned {
					if d := time.Now().Add(l2.Delay); d.After(c.due) {
						c.due = d
					}
				}
				continue
			}
			wait := time.Until(c.due)
			if wait <= 0 {
				break
			}
			if wait <= fineWait {
				fineSleep(wait)
				continue
			}
			timer.Reset(wait - fineWait)
			select {
			case <-timer.C:
			case <-t.waitChange():
				if !timer.Stop() {
					<-timer.C
				}
			case <-quit:
				if !timer.Stop() {
					<-timer.C
				}
				failed = true
				closeBoth(dst, src)
			}
		}
		if failed {
			pending.Add(-1)
			continue
		}
		if _, err := dst.Write(c.b); err != nil {
			failed = true
			closeBoth(dst, src)
		} else {
			e.stats.add(len(c.b), time.Since(c.at))
		}
		pending.Add(-1)
	}
	if !failed {
		if tc, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = tc.CloseWrite()
		} else {
			_ = dst.Close()
		}
	}
}

// fineWait is how close to a due time the writer stops using Go's timers,
// which wake on the netpoller's millisecond granularity (up to about 1 ms
// late), and sleeps in the kernel instead (tens of µs late). The cost is an
// OS thread blocked for at most this long per wake-up.
const fineWait = 1500 * time.Microsecond

// fineSleep sleeps d in the kernel.
func fineSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}

func closeBoth(a, b net.Conn) {
	_ = a.Close()
	_ = b.Close()
}
