package kubecp

import "fmt"

// CPUSeconds is the CPU time the control plane's processes (apiservers,
// controller manager, scheduler, hollow nodes) have used so far, user and
// system, from /proc; a process that has exited counts no more. Safe for
// concurrent use.
func (cp *ControlPlane) CPUSeconds() (float64, error) {
	var total float64
	for _, p := range cp.processes() {
		if done, _ := p.Exited(); done {
			continue
		}
		t, err := p.CPUSeconds()
		if err != nil {
			return 0, fmt.Errorf("kubecp: %w", err)
		}
		total += t
	}
	return total, nil
}
