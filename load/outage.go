package load

import (
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// outageSlot is the resolution at which the recorder tracks when requests
// succeeded and failed, to find windows in which nothing succeeded.
const outageSlot = 10 * time.Millisecond

// slotSet is a growable bit set over time slotSet since a start time: bounded
// memory (about 1.2 KiB per minute of run) at any request rate.
type slotSet []uint64

func (s *slotSet) set(i int) {
	if i < 0 {
		i = 0
	}
	for len(*s) <= i/64 {
		*s = append(*s, 0)
	}
	(*s)[i/64] |= 1 << (i % 64)
}

func (s slotSet) has(i int) bool { return i/64 < len(s) && s[i/64]&(1<<(i%64)) != 0 }

func (s *slotSet) or(o slotSet) {
	for len(*s) < len(o) {
		*s = append(*s, 0)
	}
	for i, w := range o {
		(*s)[i] |= w
	}
}

// outages finds the windows in which requests failed and none succeeded: a
// maximal run of slotSet without a success that holds at least one failure.
// A window runs from the end of the last success before it to the first
// success after it (or the last failure, if the run ended unavailable).
func outages(ok, failed slotSet, start time.Time) *result.Unavailability {
	n := max(len(ok), len(failed)) * 64
	u := &result.Unavailability{}
	add := func(from, to int) {
		u.Add(start.Add(time.Duration(from)*outageSlot), time.Duration(to-from)*outageSlot)
	}
	lastOK, errIn, lastErr := -1, false, -1
	for i := range n {
		switch {
		case ok.has(i):
			if errIn {
				add(lastOK+1, i)
			}
			lastOK, errIn = i, false
		case failed.has(i):
			errIn, lastErr = true, i
		}
	}
	if errIn {
		add(lastOK+1, lastErr+1)
	}
	if len(u.Windows) == 0 {
		return nil
	}
	return u
}
