package cluster

import "testing"

// TestFreePortsBelowEphemeral checks that chosen ports are distinct and lie
// below the kernel's ephemeral range, where no client connection's local
// port can take them before a kept cluster restarts.
func TestFreePortsBelowEphemeral(t *testing.T) {
	lo, hi := lowestListenPort, listenCeiling()
	if hi-lo < 1000 {
		t.Skipf("ephemeral range starts at %d: too little room below it", hi)
	}
	ps, err := freePorts("127.0.0.1", 5)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, mp := range ps {
		for _, p := range []int{mp.Client, mp.Peer, mp.Metrics} {
			if p < lo || p >= hi {
				t.Errorf("port %d outside [%d, %d)", p, lo, hi)
			}
			if seen[p] {
				t.Errorf("port %d chosen twice", p)
			}
			seen[p] = true
		}
	}
}
