package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/invalid"
)

// TestSlowStorageFitFile: a setup's "storage: slow:fit:file=PATH" and a
// topology_spec's fit:file= find PATH beside the experiment file, not in
// the current directory, and a PATH that is not there is one line of
// invalid input naming it.
func TestSlowStorageFitFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fio, err := os.ReadFile("../../emulate/slowfs/testdata/fio-003.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hdd-fio.txt"), fio, 0o600); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "x.yaml")
	for _, setup := range []string{"    storage: slow:fit:file=hdd-fio.txt\n", "    topology_spec: {storage: {fsync_delay: 'fit:file=hdd-fio.txt'}}\n"} {
		if _, err := parseSpec(spec, []byte(strings.Replace(minimal, "    members: 1\n", setup, 1))); err != nil {
			t.Errorf("%s: %v", strings.TrimSpace(setup), err)
		}
	}
	_, err = parseSpec(spec, []byte(strings.Replace(minimal, "    members: 1\n", "    storage: slow:fit:file=none.txt\n", 1)))
	if !invalid.Is(err) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), `setups[0].storage: slow: "fit:file=none.txt": "`+filepath.Join(dir, "none.txt")+`": no such file`) {
		t.Errorf("missing fio output: %v", err)
	}
}
