package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/emulate/labnet"
	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/emulate/syscalldelay"
	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cgroup"
	"github.com/etcdlab/etcdlab/lab/child"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/lab/member"
)

// Cluster is a running local cluster. Its methods are safe for concurrent
// use; Stop must be called exactly once to release processes and files.
type Cluster struct {
	opts  Options
	dir   *dataDir
	sp    *child.Spawner
	names []string
	ports []memberPorts
	token string
	ctl   proc.ID

	// etcd is each member's etcd (by index of names); it changes only
	// in Upgrade, under mu.
	etcd []memberEtcd

	clientTLS *ClientTLS
	cfgs      []member.Config
	mounts    []*slowfs.Mount
	delays    syscallDelays
	net       *network // nil unless the network is emulated

	defrags defragLoops

	mu        sync.Mutex
	tally     tally
	inUpgrade map[string]bool // members Upgrade is replacing: their exit is planned
	procs     []*child.Process
	ids       []string
	started   time.Time
	stopping  atomic.Bool
	kept      string
}

// maxAttempts bounds retries when a free port was taken before a member
// could bind it.
const maxAttempts = 3

// Start starts a cluster and waits until every member is healthy and they
// agree on a leader. On error nothing is left running and nothing it made is
// left on disk; the error is one line: a *StartError when a member failed,
// with the tail of its log, and an invalid-input error (package invalid)
// for options that are bad or contradict a kept cluster in DataDir.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if os.Getenv(member.EnvConfig) != "" {
		// A test binary re-executed as a member whose package has no
		// TestMain calling member.RunTests runs its tests instead, and
		// they would start clusters of their own, without end.
		return nil, errors.New("this process was started as an etcd member (" + member.EnvConfig + " is set) and must not start a cluster: a test package that starts clusters needs a TestMain calling member.RunTests")
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	for _, w := range opts.Warnings() {
		fmt.Fprintln(opts.Log, w)
	}
	sweepCgroups(opts.Log)
	if opts.slowDisk() {
		if err := slowfs.Available(); err != nil {
			return nil, err
		}
	}
	if opts.seccompDelays() {
		if err := syscalldelay.Available(); err != nil {
			return nil, err
		}
	}
	if opts.Links != nil {
		if err := labnet.Available(); err != nil {
			return nil, err
		}
	}
	if opts.budgeted() {
		if _, err := cgroup.Open(0); err != nil {
			return nil, &BudgetError{Err: err}
		}
	}
	d, err := prepareDataDir(&opts)
	if err != nil {
		return nil, err
	}
	c := &Cluster{opts: opts, dir: d}
	c.ctl, _ = proc.Self()
	if err := c.plan(); err != nil {
		c.abort()
		return nil, err
	}
	if err := c.resolveEtcd(ctx); err != nil {
		c.abort()
		return nil, err
	}
	if c.opts.Links != nil {
		if c.net, err = startNetwork(c.names, c.opts.Host, c.ports, c.opts.Links); err != nil {
			c.abort()
			return nil, err
		}
	}
	c.sp = child.NewSpawner(c.enterNamespaces()...)
	for attempt := 1; ; attempt++ {
		err := c.launch(ctx)
		if err == nil && opts.Leader != "" {
			if err := c.MoveLeader(ctx, opts.Leader); err != nil {
				_ = c.Stop()
				return nil, err
			}
		}
		if err == nil {
			return c, nil
		}
		var se *StartError
		// Emulated members bind in their own namespace, where nothing else is.
		retry := attempt < maxAttempts && opts.PortBase == 0 && d.layout == nil && c.net == nil && errors.As(err, &se) && se.LogSays("address already in use")
		c.stopAll(time.Second)
		c.unmountAll()
		if !retry {
			c.abort()
			return nil, err
		}
		fmt.Fprintf(opts.Log, "a port was taken while starting (%v); retrying with new ports\n", err)
		d.resetMembers(c.names)
		if c.ports, err = freePorts(opts.Host, len(c.names)); err != nil {
			c.abort()
			return nil, err
		}
	}
}

