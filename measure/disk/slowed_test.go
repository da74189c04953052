package disk

import (
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// TestNoteSlowedOps: a disk result from an emulated slow disk names the
// jobs that measured this machine's disk instead.
func TestNoteSlowedOps(t *testing.T) {
	t.Parallel()
	main := []result.DiskJob{{Name: "sequential write"}}
	suite := []result.DiskJob{{Name: "sequential write"}, {Name: "random read 4 KiB"}, {Name: "mixed 70/30"}, {Name: "mixed 30/70"}}
	for _, tc := range []struct {
		name string
		jobs []result.DiskJob
		ops  []string
		want string
	}{
		{"no emulation", suite, nil, ""},
		{"fsync, main job only", main, []string{"fsync"}, ""},
		{"fsync, suite", suite, []string{"fsync"}, "the emulated slow disk delays syncs only: reads and O_DIRECT writes were not slowed, so the random-read job and the mixed jobs measured this machine's disk, not the emulated one"},
		{"fsync and reads", suite, []string{"fsync", "read"}, "the emulated slow disk delays syncs and reads only: O_DIRECT writes were not slowed, so the mixed jobs measured this machine's disk, not the emulated one"},
		{"everything", suite, []string{"fsync", "read", "write"}, ""},
		{"reads only", suite, []string{"read", "write"}, "the emulated slow disk delays reads and O_DIRECT writes only: syncs were not slowed, so the main job measured this machine's disk, not the emulated one"},
	} {
		doc := &result.Document{Disk: &result.Disk{Jobs: tc.jobs, Warnings: []string{"earlier"}}}
		NoteSlowedOps(doc, tc.ops)
		var got string
		if w := doc.Disk.Warnings; len(w) == 2 {
			got = w[1]
		} else if len(w) != 1 || w[0] != "earlier" {
			t.Errorf("%s: warnings %q", tc.name, w)
		}
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
	NoteSlowedOps(nil, []string{"fsync"})
	NoteSlowedOps(&result.Document{}, []string{"fsync"})
}
