package cluster

import (
	"net"
	"strconv"
	"testing"

	"github.com/etcdlab/etcdlab/lab/member"
)

func listen(t *testing.T, port int) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func tuning(hb, el uint) member.Tuning { return member.Tuning{HeartbeatMs: hb, ElectionMs: el} }
