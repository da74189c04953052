package kubecp

import (
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/etcdlab/etcdlab/lab/child"
)

// start starts component name from path with args and env (nil: this
// process's), its output in the run directory's NAME.log, as a child
// killed when this process dies, and records it.
func (cp *ControlPlane) start(name, path string, args, env []string) error {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	p, err := cp.sp.Start(child.Spec{Name: name, Cmd: cmd, LogFile: filepath.Join(cp.run, name+".log")})
	if err != nil {
		return fmt.Errorf("kubecp: %w", err)
	}
	cp.addProc(p)
	return nil
}
