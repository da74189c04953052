package load

import (
	"slices"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

func TestSpecValidate(t *testing.T) {
	t.Parallel()
	ok := Spec{Clients: 1, Total: 1, RequestTimeout: time.Second}
	for _, tc := range []struct {
		name   string
		mod    func(*Spec)
		params []string // fields the error names; nil: valid
	}{
		{"valid", func(*Spec) {}, nil},
		{"duration only", func(s *Spec) { s.Total, s.Duration = 0, time.Second }, nil},
		{"open loop", func(s *Spec) { s.Rate = 100 }, nil},
		{"no clients", func(s *Spec) { s.Clients = 0 }, []string{"Clients"}},
		{"negative total", func(s *Spec) { s.Total = -1 }, []string{"Total"}},
		{"negative duration", func(s *Spec) { s.Duration = -time.Second }, []string{"Duration"}},
		{"no bound", func(s *Spec) { s.Total = 0 }, []string{"Total", "Duration"}},
		{"negative rate", func(s *Spec) { s.Rate = -1 }, []string{"Rate"}},
		{"no timeout", func(s *Spec) { s.RequestTimeout = 0 }, []string{"RequestTimeout"}},
		{"curve only", func(s *Spec) { s.Total, s.Curve = 0, Curve{{time.Second, 10}} }, nil},
		{"curve negative rate", func(s *Spec) { s.Curve = Curve{{time.Second, -1}} }, []string{"Curve"}},
		{"curve negative length", func(s *Spec) { s.Curve = Curve{{-time.Second, 1}} }, []string{"Curve"}},
	} {
		s := ok
		tc.mod(&s)
		if got := invalidParams(s.Validate()); !slices.Equal(got, tc.params) {
			t.Errorf("%s: error names %v, want %v", tc.name, got, tc.params)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		o      Options
		params []string
	}{
		{Options{Conns: 1}, nil},
		{Options{Conns: 3, Transport: GRPC}, nil},
		{Options{Conns: 0}, []string{"Conns"}},
		{Options{Conns: 1, Transport: "quic"}, []string{"Transport"}},
	} {
		if got := invalidParams(tc.o.Validate()); !slices.Equal(got, tc.params) {
			t.Errorf("%+v: error names %v, want %v", tc.o, got, tc.params)
		}
	}
}

func TestChoose(t *testing.T) {
	t.Parallel()
	user := etcdclient.Config{User: "root:pw"}
	for _, tc := range []struct {
		asked TransportKind
		w     Workload
		conn  etcdclient.Config
		want  Choice
	}{
		{"", Put{}, etcdclient.Config{}, Choice{Wire, ReasonDefault}},
		{Wire, Range{}, etcdclient.Config{}, Choice{Wire, ReasonAsked}},
		{GRPC, TxnPut{}, etcdclient.Config{}, Choice{GRPC, ReasonAsked}},
		{Wire, TxnMixed{}, user, Choice{GRPC, ReasonAuth}},
		{"", LeaseKeepalive{TTL: 10}, etcdclient.Config{}, Choice{GRPC, ReasonStreaming}},
		{Wire, LeaseKeepalive{TTL: 10}, user, Choice{GRPC, ReasonStreaming}},
		{Wire, leasesOnly{}, etcdclient.Config{}, Choice{GRPC, ReasonLeases}},
	} {
		if got := Choose(tc.asked, tc.w, tc.conn); got != tc.want {
			t.Errorf("%q %T user %q: %+v, want %+v", tc.asked, tc.w, tc.conn.User, got, tc.want)
		}
		if got := Choose(tc.asked, tc.w, tc.conn); got.Reason.String() == "" {
			t.Errorf("%+v: no words for the reason", got)
		}
	}
}

// leasesOnly is a unary workload that holds leases.
type leasesOnly struct{ Put }

func (leasesOnly) Needs() Needs { return Needs{Methods: []Method{MethodPut}, LeaseTTL: 5} }
