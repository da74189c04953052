package cluster

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/etcdlab/etcdlab/result"
)

// FaultSnapshot is one snapshot save, as Counts names it.
const FaultSnapshot = result.OpSnapshot

// snapshot saves a member's database, as an operator's `etcdctl snapshot
// save --endpoints MEMBER`: etcd streams its whole backend, which the
// fault writes to a file in the cluster's data directory (the system's
// temporary directory when that is gone), fsyncs, measures (Bytes) and
// removes. It records how long the member and the cluster answered
// nothing meanwhile.
type snapshot struct{}

func (snapshot) About() About {
	return About{Name: FaultSnapshot, Args: "one member name", MinArgs: 1, MaxArgs: 1, Usage: "MEMBER",
		Help:    "save a snapshot of the member's database to a temporary file (removed after), timing the window in which it answers nothing",
		Timeout: maintenanceTimeout}
}

func (f snapshot) Apply(c *Cluster, r Request) error { return applyLong(f, c, r) }

func (f snapshot) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	return injectLong(ctx, f, st, r)
}

func (f snapshot) Run(ctx context.Context, c *Cluster, r Request) (Outcome, error) {
	return runCounted(ctx, f, c, r)
}

func (snapshot) RunIn(ctx context.Context, st State, r Request) (Outcome, error) {
	m, err := stateMember(st, r.arg(0))
	if err != nil {
		return Outcome{}, err
	}
	rec := &result.MaintenanceOp{Op: result.OpSnapshot, Member: m.Name}
	cli, err := memberClient(ctx, st.Client(), m.ClientURL)
	if err != nil {
		return maintained(rec, "", err)
	}
	defer cli.Close()
	dir := st.DataDir
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = os.TempDir()
	}
	err = watched(ctx, st.Client(), m.ClientURL, rec, func(ctx context.Context) error {
		n, err := saveSnapshot(ctx, cli.Snapshot, dir)
		rec.Bytes = n
		return err
	})
	if err != nil {
		return maintained(rec, "", err)
	}
	return maintained(rec, fmt.Sprintf("saved a snapshot of %s (%s) in %.2fs", m.Name, ibytes(rec.Bytes), rec.Seconds)+blockedLine(m.Name, rec), nil)
}

// saveSnapshot copies the stream open opens to a new file in dir, fsyncs
// it, removes it, and returns how many bytes it held.
func saveSnapshot(ctx context.Context, open func(context.Context) (io.ReadCloser, error), dir string) (int64, error) {
	rc, err := open(ctx)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	f, err := os.CreateTemp(dir, "etcdlab-snapshot-*.db")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	n, err := io.Copy(f, rc)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
