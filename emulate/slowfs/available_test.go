package slowfs

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestAvailableExplains(t *testing.T) {
	if err := available(1000, "/dev/fuse"); err == nil || err.Error() != "slow-disk emulation mounts a FUSE file system and needs root" {
		t.Errorf("not root: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "fuse")
	err := available(0, missing)
	if err == nil || !strings.HasPrefix(err.Error(), "slow-disk emulation needs /dev/fuse: ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("no device: %v", err)
	}
}
