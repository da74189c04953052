package slowfs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// fsType is what the kernel lists our mounts as (fuse.<subtype>).
const subtype = "etcdlab-slowfs"

// Options say what to mount where.
type Options struct {
	// Backing is the real directory; Mountpoint shows it with slow syncs.
	Backing, Mountpoint string
	Delay               *Delay
	// Only, if set, limits the delay to files whose path (relative to the
	// mount) it accepts, such as etcd's WAL.
	Only func(path string) bool
}

// WALOnly accepts etcd's WAL files.
func WALOnly(p string) bool { return strings.Contains(p, "member/wal/") }

// Mount is a mounted slow file system. Unmount it when done.
type Mount struct {
	opts   Options
	server *fuse.Server
}

// Available says whether this process can mount FUSE file systems: root and
// /dev/fuse. The error is one line saying what is missing.
func Available() error { return available(os.Geteuid(), "/dev/fuse") }

func available(euid int, dev string) error {
	if euid != 0 {
		return errors.New("slow-disk emulation mounts a FUSE file system and needs root")
	}
	f, err := os.OpenFile(dev, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("slow-disk emulation needs /dev/fuse: %v", err)
	}
	f.Close()
	return nil
}

// Mount mounts o.Backing at o.Mountpoint.
func MountDir(o Options) (*Mount, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(o.Backing, &st); err != nil {
		return nil, fmt.Errorf("slow disk: %s: %v", o.Backing, err)
	}
	m := &Mount{opts: o}
	root := &fs.LoopbackRoot{Path: o.Backing, Dev: st.Dev}
	// Children are wrapped by the root's WrapChild (NodeWrapChilder), so
	// every node of the tree is a slowNode.
	root.RootNode = &slowNode{LoopbackNode: &fs.LoopbackNode{RootData: root}, m: m}
	sec := time.Second
	server, err := fs.Mount(o.Mountpoint, root.RootNode, &fs.Options{
		AttrTimeout: &sec, EntryTimeout: &sec,
		MountOptions: fuse.MountOptions{DirectMountStrict: true, FsName: o.Backing, Name: subtype, MaxBackground: 64, Debug: os.Getenv("ETCDLAB_FUSE_DEBUG") != ""},
	})
	if err != nil {
		return nil, fmt.Errorf("slow disk: mount %s: %v", o.Mountpoint, err)
	}
	m.server = server
	// go-fuse's direct mount (v2.12.1) leaves /dev/fuse inheritable. A
	// member holding it would keep the connection alive after etcdlab is
	// killed, and a member whose fsync the dead server had already read
	// would wait for the answer uninterruptibly, for ever: the kernel aborts
	// a connection only when its last /dev/fuse descriptor closes.
	if err := proc.CloseOnExec(func(target string) bool { return target == "/dev/fuse" }); err != nil {
		_ = m.Unmount()
		return nil, fmt.Errorf("slow disk: %v", err)
	}
	return m, nil
}

// Unmount unmounts, lazily if the mount is busy.
func (m *Mount) Unmount() error {
	if err := m.server.Unmount(); err != nil {
		if err2 := syscall.Unmount(m.opts.Mountpoint, syscall.MNT_DETACH); err2 != nil {
			return fmt.Errorf("unmount %s: %v", m.opts.Mountpoint, err)
		}
	}
	return nil
}

// slowNode is a loopback node whose fsync and fdatasync first wait. go-fuse
// calls it from its own goroutines; it holds no state of its own besides
// the mount's read-only options.
type slowNode struct {
	*fs.LoopbackNode
	m *Mount
}

var (
	_ = (fs.NodeFsyncer)((*slowNode)(nil))
	_ = (fs.NodeWrapChilder)((*slowNode)(nil))
)

// WrapChild makes every node the loopback creates below this one a slowNode.
func (n *slowNode) WrapChild(_ context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	if lb, ok := ops.(*fs.LoopbackNode); ok {
		return &slowNode{LoopbackNode: lb, m: n.m}
	}
	return ops
}

// Fsync delays, then syncs the backing file, keeping fdatasync's semantics
// (flags bit 0) where go-fuse's loopback would always fsync. It ignores
// interrupts, as a disk does: the kernel sends one whenever the caller's
// thread gets a signal (Go's preemption signal, every 10 ms), and answering
// EINTR makes the caller retry and pay the delay again, without end.
func (n *slowNode) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	if n.m.opts.Delay != nil && (n.m.opts.Only == nil || n.m.opts.Only(n.Path(n.Root()))) {
		time.Sleep(n.m.opts.Delay.Sample())
	}
	if pf, ok := f.(fs.FilePassthroughFder); ok {
		if fd, ok := pf.PassthroughFd(); ok {
			if flags&1 != 0 {
				return fs.ToErrno(syscall.Fdatasync(fd))
			}
			return fs.ToErrno(syscall.Fsync(fd))
		}
	}
	if fsy, ok := f.(fs.FileFsyncer); ok {
		return fsy.Fsync(ctx, flags)
	}
	// A directory (etcd syncs its directories): sync the backing path.
	fd, err := syscall.Open(filepath.Join(n.RootData.Path, n.Path(n.Root())), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fs.ToErrno(err)
	}
	defer syscall.Close(fd)
	return fs.ToErrno(syscall.Fsync(fd))
}

// CleanStale removes slowfs mounts under dir whose server is gone. A FUSE
// server killed while a request was pending never finishes dying, and any
// access to its mount blocks forever, so a stale mount is never touched:
// the caller says (alive) whether the etcdlab owning a mount point still
// runs; dead ones have their FUSE connection aborted through the kernel's
// control file system (/sys/fs/fuse/connections, mounted if needed) and are
// lazily unmounted. It returns the mount points it removed.
func CleanStale(dir string, alive func(mountpoint string) bool) []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		a, b := strings.Fields(pre), strings.Fields(post)
		if !ok || len(a) < 5 || len(b) < 1 || b[0] != "fuse."+subtype {
			continue
		}
		mp := strings.ReplaceAll(a[4], `\040`, " ")
		if !strings.HasPrefix(mp, strings.TrimSuffix(dir, "/")+"/") || alive(mp) {
			continue
		}
		if _, minor, ok := strings.Cut(a[2], ":"); ok {
			abortConnection(minor)
		}
		if syscall.Unmount(mp, syscall.MNT_DETACH) == nil {
			out = append(out, mp)
		}
	}
	return out
}

const fusectl = "/sys/fs/fuse/connections"

// abortConnection aborts FUSE connection id, which ends every request
// pending on it.
func abortConnection(id string) {
	abort := filepath.Join(fusectl, id, "abort")
	if _, err := os.Stat(abort); err != nil {
		_ = syscall.Mount("fusectl", fusectl, "fusectl", 0, "")
	}
	_ = os.WriteFile(abort, []byte("1"), 0o200)
}

// MountsUnder lists the mount points of slowfs mounts under dir.
func MountsUnder(dir string) []string {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		pre, post, ok := strings.Cut(l, " - ")
		a, f := strings.Fields(pre), strings.Fields(post)
		if ok && len(a) >= 5 && len(f) >= 1 && f[0] == "fuse."+subtype && strings.HasPrefix(a[4], strings.TrimSuffix(dir, "/")+"/") {
			out = append(out, a[4])
		}
	}
	return out
}
