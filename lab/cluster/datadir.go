package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/invalid"
)

// Files etcdlab keeps in a cluster's data directory.
const (
	layoutFile = "etcdlab-layout.json" // names and ports, so a kept cluster can restart
	ownerFile  = "etcdlab-owner.json"  // which etcdlab process runs the cluster
	tlsDirName = "tls"
	tempPrefix = "data-"
)

// layout is what a cluster's data needs to be restarted: the member names,
// their ports and the cluster token. Peer URLs are stored inside etcd's own
// data, so a restart must use the same ones.
type layout struct {
	Token string        `json:"cluster_token"`
	Host  string        `json:"host"`
	TLS   bool          `json:"tls"`
	Names []string      `json:"names"`
	Ports []memberPorts `json:"ports"`
	// Emulated says the members live in an emulated network, where their
	// peer URLs are namespace addresses: it must be emulated again.
	Emulated  bool      `json:"emulated,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// owner marks a data directory as in use by one etcdlab process, and says
// what that process may delete when it is done.
type owner struct {
	proc.ID
	// Keep says the data is to be kept (--keep-data).
	Keep bool `json:"keep"`
	// CreatedRoot says the directory itself was made by etcdlab.
	CreatedRoot bool `json:"created_root"`
	// OwnsData says the member data was made by an etcdlab run that meant
	// to delete it; data a person kept is never deleted by a later run.
	OwnsData bool `json:"owns_data"`
}

// dataDir is a prepared data directory. Not safe for concurrent use.
type dataDir struct {
	temp   bool // a new directory under BaseDir
	root   string
	own    owner
	layout *layout // nil for a new cluster
}

// prepareDataDir resolves, creates or adopts the cluster's directory and
// marks it as ours. The error is one line naming the directory.
func prepareDataDir(o *Options) (*dataDir, error) {
	d := &dataDir{}
	if o.DataDir == "" {
		base := o.BaseDir
		if base == "" {
			base = ".etcdlab"
		}
		base, err := filepath.Abs(base)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(base, 0o755); err != nil {
			return nil, fmt.Errorf("cannot create %s: %w", base, unwrapPath(err))
		}
		for _, mp := range slowfs.CleanStale(base, ownerAlive) {
			fmt.Fprintf(o.Log, "unmounted %s, a slow-disk mount left by a killed etcdlab\n", mp)
		}
		sweepStale(base, o.Log)
		root, err := os.MkdirTemp(base, tempPrefix)
		if err != nil {
			return nil, fmt.Errorf("cannot create a data dir in %s: %w", base, unwrapPath(err))
		}
		d.root, d.temp, d.own.CreatedRoot, d.own.OwnsData = root, true, true, true
	} else {
		root, err := filepath.Abs(o.DataDir)
		if err != nil {
			return nil, err
		}
		d.root = root
		for _, mp := range slowfs.CleanStale(root, ownerAlive) {
			fmt.Fprintf(o.Log, "unmounted %s, a slow-disk mount left by a killed etcdlab\n", mp)
		}
		if err := d.adopt(o); err != nil {
			return nil, err
		}
	}
	d.own.Keep = o.KeepData
	self, err := proc.Self()
	if err != nil {
		return nil, err
	}
	d.own.ID = self
	if err := writeJSON(filepath.Join(d.root, ownerFile), d.own); err != nil {
		d.removeCreatedRoot()
		return nil, fmt.Errorf("data dir %s is not writable: %w", d.root, unwrapPath(err))
	}
	return d, nil
}

// adopt takes an existing or new directory named by the user.
func (d *dataDir) adopt(o *Options) error {
	st, err := os.Stat(d.root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(d.root, 0o755); err != nil {
			return fmt.Errorf("cannot create data dir %s: %w", d.root, unwrapPath(err))
		}
		d.own.CreatedRoot, d.own.OwnsData = true, true
		return nil
	case err != nil:
		return fmt.Errorf("data dir %s: %w", d.root, unwrapPath(err))
	case !st.IsDir():
		return fmt.Errorf("data dir %s is not a directory", d.root)
	}
	var prev owner
	if err := readJSON(filepath.Join(d.root, ownerFile), &prev); err == nil {
		if prev.Alive() {
			return fmt.Errorf("data dir %s is in use by another etcdlab (pid %d)", d.root, prev.PID)
		}
		// A run that was killed: inherit what it was allowed to delete.
		d.own.CreatedRoot, d.own.OwnsData = prev.CreatedRoot, prev.OwnsData && !prev.Keep
	}
	var l layout
	switch err := readJSON(filepath.Join(d.root, layoutFile), &l); {
	case err == nil:
		if len(l.Names) != o.Members {
			return invalid.Errorf("data dir %s holds a %d-member cluster; run with {Members} %d or choose another {DataDir}", d.root, len(l.Names), len(l.Names))
		}
		if l.TLS != o.TLS {
			return invalid.Errorf("data dir %s holds a cluster with TLS %s; run %s {TLS} or choose another {DataDir}", d.root, onOff(l.TLS), map[bool]string{true: "with", false: "without"}[l.TLS])
		}
		d.layout = &l
	case errors.Is(err, fs.ErrNotExist):
		for i := 1; i <= o.Members; i++ {
			if _, err := os.Stat(filepath.Join(d.root, memberName(i), "member")); err == nil {
				return invalid.Errorf("data dir %s already holds etcd data (%s) that etcdlab did not make; choose another {DataDir}", d.root, memberName(i))
			}
		}
		d.own.OwnsData = true
	default:
		return fmt.Errorf("data dir %s: unreadable %s: %w", d.root, layoutFile, err)
	}
	return nil
}

// memberDir is where member name keeps its data, log and configuration.
func (d *dataDir) memberDir(name string) string { return filepath.Join(d.root, name) }

// tlsDir is where member certificates are kept.
func (d *dataDir) tlsDir() string { return filepath.Join(d.root, tlsDirName) }

// resetMembers removes member data made by this run, for a retry.
func (d *dataDir) resetMembers(names []string) {
	if !d.own.OwnsData || d.layout != nil {
		return
	}
	for _, n := range names {
		os.RemoveAll(d.memberDir(n))
	}
}

// release ends this run's use of the directory: it deletes what this run may
// delete (everything it made, unless the data is kept) and reports what was
// kept, if anything.
func (d *dataDir) release(names []string) (kept string, err error) {
	if d.own.Keep || !d.own.OwnsData {
		return d.root, os.Remove(filepath.Join(d.root, ownerFile))
	}
	if d.own.CreatedRoot {
		err := os.RemoveAll(d.root)
		if d.temp {
			_ = os.Remove(filepath.Dir(d.root)) // the base dir, only if now empty
		}
		return "", err
	}
	var errs []error
	for _, n := range names {
		// <member>.disk held a slowed member's data in etcdlab versions
		// that mounted slow disks in the host's namespace; a killed run of
		// one may have left it.
		errs = append(errs, os.RemoveAll(d.memberDir(n)), os.RemoveAll(d.memberDir(n)+".disk"))
	}
	errs = append(errs, os.RemoveAll(d.tlsDir()), rmIfExists(filepath.Join(d.root, layoutFile)), rmIfExists(filepath.Join(d.root, ownerFile)))
	return "", errors.Join(errs...)
}

// removeCreatedRoot undoes prepareDataDir when it fails half way.
func (d *dataDir) removeCreatedRoot() {
	if d.own.CreatedRoot {
		os.RemoveAll(d.root)
	}
}

// sweepStale removes temporary data dirs under base left by etcdlab runs
// that were killed (their owner is gone and they were not to be kept).
func sweepStale(base string, log io.Writer) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		var own owner
		if readJSON(filepath.Join(dir, ownerFile), &own) != nil || own.Alive() || own.Keep || !own.CreatedRoot {
			continue
		}
		if os.RemoveAll(dir) == nil {
			fmt.Fprintf(log, "removed %s, left behind by etcdlab pid %d\n", dir, own.PID)
		}
	}
}

// ownerAlive says whether the etcdlab owning the data dir that holds
// mount point mp (a member dir) still runs.
func ownerAlive(mp string) bool {
	var own owner
	if readJSON(filepath.Join(filepath.Dir(mp), ownerFile), &own) != nil {
		return false
	}
	return own.Alive()
}

func memberName(i int) string { return fmt.Sprintf("m%d", i) }

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func rmIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// unwrapPath drops the *PathError wrapper (whose path the caller already
// names) to keep messages on one short line.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
