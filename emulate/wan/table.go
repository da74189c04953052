package wan

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Dir names a directed link: bytes from From to To.
type Dir struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func (d Dir) String() string { return d.From + "->" + d.To }

// Table holds every directed link's parameters and statistics. Set may be
// called at any time from any goroutine; connections see the new value with
// their next chunk. A direction never set passes bytes through.
type Table struct {
	mu      sync.Mutex
	entries map[Dir]*entry
	changed chan struct{} // closed and replaced on every Set
}

// entry is one directed link. link is read per chunk without locks.
type entry struct {
	link  atomic.Pointer[Link]
	stats stats
}

// NewTable returns an empty table.
func NewTable() *Table {
	return &Table{entries: map[Dir]*entry{}, changed: make(chan struct{})}
}

// get returns the entry of a link, creating a pass-through one.
func (t *Table) get(d Dir) *entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.entries[d]
	if e == nil {
		e = &entry{}
		e.link.Store(&Link{})
		t.entries[d] = e
	}
	return e
}

// Set gives a directed link new parameters.
func (t *Table) Set(d Dir, l Link) error {
	return t.Update(d, func(cur *Link) { *cur = l })
}

// Get returns a directed link's parameters.
func (t *Table) Get(d Dir) Link { return *t.get(d).link.Load() }

// Update changes a directed link under the table's lock, so concurrent
// updates (partition one pair while healing another) are not lost.
func (t *Table) Update(d Dir, f func(*Link)) error {
	e := t.get(d)
	t.mu.Lock()
	l := *e.link.Load()
	f(&l)
	if err := l.Validate(); err != nil {
		t.mu.Unlock()
		return fmt.Errorf("link %s: %w", d, err)
	}
	e.link.Store(&l)
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
	e.stats.resetRecent()
	return nil
}

// waitChange returns a channel closed at the next Set or Update.
func (t *Table) waitChange() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// LinkStatus is one directed link as configured and as observed.
type LinkStatus struct {
	Dir
	Link Link `json:"link"`
	// Chunks and Bytes count what the link has delivered.
	Chunks int64 `json:"chunks"`
	Bytes  int64 `json:"bytes"`
	// Measured is the median time the emulator held the most recent chunks
	// (from read to written), over at most the last 256 since the link was
	// last changed; zero if none.
	Measured time.Duration `json:"measured,omitempty"`
	Samples  int           `json:"samples"`
}

// Status lists every link the table knows, sorted by direction.
func (t *Table) Status() []LinkStatus {
	t.mu.Lock()
	dirs := make([]Dir, 0, len(t.entries))
	for d := range t.entries {
		dirs = append(dirs, d)
	}
	t.mu.Unlock()
	sort.Slice(dirs, func(i, j int) bool {
		if dirs[i].From != dirs[j].From {
			return dirs[i].From < dirs[j].From
		}
		return dirs[i].To < dirs[j].To
	})
	out := make([]LinkStatus, 0, len(dirs))
	for _, d := range dirs {
		e := t.get(d)
		s := LinkStatus{Dir: d, Link: *e.link.Load()}
		s.Chunks, s.Bytes, s.Measured, s.Samples = e.stats.snapshot()
		out = append(out, s)
	}
	return out
}

// stats keeps counts and the most recent hold times of one link.
type stats struct {
	mu     sync.Mutex
	chunks int64
	bytes  int64
	recent [256]time.Duration
	next   int
	filled int
}

func (s *stats) add(n int, held time.Duration) {
	s.mu.Lock()
	s.chunks++
	s.bytes += int64(n)
	s.recent[s.next] = held
	s.next = (s.next + 1) % len(s.recent)
	if s.filled < len(s.recent) {
		s.filled++
	}
	s.mu.Unlock()
}

// resetRecent forgets hold times measured under earlier parameters.
func (s *stats) resetRecent() {
	s.mu.Lock()
	s.next, s.filled = 0, 0
	s.mu.Unlock()
}

func (s *stats) snapshot() (chunks, bytes int64, median time.Duration, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.filled == 0 {
		return s.chunks, s.bytes, 0, 0
	}
	v := slices.Clone(s.recent[:s.filled])
	slices.Sort(v)
	return s.chunks, s.bytes, v[len(v)/2], s.filled
}
