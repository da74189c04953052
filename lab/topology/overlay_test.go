package topology

import (
	"reflect"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/result"
)

func dur(d time.Duration) *result.Duration {
	r := result.Duration(d)
	return &r
}

// TestWithOverlay lays `cluster up`'s flags over topologies: --rtt
// replaces the member links and keeps the client links, --client-rtt the
// reverse; nothing laid over nothing emulates nothing.
func TestWithOverlay(t *testing.T) {
	t.Parallel()
	links := func() []Link {
		return []Link{
			{Between: []string{"m1", "m2"}, RTT: result.Duration(10 * time.Millisecond)},
			{From: "client", To: "m1", Delay: result.Duration(time.Millisecond)},
			{Between: []string{"m3", "client"}, RTT: result.Duration(4 * time.Millisecond)},
		}
	}
	for _, tc := range []struct {
		name string
		tp   *Topology
		o    Overlay
		want *Topology
	}{
		{"nothing", nil, Overlay{}, nil},
		{"untouched", &Topology{Name: "x", Links: links()}, Overlay{}, &Topology{Name: "x", Links: links()}},
		{"rtt on nothing", nil, Overlay{RTT: dur(40 * time.Millisecond)}, &Topology{RTT: dur(40 * time.Millisecond)}},
		{"defaults on nothing", nil, Overlay{EtcdDefaults: true}, &Topology{Etcd: Etcd{Defaults: true}}},
		{"rtt drops member links", &Topology{Links: links()}, Overlay{RTT: dur(20 * time.Millisecond)},
			&Topology{RTT: dur(20 * time.Millisecond), Links: links()[1:]}},
		{"client rtt drops client links", &Topology{Links: links()}, Overlay{ClientRTT: dur(2 * time.Millisecond)},
			&Topology{ClientRTT: dur(2 * time.Millisecond), Links: links()[:1]}},
		{"both drop all", &Topology{Links: links()}, Overlay{RTT: dur(time.Millisecond), ClientRTT: dur(time.Millisecond), EtcdDefaults: true},
			&Topology{RTT: dur(time.Millisecond), ClientRTT: dur(time.Millisecond), Etcd: Etcd{Defaults: true}}},
	} {
		if got := WithOverlay(tc.tp, tc.o); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestLinkMatrix lays out links from rows to columns, with the clients'
// end last.
func TestLinkMatrix(t *testing.T) {
	t.Parallel()
	d := wan.Link{Delay: 20 * time.Millisecond}
	header, rows := LinkMatrix([]string{"m1", "m2"}, []wan.LinkStatus{
		{Dir: wan.Dir{From: "m1", To: "m2"}, Link: d},
		{Dir: wan.Dir{From: "client", To: "m2"}, Link: d},
	})
	wantHeader := []string{"FROM \\ TO", "m1", "m2", "client"}
	wantRows := [][]string{
		{"m1", "-", d.String(), "0s"},
		{"m2", "0s", "-", "0s"},
		{"client", "0s", d.String(), "-"},
	}
	if !reflect.DeepEqual(header, wantHeader) || !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("got %q %q, want %q %q", header, rows, wantHeader, wantRows)
	}
}
