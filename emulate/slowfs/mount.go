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
	// They may be the same directory (or one inside the other) only when
	// Run mounts in a private mount namespace (EnterPrivateNamespace):
	// there the mount covers the directory, while the server, working in
	// this process's own namespace, sees the real files beneath it.
	Backing, Mountpoint string
	// Delay, if set, is added to every fsync and fdatasync.
	Delay *Delay
	// Only, if set, limits Delay to files whose path (relative to the
	// mount) it accepts, such as etcd's WAL.
	Only func(path string) bool
	// ReadDelay, if set, is added to every read that reaches the file
	// system: a page-cache miss, an O_DIRECT read, a fault of a mapped
	// page (bbolt's); reads the kernel's page cache answers cost nothing,
	// as on a disk. WriteDelay, if set, is added to every write of a file
	// opened with O_DIRECT; buffered writes land in the page cache, as on
	// a disk, and pay at fsync (Delay). Either turns off FUSE passthrough
	// for the mount's files, so the kernel sends their reads and writes
	// here instead of to the backing files.
	ReadDelay, WriteDelay *Delay
	// Run, if set, runs f on the OS thread whose mount namespace is to
	// hold the mount, and returns f's error: the mount and unmount system
	// calls run through it. Nil runs them on the caller's thread.
	//
	// A mount in another namespace than the process's skips go-fuse's
	// poll check (WaitMount, which opens a file in the mount), so that no
	// thread of this process ever waits on its own mount: one that does
	// keeps a kill -9 from finishing. The thread must then not open files
	// in the mount with package os (other processes do that): on Linux the
	// Go runtime registers every opened file with its poller, and for a
	// FUSE file the kernel asks the server, this process, a question while
	// the poller is held, a deadlock. Raw system calls are safe.
	Run func(f func() error) error
}

// WALOnly accepts etcd's WAL files.
func WALOnly(p string) bool { return strings.Contains(p, "member/wal/") }

// Mount is a mounted slow file system. Unmount it when done.
type Mount struct {
	opts   Options
	run    func(func() error) error
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
		return fmt.Errorf("slow-disk emulation needs /dev/fuse: %w", err)
	}
	f.Close()
	return nil
}

// EnterPrivateNamespace moves the calling OS thread into a new mount
// namespace of its own. Mounts made from the thread afterwards exist only
// there: none propagates back to the namespace the process runs in (the
// thread's copy of every mount is made a slave, `mount --make-rslave /`,
// so the host's later mounts and unmounts still reach it). Processes forked
// from the thread are born in the namespace, and the kernel removes it,
// with every mount in it, once the thread and the last of those processes
// have exited, however they exit: nothing is left for anyone to clean up.
//
// The caller must have locked its goroutine to a thread other than the
// main one and must never unlock it, so the thread exits with the
// goroutine: proc.GoLocked makes such a goroutine. Needs root
// (CAP_SYS_ADMIN).
func EnterPrivateNamespace() error {
	// Implies CLONE_FS: the thread stops sharing its root and working
	// directory with the process's other threads, which Linux allows in a
	// multi-threaded process.
	if err := syscall.Unshare(syscall.CLONE_NEWNS); err != nil {
		return fmt.Errorf("create a private mount namespace: %w", err)
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("private mount namespace: make its mounts slaves: %w", err)
	}
	return nil
}

