package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/result"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// membership is step 1's reading: the member list (from any endpoint that
// answers), then every member's status and alarms from its own endpoint.
// Members come in the order of the endpoints given, then the members the
// list names that the endpoints did not. Notes say what could not be read.
func membership(ctx context.Context, conn etcdclient.Config) ([]result.DoctorMember, []string) {
	var notes []string
	members := make([]result.DoctorMember, len(conn.Endpoints))
	for i, ep := range conn.Endpoints {
		members[i] = result.DoctorMember{Name: ep, Endpoint: ep}
	}
	list, err := memberList(ctx, conn)
	if err != nil {
		notes = append(notes, "the member list could not be read from any endpoint: "+err.Error())
	}
	for _, m := range list {
		i := indexOfURL(members, m.ClientURLs)
		if i < 0 {
			if len(m.ClientURLs) == 0 {
				continue // a member added but not started
			}
			members = append(members, result.DoctorMember{Endpoint: m.ClientURLs[0]})
			i = len(members) - 1
		}
		members[i].Name, members[i].ID, members[i].IsLearner = m.Name, fmt.Sprintf("%x", m.ID), m.IsLearner
		if members[i].Name == "" {
			members[i].Name = members[i].Endpoint
		}
	}
	parallel(len(members), func(i int) { status(ctx, conn, &members[i]) })
	return members, notes
}

// memberList asks every endpoint at once and takes the first answer: the
// others are cancelled then, so that a member cut off from its peers
// (whose MemberList waits for a leader) does not hold the diagnosis for
// the request's deadline.
func memberList(ctx context.Context, conn etcdclient.Config) ([]*pb.Member, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	type answer struct {
		list []*pb.Member
		err  error
	}
	answers := make(chan answer, len(conn.Endpoints))
	for _, ep := range conn.Endpoints {
		go func() {
			if err := reach(ctx, ep); err != nil {
				answers <- answer{err: fmt.Errorf("%s: %w", ep, err)}
				return
			}
			cli, err := one(conn, ep)
			if err != nil {
				answers <- answer{err: err}
				return
			}
			defer cli.Close()
			resp, err := cli.MemberList(ctx)
			if err != nil {
				answers <- answer{err: fmt.Errorf("%s: %w", ep, etcdclient.Explain(err))}
				return
			}
			answers <- answer{list: resp.Members}
		}()
	}
	var errs []error
	for range conn.Endpoints {
		a := <-answers
		if a.err == nil {
			return a.list, nil // the others end with ctx, their answers buffered
		}
		errs = append(errs, a.err)
	}
	return nil, errors.Join(errs...)
}

// reach fails fast, with the reason, when nothing accepts TCP connections
// at an endpoint (a gRPC client would wait for its deadline instead).
func reach(ctx context.Context, ep string) error {
	_, err := connect(ctx, hostPort(ep))
	return err
}

// one is a client of endpoint ep only.
func one(conn etcdclient.Config, ep string) (*clientv3.Client, error) {
	c := conn
	c.Endpoints = []string{ep}
	if c.DialTimeout <= 0 || c.DialTimeout > requestTimeout {
		c.DialTimeout = requestTimeout
	}
	return etcdclient.New(c)
}

// status fills m from its endpoint's Status and the alarms it reports.
func status(ctx context.Context, conn etcdclient.Config, m *result.DoctorMember) {
	if err := reach(ctx, m.Endpoint); err != nil {
		m.Error = err.Error()
		return
	}
	cli, err := one(conn, m.Endpoint)
	if err != nil {
		m.Error = err.Error()
		return
	}
	defer cli.Close()
	cctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	st, err := cli.Status(cctx, m.Endpoint)
	if err != nil {
		m.Error = etcdclient.Describe(err)
		// reach connected above: the kernel took the connection, the
		// process did not answer in time.
		m.Unresponsive = cctx.Err() != nil && ctx.Err() == nil
		return
	}
	m.Reachable = true
	m.Version = st.Version
	m.ClusterID = fmt.Sprintf("%x", st.Header.ClusterId)
	m.LeaderID = fmt.Sprintf("%x", st.Leader)
	if m.ID == "" {
		m.ID = fmt.Sprintf("%x", st.Header.MemberId)
	}
	m.IsLeader = st.Leader != 0 && st.Leader == st.Header.MemberId
	m.IsLearner = m.IsLearner || st.IsLearner
	m.RaftIndex, m.RaftAppliedIndex, m.RaftTerm = st.RaftIndex, st.RaftAppliedIndex, st.RaftTerm
	m.DBSize, m.DBInUse = st.DbSize, st.DbSizeInUse
	// AlarmList is a read: an AlarmRequest with the GET action.
	if al, err := cli.AlarmList(cctx); err == nil {
		for _, a := range al.Alarms {
			if fmt.Sprintf("%x", a.MemberID) == m.ID {
				m.Alarms = append(m.Alarms, a.Alarm.String())
			}
		}
	}
}

// atEnd asks every member for its Status once more, at the end of the
// window: whether it answers now and its raft indexes (a member that
// was catching up at the start has come closer to the leader, or now
// answers). A read, like the first, with a shorter deadline (endTimeout):
// it must not lengthen the diagnosis of a member that stalls.
func atEnd(ctx context.Context, conn etcdclient.Config, members []result.DoctorMember) {
	parallel(len(members), func(i int) {
		m := &members[i]
		if err := reach(ctx, m.Endpoint); err != nil {
			return
		}
		cli, err := one(conn, m.Endpoint)
		if err != nil {
			return
		}
		defer cli.Close()
		cctx, cancel := context.WithTimeout(ctx, endTimeout)
		defer cancel()
		if st, err := cli.Status(cctx, m.Endpoint); err == nil {
			m.AnsweredAtEnd, m.RaftIndexAtEnd, m.AppliedAtEnd = true, st.RaftIndex, st.RaftAppliedIndex
		}
	})
}

// endTimeout bounds the Status at the end of the window.
const endTimeout = time.Second

// indexOfURL finds the member whose endpoint is one of urls.
func indexOfURL(ms []result.DoctorMember, urls []string) int {
	for i, m := range ms {
		for _, u := range urls {
			if sameURL(m.Endpoint, u) {
				return i
			}
		}
	}
	return -1
}

// sameURL compares endpoints with or without their scheme.
func sameURL(a, b string) bool {
	strip := func(s string) string {
		if _, rest, ok := strings.Cut(s, "://"); ok {
			return rest
		}
		return s
	}
	return strip(a) == strip(b)
}
