package experiment

import (
	"slices"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/invalid"
)

// FuzzParse feeds Parse experiment files: it never panics, every error is
// one line of invalid input that starts with the file's name, and a file
// it accepts plans every profile into cells with distinct IDs, the same
// when its text is parsed again.
func FuzzParse(f *testing.F) {
	for _, name := range Builtins() {
		text, _ := Builtin(name)
		f.Add(text)
	}
	for _, text := range []string{
		"name: e\nsetups:\n  - {name: one, members: 1}\nworkloads:\n  - name: put\n    bench: --clients={c} --duration=4s put\nsweep:\n  c: [1, 2, 3]\n",
		"setups:\n  - {name: a, storage: tmpfs, etcd: {heartbeat_interval_ms: 50}}\nworkloads:\n  - {name: d, disk: {}}\n",
		"setups:\n  - {name: live, endpoints: [127.0.0.1:2379]}\nworkloads:\n  - {name: c, check: {}}\n",
		"setups: [{name: a}]\nworkloads: [{name: p, bench: put}]\nfaults:\n  - {at: 1s, kill: leader}\n",
		"setups: [{name: a}]\nworkloads: [{name: p, bench: put}]\nprofiles:\n  quick: {sweep: {c: [1]}}\n",
		"setups: [{name: a}]\n---\nname: second\n",
		"",
		"name: [",
	} {
		f.Add([]byte(text))
	}
	const file = "fuzz.yaml"
	f.Fuzz(func(t *testing.T, text []byte) {
		// A topology path is read at parse time; a device would never end.
		if strings.Contains(string(text), "/dev") || strings.Contains(string(text), "/proc") || strings.Contains(string(text), "/sys") {
			t.Skip("names a device")
		}
		s, err := parseSpec(file, text)
		if err != nil {
			if invalid.As(err) == nil {
				t.Fatalf("%T %v is not an invalid-input error", err, err)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, file) {
				t.Fatalf("error not one line starting with the file: %q", msg)
			}
			return
		}
		again, err := parseSpec(file, s.Text())
		if err != nil {
			t.Fatalf("its own text refused: %v", err)
		}
		for _, prof := range s.ProfileNames() {
			p, err := s.Plan(prof)
			if err != nil {
				t.Fatalf("profile %q does not plan: %v", prof, err)
			}
			ids := cellIDs(p)
			if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
				t.Fatalf("profile %q: cell IDs repeat: %q", prof, ids)
			}
			q, err := again.Plan(prof)
			if err != nil || !slices.Equal(ids, cellIDs(q)) {
				t.Fatalf("profile %q planned differently the second time (%v)", prof, err)
			}
		}
	})
}

func cellIDs(p *Plan) []string {
	ids := make([]string, len(p.Cells))
	for i, c := range p.Cells {
		ids[i] = c.ID
	}
	return ids
}