// MountDir mounts o.Backing at o.Mountpoint, through o.Run if it is set.
func MountDir(o Options) (*Mount, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(o.Backing, &st); err != nil {
		return nil, fmt.Errorf("slow disk: %s: %w", o.Backing, err)
	}
	m := &Mount{opts: o, run: o.Run}
	if m.run == nil {
		m.run = func(f func() error) error { return f() }
	}
	root := &fs.LoopbackRoot{Path: o.Backing, Dev: st.Dev}
	// Children are wrapped by the root's WrapChild (NodeWrapChilder), so
	// every node of the tree is a slowNode.
	root.RootNode = &slowNode{LoopbackNode: &fs.LoopbackNode{RootData: root}, m: m}
	sec := time.Second
	opts := &fs.Options{
		AttrTimeout: &sec, EntryTimeout: &sec,
		MountOptions: fuse.MountOptions{DirectMountStrict: true, FsName: o.Backing, Name: subtype, MaxBackground: 64, Debug: os.Getenv("ETCDLAB_FUSE_DEBUG") != ""},
	}
	err := m.run(func() error {
		private, err := privateNamespace()
		if err != nil {
			return err
		}
		if !private && overlap(o.Backing, o.Mountpoint) {
			return fmt.Errorf("it would cover its backing dir %s; that needs a private mount namespace", o.Backing)
		}
		// What fs.Mount does, on this thread: go-fuse's direct mount calls
		// mount(2) and answers the kernel's INIT request in NewServer.
		// Serve runs on other threads, in the process's own namespace,
		// where Backing holds the real files.
		server, err := fuse.NewServer(fs.NewNodeFS(root.RootNode, opts), o.Mountpoint, &opts.MountOptions)
		if err != nil {
			return err
		}
		go server.Serve()
		// WaitMount opens a file in the mount (with poll(2)), so that the
		// kernel's first poll request is answered before this process
		// could poll a file of its own mount (a deadlock). In a private
		// namespace only this thread sees the mount and it opens nothing
		// there (see Options.Run); skipping it means no thread of this
		// process ever waits on its own mount.
		if !private {
			if err := server.WaitMount(); err != nil {
				_ = server.Unmount()
				return err
			}
		}
		m.server = server
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("slow disk: mount %s: %w", o.Mountpoint, err)
	}
	// go-fuse's direct mount (v2.12.1) leaves /dev/fuse inheritable. A
	// member holding it would keep the connection alive after etcdlab is
	// killed, and a member whose fsync the dead server had already read
	// would wait for the answer uninterruptibly, for ever: the kernel aborts
	// a connection only when its last /dev/fuse descriptor closes.
	if err := proc.CloseOnExec(func(target string) bool { return target == "/dev/fuse" }); err != nil {
		_ = m.Unmount()
		return nil, fmt.Errorf("slow disk: %w", err)
	}
	return m, nil
}

// privateNamespace says whether the calling thread's mount namespace is
// not the process's: the main thread's, where go-fuse's server threads
// work (Go makes every unlocked thread from a thread in that state).
func privateNamespace() (bool, error) {
	here, err := os.Readlink("/proc/thread-self/ns/mnt")
	if err != nil {
		return false, err
	}
	process, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return false, err
	}
	return here != process, nil
}

// overlap says whether a mount at mountpoint would cover backing or part
// of it: the server's loopback operations would then come back to it
// through its own mount, unless the mount is in another namespace.
func overlap(backing, mountpoint string) bool {
	b, mp := filepath.Clean(backing)+"/", filepath.Clean(mountpoint)+"/"
	return strings.HasPrefix(b, mp) || strings.HasPrefix(mp, b)
}

// Unmount unmounts (through Options.Run), lazily if the mount is busy.
func (m *Mount) Unmount() error {
	return m.run(func() error {
		if err := m.server.Unmount(); err != nil {
			if err2 := syscall.Unmount(m.opts.Mountpoint, syscall.MNT_DETACH); err2 != nil {
				return fmt.Errorf("unmount %s: %w", m.opts.Mountpoint, err)
			}
		}
		return nil
	})
}

// slowNode is a loopback node whose fsync and fdatasync first wait, and
// whose open files (slowFile) delay reads and writes when asked. go-fuse
// calls it from its own goroutines; it holds no state of its own besides
// the mount's read-only options.
type slowNode struct {
	*fs.LoopbackNode
	m *Mount
}

var (
	_ = (fs.NodeFsyncer)((*slowNode)(nil))
	_ = (fs.NodeWrapChilder)((*slowNode)(nil))
	_ = (fs.NodeOpener)((*slowNode)(nil))
	_ = (fs.NodeCreater)((*slowNode)(nil))
)

// WrapChild makes every node the loopback creates below this one a slowNode.
func (n *slowNode) WrapChild(_ context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	if lb, ok := ops.(*fs.LoopbackNode); ok {
		return &slowNode{LoopbackNode: lb, m: n.m}
	}
	return ops
}

// Open opens the backing file, wrapped (slowFile) when reads or writes
// are delayed.
func (n *slowNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fh, fuseFlags, errno := n.LoopbackNode.Open(ctx, flags)
	return n.m.wrapFile(fh, flags), fuseFlags, errno
}

