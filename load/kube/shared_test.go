package kube

import (
	"sync"
	"testing"
)

// TestSharedDecodes checks that the watch caches of one event share one
// decoded object, that nothing is left once every cache took it (also when
// caches race), and that a different key at the same revision is not
// mistaken for it.
func TestSharedDecodes(t *testing.T) {
	data, err := encode(resPods, testPod("a"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := encode(resPods, testPod("b"))
	if err != nil {
		t.Fatal(err)
	}
	keyA, keyB := []byte("/registry/pods/ns/a"), []byte("/registry/pods/ns/b")

	for _, consumers := range []int{1, 2, 3, 5} {
		d := newSharedDecodes(consumers)
		var first object
		for i := range consumers {
			obj, err := d.decode(resPods, keyA, data, 7)
			if err != nil {
				t.Fatal(err)
			}
			if obj.GetName() != "a" || obj.GetResourceVersion() != "7" {
				t.Fatalf("consumers %d: decoded %s at %s", consumers, obj.GetName(), obj.GetResourceVersion())
			}
			if i == 0 {
				first = obj
			} else if obj != first {
				t.Fatalf("consumers %d: cache %d decoded again", consumers, i)
			}
			if i == 0 && consumers > 1 {
				// Another key at the same revision is another object.
				b, err := d.decode(resPods, keyB, other, 7)
				if err != nil {
					t.Fatal(err)
				}
				if b.GetName() != "b" {
					t.Fatalf("key b at revision 7 gave %s", b.GetName())
				}
			}
		}
		if n := d.pending(); n != 0 {
			t.Fatalf("consumers %d: %d objects left after every cache took its share", consumers, n)
		}
	}

	// Three caches racing on each of 200 events leave nothing behind.
	d := newSharedDecodes(3)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for rev := range int64(200) {
				if _, err := d.decode(resPods, keyA, data, rev+1); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := d.pending(); n != 0 {
		t.Fatalf("%d objects left after racing caches", n)
	}
	if _, err := d.decode(resPods, keyA, []byte("{}"), 1); err == nil {
		t.Fatal("a value that is not kube's encoding decoded")
	}
}