// plan chooses names, ports and the cluster token, reusing the layout of a
// kept cluster, and checks that chosen ports are free.
func (c *Cluster) plan() error {
	o := c.opts
	if l := c.dir.layout; l != nil {
		c.names, c.ports, c.token = l.Names, l.Ports, l.Token
		if o.PortBase != 0 && o.PortBase != l.Ports[0].Client {
			return invalid.Errorf("data dir %s holds a cluster on ports from %d; drop {PortBase} or choose another {DataDir}", c.dir.root, l.Ports[0].Client)
		}
		c.opts.Host = l.Host
		switch {
		case l.Emulated && o.Links == nil:
			c.opts.Links = map[wan.Dir]wan.Link{} // its peer URLs live in a namespace
		case !l.Emulated && o.Links != nil:
			return invalid.Errorf("data dir %s holds a cluster made without network emulation; {Links} need a new data dir", c.dir.root)
		}
		fmt.Fprintf(o.Log, "restarting the %d-member cluster kept in %s\n", len(l.Names), c.dir.root)
		return checkPortsFree(c.opts.Host, c.names, c.ports)
	}
	c.names = make([]string, o.Members)
	for i := range c.names {
		c.names[i] = memberName(i + 1)
	}
	c.token = fmt.Sprintf("etcdlab-%d-%d", os.Getpid(), time.Now().UnixNano())
	if o.PortBase != 0 {
		c.ports = fixedPorts(o.PortBase, o.Members)
		return checkPortsFree(o.Host, c.names, c.ports)
	}
	var err error
	c.ports, err = freePorts(o.Host, o.Members)
	return err
}

// enterNamespaces says what the spawning thread enters before it starts
// members, which are born where it is: the emulated network's namespace,
// and for slow disks a private mount namespace, where the slow file
// systems are mounted. Only that thread and the members see those mounts,
// and the kernel drops them with the namespace when etcdlab and its
// members are gone, even after a kill -9.
func (c *Cluster) enterNamespaces() []func() error {
	var enter []func() error
	if c.net != nil {
		enter = append(enter, func() error {
			if err := c.net.ns.Enter(); err != nil {
				return fmt.Errorf("enter the emulated network: %w", err)
			}
			return nil
		})
	}
	if c.opts.slowDisk() {
		enter = append(enter, slowfs.EnterPrivateNamespace)
	}
	return enter
}

// launch writes configurations, starts every member and waits for health.
func (c *Cluster) launch(ctx context.Context) error {
	o := c.opts
	scheme := "http"
	var memberTLS map[string]*member.TLSFiles
	if o.TLS {
		scheme = "https"
		clientDir := o.ClientTLSDir
		if clientDir == "" {
			clientDir = c.dir.tlsDir()
		}
		var err error
		memberTLS, c.clientTLS, err = writePKI(c.dir.tlsDir(), clientDir, o.Host, c.names, c.net != nil)
		if err != nil {
			return err
		}
	}
	url := func(s string, port int) string { return s + "://" + net.JoinHostPort(o.Host, strconv.Itoa(port)) }
	peerURLs := make([]string, len(c.names))
	for i, p := range c.ports {
		peerURLs[i] = url(scheme, p.Peer)
		if c.net != nil {
			_, _, _, peerURLs[i] = memberURLs(scheme, i)
		}
	}
	initial := member.InitialCluster(c.names, peerURLs)
	c.cfgs = make([]member.Config, len(c.names))
	for i, n := range c.names {
		dir := c.dir.memberDir(n)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("member %s: %w", n, unwrapPath(err))
		}
		if err := c.mountSlow(n, dir); err != nil {
			return fmt.Errorf("member %s: %w", n, err)
		}
		// The member's log and configuration live in its dir. On a slow
		// disk the member reaches them through the mount; this process, in
		// its own mount namespace, reads and writes the real files.
		c.cfgs[i] = member.Config{
			Name: n, DataDir: dir,
			ClientURL: url(scheme, c.ports[i].Client), PeerURL: peerURLs[i], MetricsURL: url("http", c.ports[i].Metrics),
			InitialCluster: initial, ClusterToken: c.token, TLS: memberTLS[n], Tuning: o.Tuning,
			LogFile: filepath.Join(dir, "etcd.log"), Version: c.etcd[i].version,
		}
		if c.net != nil {
			cfg := &c.cfgs[i]
			cfg.ListenClientURL, cfg.ListenPeerURL, cfg.ListenMetricsURL, _ = memberURLs(scheme, i)
			cfg.FeatureGates = memberLocalAddrs
		}
		if err := c.cfgs[i].WriteFile(filepath.Join(dir, "member.yaml")); err != nil {
			return fmt.Errorf("member %s: write config: %w", n, unwrapPath(err))
		}
	}
	if err := writeJSON(filepath.Join(c.dir.root, layoutFile), layout{
		Token: c.token, Host: o.Host, TLS: o.TLS, Names: c.names, Ports: c.ports, Emulated: c.net != nil, CreatedAt: time.Now().UTC(),
	}); err != nil {
		return fmt.Errorf("data dir %s: %w", c.dir.root, unwrapPath(err))
	}
	c.mu.Lock()
	c.procs = make([]*child.Process, len(c.names))
	c.tally = newTally() // a retry with new ports starts counting again
	c.mu.Unlock()
	for i := range c.names {
		if err := c.spawn(i); err != nil {
			return err
		}
	}
	return c.waitReady(ctx)
}