// Create creates the backing file, wrapped as Open wraps it.
func (n *slowNode) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	ch, fh, fuseFlags, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	return ch, n.m.wrapFile(fh, flags), fuseFlags, errno
}

// wrapFile makes fh, opened with flags, a slowFile when reads or writes
// are delayed; otherwise it is left alone (and the kernel may pass its
// reads and writes straight to the backing file).
func (m *Mount) wrapFile(fh fs.FileHandle, flags uint32) fs.FileHandle {
	lf, ok := fh.(*fs.LoopbackFile)
	if !ok || (m.opts.ReadDelay == nil && m.opts.WriteDelay == nil) {
		return fh
	}
	return &slowFile{LoopbackFile: lf, m: m, direct: flags&syscall.O_DIRECT != 0}
}

// slowFile is an open file whose reads, and writes when it was opened with
// O_DIRECT, first wait (Options.ReadDelay, WriteDelay). go-fuse calls it
// from its own goroutines; its fields are set once, before it is shared.
type slowFile struct {
	*fs.LoopbackFile
	m      *Mount
	direct bool
}

var (
	_ = (fs.FileReader)((*slowFile)(nil))
	_ = (fs.FileWriter)((*slowFile)(nil))
)

// PassthroughFd refuses FUSE passthrough: with it the kernel would read
// and write the backing file itself, and nothing could be delayed.
func (f *slowFile) PassthroughFd() (int, bool) { return 0, false }

// Read waits ReadDelay, ignoring interrupts as Fsync does, then reads.
func (f *slowFile) Read(ctx context.Context, buf []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if d := f.m.opts.ReadDelay; d != nil {
		time.Sleep(d.Sample())
	}
	return f.LoopbackFile.Read(ctx, buf, off)
}

// Write waits WriteDelay if the file was opened with O_DIRECT, then writes.
func (f *slowFile) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	if d := f.m.opts.WriteDelay; d != nil && f.direct {
		time.Sleep(d.Sample())
	}
	return f.LoopbackFile.Write(ctx, data, off)
}

// backingFd is an open file's descriptor of its backing file.
func backingFd(f fs.FileHandle) (int, bool) {
	switch f := f.(type) {
	case *slowFile:
		return f.LoopbackFile.PassthroughFd()
	case fs.FilePassthroughFder:
		return f.PassthroughFd()
	}
	return 0, false
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
	if fd, ok := backingFd(f); ok {
		if flags&1 != 0 {
			return fs.ToErrno(syscall.Fdatasync(fd))
		}
		return fs.ToErrno(syscall.Fsync(fd))
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

// CleanStale removes slowfs mounts under dir whose server is gone, in this
// process's mount namespace. Mounts made in a private namespace
// (EnterPrivateNamespace, as lab/cluster does) never need it: they go with
// their namespace. It cleans up after callers that mount without one, and
// after etcdlab versions that mounted slow disks in the host's namespace.
// A FUSE server killed while a request was pending never finishes dying,
// and any access to its mount blocks forever, so a stale mount is never
// touched: the caller says (alive) whether the etcdlab owning a mount point
// still runs; dead ones have their FUSE connection aborted through the
// kernel's control file system (/sys/fs/fuse/connections, mounted if
// needed) and are lazily unmounted. It returns the mount points it removed.
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

// MountsUnder lists the mount points of slowfs mounts under dir in this
// process's mount namespace (its main thread's).
func MountsUnder(dir string) []string { return mountsIn("/proc/self/mountinfo", dir) }

// MountsOf lists the mount points of slowfs mounts under dir that process
// pid sees: the mounts of its mount namespace.
func MountsOf(pid int, dir string) []string {
	return mountsIn(fmt.Sprintf("/proc/%d/mountinfo", pid), dir)
}

func mountsIn(mountinfo, dir string) []string {
	b, err := os.ReadFile(mountinfo)
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		pre, post, ok := strings.Cut(l, " - ")
		a, f := strings.Fields(pre), strings.Fields(post)
		if ok && len(a) >= 5 && len(f) >= 1 && f[0] == "fuse."+subtype && strings.HasPrefix(a[4]+"/", strings.TrimSuffix(dir, "/")+"/") {
			out = append(out, strings.ReplaceAll(a[4], `\040`, " "))
		}
	}
	return out
}
