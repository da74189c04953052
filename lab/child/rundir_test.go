package child

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/etcdlab/etcdlab/internal/proc"
)

// TestRunDir: RunDir's sweep removes the run directories of processes that
// are gone and keeps those of a live one and anything else.
func TestRunDir(t *testing.T) {
	base := t.TempDir()
	self, err := proc.Self()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		kept bool
	}{
		{fmt.Sprintf("run-%d-%d-123", self.PID, self.StartTime), true},
		{fmt.Sprintf("run-%d-%d-456", self.PID, self.StartTime+1), false}, // a reused PID
		{"run-999999999-1-789", false},
		{"not-a-run", true},
	} {
		if err := os.Mkdir(filepath.Join(base, tc.name), 0o755); err != nil {
			t.Fatal(err)
		}
		defer func(name string, kept bool) {
			if _, err := os.Stat(filepath.Join(base, name)); (err == nil) != kept {
				t.Errorf("%s: kept = %v, want %v", name, err == nil, kept)
			}
		}(tc.name, tc.kept)
	}
	dir, err := RunDir(base)
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := runDirOwner(filepath.Base(dir)); !ok || id != self {
		t.Errorf("new run dir %s names %v", dir, id)
	}
}
