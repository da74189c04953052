package cluster

import (
	"fmt"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/invalid"
)

// signalMember sends sig to the member of st called name, found in the
// state and signalled only if it is still the same process; with wait, it
// then waits (up to 5 s) until the process is gone; SIGSTOP waits (up to
// 1 s) until every thread is stopped. Signals sent this way
// are not counted by the cluster (Counts.Faults).
func signalMember(st State, name string, sig syscall.Signal, wait bool) error {
	var names []string
	for _, m := range st.Members {
		names = append(names, m.Name)
		if m.Name != name {
			continue
		}
		id := m.Process()
		if err := id.Signal(sig); err != nil {
			return fmt.Errorf("member %s: %w", m.Name, err)
		}
		if wait {
			id.WaitGone(5 * time.Second)
		}
		if sig == syscall.SIGSTOP {
			proc.WaitStopped(id.PID, time.Second) // best effort, as Pause
		}
		return nil
	}
	return invalid.Errorf("no member %q (members are %v)", name, names)
}
