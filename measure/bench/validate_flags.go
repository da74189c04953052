package bench

import (
	"math"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/server/v3/embed"
	"google.golang.org/protobuf/proto"
)

// Validate checks what only subcommand name's parsed command line shows,
// before anything runs; Config.Validate checks the rest. A flag given with
// the value that means "not given" in Config (--agents 0, --members 0) is
// refused rather than read as the default, a negative --dial-timeout is
// refused (CommandLine turns it into the default), a local cluster's size
// must be one etcdlab starts, and each write must fit in etcd's default
// request limit (ValidateRequestSize). changed reports whether a flag was
// given. It reads f and nothing else; call it from one goroutine.
func (f *Flags) Validate(name string, args []string, changed func(flag string) bool) error {
	o := &f.global
	if changed("agents") && o.agents < 1 {
		return invalid.Errorf("{Agents} must be at least 1, not %d", o.agents)
	}
	if o.conn.DialTimeout < 0 {
		return invalid.Errorf("{DialTimeout} must not be negative, not %s", o.conn.DialTimeout)
	}
	if len(o.conn.Endpoints) == 0 && (changed("members") || o.members != 0) &&
		(o.members < cluster.MinMembers || o.members > cluster.MaxMembers) {
		return invalid.Errorf("{LocalMembers} must be between %d and %d, not %d", cluster.MinMembers, cluster.MaxMembers, o.members)
	}
	return f.CommandLine(name, args, changed).Config.ValidateRequestSize()
}

// RequestLimit is the largest request a member accepts with etcd's
// default --max-request-bytes (1.5 MiB): the marshalled raft request
// (the request and its header), which the server refuses above it
// ("etcdserver: request is too large"). Local clusters run with it;
// clusters etcdlab did not start almost always do.
const RequestLimit = embed.DefaultMaxRequestBytes

// ValidateRequestSize checks that the largest write the command sends fits
// in RequestLimit: a request that cannot fit fails every time, so the run
// would measure nothing but errors. Commands that write no values pass.
func (c Config) ValidateRequestSize() error {
	n := c.requestBytes()
	if n <= RequestLimit {
		return nil
	}
	what := "{KeySize} + {ValSize}"
	if c.Command == CmdTxnPut {
		what = "{TxnOps} × ({KeySize} + {ValSize})"
	}
	return invalid.Errorf("a %s request of "+what+" is %d bytes, above etcd's default request limit of %d bytes (--max-request-bytes, 1.5 MiB); lower {ValSize}",
		c.Command, n, int(RequestLimit))
}

// requestBytes is the size of the command's largest write as a member
// checks it against --max-request-bytes: the raft request with a header
// of the largest ID and auth revision and the run's user; 0 for commands
// that write no values. A value above the limit counts as the limit plus
// one byte, so that nothing larger is allocated.
func (c Config) requestBytes() int {
	prefix := c.Prefix
	if prefix == "" { // the default prefix's length
		prefix = "/etcdlab/bench/" + RunID(time.Now()) + "/"
	}
	val := make([]byte, min(max(c.ValSize, 0), RequestLimit+1))
	key := []byte(prefix + strings.Repeat("f", min(max(c.KeySize, 0), RequestLimit+1)))
	user, _, _ := strings.Cut(c.Conn.User, ":")
	req := &pb.InternalRaftRequest{Header: &pb.RequestHeader{ID: math.MaxUint64, Username: user, AuthRevision: math.MaxUint64}}
	put := func(k []byte) *pb.RequestOp {
		return &pb.RequestOp{Request: &pb.RequestOp_RequestPut{RequestPut: &pb.PutRequest{Key: k, Value: val}}}
	}
	switch c.Command {
	case CmdPut:
		req.Put = &pb.PutRequest{Key: key, Value: val}
	case CmdWatchLatency:
		req.Put = &pb.PutRequest{Key: []byte(prefix + "watch"), Value: val}
	case CmdTxnMixed:
		req.Txn = &pb.TxnRequest{Success: []*pb.RequestOp{put(key)}}
	case CmdTxnPut:
		// One operation's size times TxnOps, without building them all:
		// the sizes of one and of two operations give each one's share,
		// and the transaction's length prefix grows by at most 2 bytes.
		req.Txn = &pb.TxnRequest{Success: []*pb.RequestOp{put(key)}}
		one := proto.Size(req)
		req.Txn.Success = append(req.Txn.Success, put(key))
		each := proto.Size(req) - one
		return one + (min(max(c.TxnOps, 1), RequestLimit)-1)*each + 2
	default:
		return 0
	}
	return proto.Size(req)
}
