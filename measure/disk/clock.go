package disk

import _ "unsafe" // for go:linkname

// nanotime is the runtime's monotonic clock: one vDSO read, where
// time.Now reads two clocks. At tmpfs speeds (a sync in ~200 ns) the
// difference is a measurable share of what is measured. fio times with
// its own cheap clock for the same reason.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