// spawn starts member i's process from its written configuration.
func (c *Cluster) spawn(i int) error {
	c.mu.Lock()
	cfg, bin := c.cfgs[i], c.etcd[i].bin
	c.mu.Unlock()
	p, err := c.startMember(c.opts.Executable, bin, cfg.Name, filepath.Join(filepath.Dir(cfg.LogFile), "member.yaml"), cfg.LogFile)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.procs[i] = p
	c.tally.starts[cfg.Name]++
	c.mu.Unlock()
	return c.applyBudget(i, p.ID().PID)
}

// exited is called when member name's process p is reaped.
func (c *Cluster) exited(name string, p *child.Process) {
	if c.stopping.Load() {
		return
	}
	c.mu.Lock()
	c.tally.exits[name]++
	planned := c.inUpgrade[name]
	c.mu.Unlock()
	if c.opts.OnExit == nil || planned {
		return
	}
	_, err := p.Exited()
	c.opts.OnExit(name, err)
}

// stopAll tears down every member process, in parallel.
func (c *Cluster) stopAll(grace time.Duration) {
	c.mu.Lock()
	procs := append([]*child.Process(nil), c.procs...)
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		if p == nil {
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); p.Stop(member.TeardownSignal, grace) }()
	}
	wg.Wait()
}

// mountSlow mounts the slow file system over a member's dir, from the
// spawning thread, in its private mount namespace: there the mount covers
// dir, while the FUSE server, working in this process's namespace, passes
// every operation on to the real dir beneath it. Anyone outside sees the
// member's real files in dir, and no mount.
func (c *Cluster) mountSlow(name, dir string) error {
	if len(c.opts.SlowedOps(name)) == 0 {
		return nil
	}
	o := slowfs.Options{Backing: dir, Mountpoint: dir, Delay: c.opts.fuseFsyncDelay(name), ReadDelay: c.opts.ReadDelay, WriteDelay: c.opts.WriteDelay, Run: c.sp.Do}
	if c.opts.FsyncWALOnly {
		o.Only = slowfs.WALOnly
	}
	m, err := slowfs.MountDir(o)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.mounts = append(c.mounts, m)
	c.mu.Unlock()
	return nil
}

// unmountAll removes the slow file systems; call after the members stopped
// and before the spawner is closed (the unmounts run on its thread).
func (c *Cluster) unmountAll() {
	c.mu.Lock()
	ms := c.mounts
	c.mounts = nil
	c.mu.Unlock()
	for _, m := range ms {
		_ = m.Unmount()
	}
}

// closeNetwork stops the link proxies and leaves the namespace; call after
// the members stopped.
func (c *Cluster) closeNetwork() {
	if c.net != nil {
		c.net.close()
	}
}

// abort releases everything after a failed start.
func (c *Cluster) abort() {
	c.stopping.Store(true)
	c.stopAll(time.Second)
	_ = c.removeCgroups()
	c.closeNetwork()
	c.closeDelays()
	c.unmountAll()
	if c.sp != nil {
		c.sp.Close()
	}
	removeClientTLS(c.clientTLS)
	c.kept, _ = c.dir.release(c.names)
}

// Stop stops the members gracefully (each gets a few seconds before it is
// killed) and removes what the cluster made, unless the data is kept.
// Calling Stop again is a no-op.
func (c *Cluster) Stop() error {
	if c.stopping.Swap(true) {
		return nil
	}
	c.stopDefrags()
	cgErr := c.removeCgroups() // a member with its CPU limited would stop slowly
	c.stopAll(10 * time.Second)
	c.closeNetwork()
	c.closeDelays()
	c.unmountAll()
	c.sp.Close()
	if c.opts.ClientTLSDir != "" {
		removeClientTLS(c.clientTLS)
	}
	var err error
	c.kept, err = c.dir.release(c.names)
	if err != nil {
		return fmt.Errorf("clean up %s: %w", c.dir.root, err)
	}
	if cgErr != nil {
		return fmt.Errorf("remove the cluster's cgroups: %w", cgErr)
	}
	return nil
}

