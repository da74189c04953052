package image

import (
	"fmt"
	"os"
	"os/exec"
)

// BuildBinary builds a static etcdlab (CGO_ENABLED=0, -trimpath, version
// set) from the module at moduleDir into out, with the go tool on PATH.
func BuildBinary(out, version, moduleDir string) error {
	cmd := exec.Command("go", "build", "-trimpath",
		"-ldflags", "-s -w -X github.com/etcdlab/etcdlab/internal/version.Version="+version,
		"-o", out, "./cmd/etcdlab")
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build etcdlab: %w\n%s", err, b)
	}
	return nil
}
