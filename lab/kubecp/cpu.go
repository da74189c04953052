package kubecp

import "fmt"

// CPUSeconds is the CPU time the control plane's running processes
// (apiservers, controller manager, scheduler, hollow nodes) have used so
// far, user and system, from /proc. A process that has exited counts no
// more, so the figure drops when a component exits: a difference of two
// readings is the control plane's CPU only if no component exited between
// them (bench kube's real runs take both inside one iteration, whose
// components all live until it ends). Safe for concurrent use.
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