// KeptDataDir returns the data directory if Stop kept it, or "".
func (c *Cluster) KeptDataDir() string { return c.kept }

// DataDir returns the cluster's data directory.
func (c *Cluster) DataDir() string { return c.dir.root }

// Names returns the member names, m1 to mN.
func (c *Cluster) Names() []string { return append([]string(nil), c.names...) }

// Endpoints returns the members' client URLs.
func (c *Cluster) Endpoints() []string {
	out := make([]string, len(c.cfgs))
	for i, cfg := range c.cfgs {
		out[i] = cfg.ClientURL
	}
	return out
}

// Client returns the settings a client needs to reach the cluster.
func (c *Cluster) Client() etcdclient.Config {
	cc := etcdclient.Config{Endpoints: c.Endpoints()}
	if c.clientTLS != nil {
		cc.CACert, cc.Cert, cc.Key = c.clientTLS.CACert, c.clientTLS.Cert, c.clientTLS.Key
	}
	return cc
}

// State describes the cluster as the state file records it.
func (c *Cluster) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := State{
		SchemaVersion: StateSchemaVersion, Controller: c.ctl, StartedAt: c.started, EtcdVersion: versionSummary(c.names, c.etcd), EtcdBinary: c.opts.Etcd,
		DataDir: c.dir.root, TLS: c.clientTLS, Emulated: c.net != nil,
	}
	for i, cfg := range c.cfgs {
		m := MemberState{Name: cfg.Name, ClientURL: cfg.ClientURL, PeerURL: cfg.PeerURL, MetricsURL: cfg.MetricsURL, DataDir: cfg.DataDir, LogFile: cfg.LogFile, CPUs: c.opts.cpus(cfg.Name), MemoryBytes: c.opts.Memory,
			EtcdVersion: c.etcd[i].version, EtcdBinary: c.etcd[i].bin}
		if i < len(c.ids) {
			m.ID = c.ids[i]
		}
		if p := c.procs[i]; p != nil {
			m.PID, m.StartTime = p.ID().PID, p.ID().StartTime
		}
		s.Members = append(s.Members, m)
		s.Endpoints = append(s.Endpoints, cfg.ClientURL)
		s.MetricsURLs = append(s.MetricsURLs, cfg.MetricsURL)
	}
	return s
}

// index finds a member by name.
func (c *Cluster) index(name string) (int, error) {
	for i, n := range c.names {
		if n == name {
			return i, nil
		}
	}
	return 0, invalid.Errorf("no member %q (members are %v)", name, c.names)
}

func (c *Cluster) proc(name string) (*child.Process, error) {
	i, err := c.index(name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.procs[i], nil
}

// Kill sends SIGKILL to a member and waits until its process is gone.
func (c *Cluster) Kill(name string) error {
	p, err := c.proc(name)
	if err != nil {
		return err
	}
	return c.counted(FaultKill, p.Kill())
}

// Pause stops a member's process with SIGSTOP: it keeps its sockets but
// answers nothing, like a hung machine.
func (c *Cluster) Pause(name string) error {
	p, err := c.proc(name)
	if err != nil {
		return err
	}
	return c.counted(FaultPause, p.Signal(syscall.SIGSTOP))
}

// Resume continues a paused member (SIGCONT).
func (c *Cluster) Resume(name string) error {
	p, err := c.proc(name)
	if err != nil {
		return err
	}
	return c.counted(FaultResume, p.Signal(syscall.SIGCONT))
}

// Restart starts a member that has exited (after Kill, say) again on its
// data, with the same configuration.
func (c *Cluster) Restart(name string) error {
	return c.counted(FaultRestart, c.restart(name))
}

// restart is Restart, uncounted (a fault that restarts a member as its
// own step: catch-up).
func (c *Cluster) restart(name string) error {
	if c.stopping.Load() {
		return errors.New("cluster is stopping")
	}
	i, err := c.index(name)
	if err != nil {
		return err
	}
	c.mu.Lock()
	p := c.procs[i]
	c.mu.Unlock()
	if done, _ := p.Exited(); !done {
		return fmt.Errorf("member %s is still running", name)
	}
	return c.spawn(i)
}
