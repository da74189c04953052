package kube

import (
	"bytes"
	"sync"
)

// maxShared bounds the decoded objects waiting for the other watch caches
// (a cache whose watch restarted never takes its share): past it the table
// starts again, which only costs decodes.
const maxShared = 1 << 14

// sharedDecodes lets the apiservers' watch caches of one resource decode
// each event once. Every apiserver watches every resource, so each event
// reaches `consumers` caches with the same key, value and mod_revision;
// objects in caches are never modified, so the first cache to decode an
// event leaves the object for the others. The emulator's CPU is not
// etcd's load: each apiserver keeps its own watch (the requests etcd
// serves are unchanged), only our decoding is shared. Safe for concurrent
// use.
type sharedDecodes struct {
	consumers int

	mu sync.Mutex
	m  map[int64]*sharedDecode // by mod_revision: one key per revision in kube's writes
}

type sharedDecode struct {
	key  []byte
	obj  object
	left int // caches still to take it
}

func newSharedDecodes(consumers int) *sharedDecodes {
	return &sharedDecodes{consumers: consumers, m: map[int64]*sharedDecode{}}
}

// decode returns the object stored as value at key and modRev, decoding it
// unless another cache already did.
func (d *sharedDecodes) decode(r res, key, value []byte, modRev int64) (object, error) {
	if d.consumers <= 1 {
		return decode(r, value, modRev)
	}
	d.mu.Lock()
	if s, ok := d.m[modRev]; ok && bytes.Equal(s.key, key) {
		if s.left--; s.left <= 0 {
			delete(d.m, modRev)
		}
		d.mu.Unlock()
		return s.obj, nil
	}
	d.mu.Unlock()
	obj, err := decode(r, value, modRev)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	if len(d.m) >= maxShared {
		clear(d.m)
	}
	switch s, ok := d.m[modRev]; {
	case !ok:
		d.m[modRev] = &sharedDecode{key: key, obj: obj, left: d.consumers - 1}
	case bytes.Equal(s.key, key):
		// Another cache decoded it meanwhile: this one's share is taken.
		if s.left--; s.left <= 0 {
			delete(d.m, modRev)
		}
	}
	d.mu.Unlock()
	return obj, nil
}

// pending is how many decoded objects wait for other caches (tests).
func (d *sharedDecodes) pending() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.m)
}
