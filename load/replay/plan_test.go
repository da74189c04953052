package replay

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/protobuf/proto"
)

// small is a profile of one put row.
func small() *Profile {
	return &Profile{Kind: Kind, Version: Version, Operations: []Operation{{Op: OpPut, Prefix: "/a/", Rate: 10, ValueBytes: 100}}}
}

// TestNewPlanInvalid: options and profiles that cannot be played are
// refused with one line naming the field.
func TestNewPlanInvalid(t *testing.T) {
	t.Parallel()
	zeroSeries := small()
	zeroSeries.Series = &Series{Step: result.Duration(time.Minute), Points: []Point{{Rate: 0}, {Rate: 0}}}
	ok := Options{Prefix: "/etcdlab/bench/1/"}
	for _, tc := range []struct {
		name   string
		p      *Profile
		mod    func(*Options)
		params []string // fields the error names; nil: valid
		fails  bool
	}{
		{"valid", small(), func(*Options) {}, nil, false},
		{"no profile", nil, func(*Options) {}, nil, true},
		{"no prefix", small(), func(o *Options) { o.Prefix = "" }, []string{"Prefix"}, true},
		{"prefix without slash", small(), func(o *Options) { o.Prefix = "/x" }, []string{"Prefix"}, true},
		{"negative speed", small(), func(o *Options) { o.Speed = -1 }, []string{"Speed"}, true},
		{"NaN scale", small(), func(o *Options) { o.Scale = math.NaN() }, []string{"Scale"}, true},
		{"infinite scale", small(), func(o *Options) { o.Scale = math.Inf(1) }, []string{"Scale"}, true},
		{"negative duration", small(), func(o *Options) { o.Duration = -time.Second }, []string{"Duration"}, true},
		{"series of zeros", zeroSeries, func(*Options) {}, nil, true},
	} {
		o := ok
		tc.mod(&o)
		_, err := NewPlan(tc.p, o)
		if (err != nil) != tc.fails {
			t.Errorf("%s: error %v, want one: %v", tc.name, err, tc.fails)
			continue
		}
		if err == nil {
			continue
		}
		e := invalid.As(err)
		if e == nil {
			t.Errorf("%s: %v is not an invalid-input error", tc.name, err)
			continue
		}
		if !slices.Equal(e.Params(), tc.params) {
			t.Errorf("%s: %q names %v, want %v", tc.name, err, e.Params(), tc.params)
		}
	}
}

// TestPlanCurve: a profile without a series is its mix's rate for
// Duration; a series is compressed by Speed, multiplied by Scale, cut at
// Duration, and only its mix's operations count.
func TestPlanCurve(t *testing.T) {
	t.Parallel()
	series := small()
	series.Operations = append(series.Operations, Operation{Op: OpKeepalive, Rate: 10})
	series.Series = &Series{Step: result.Duration(10 * time.Second), Points: []Point{
		{Rate: 200}, {Rate: 0}, {Rate: 100, Ops: map[string]float64{OpPut: 30, OpKeepalive: 70}}}}
	for _, tc := range []struct {
		name string
		p    *Profile
		o    Options
		want load.Curve
	}{
		{"no series", small(), Options{Scale: 3, Duration: 5 * time.Second}, load.Curve{{Length: 5 * time.Second, Rate: 30}}},
		{"no series, default duration", small(), Options{Speed: 4}, load.Curve{{Length: time.Minute, Rate: 10}}},
		// The first point is the step before the series' span: not played.
		{"series", series, Options{Speed: 5, Scale: 2}, load.Curve{{Length: 2 * time.Second, Rate: 0}, {Length: 2 * time.Second, Rate: 60}}},
		{"series cut", series, Options{Speed: 5, Duration: 3 * time.Second}, load.Curve{{Length: 2 * time.Second, Rate: 0}, {Length: time.Second, Rate: 30}}},
	} {
		tc.o.Prefix = "/r/"
		pl, err := NewPlan(tc.p, tc.o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := pl.Curve(); !slices.Equal(got, tc.want) || pl.Duration() != tc.want.Duration() {
			t.Errorf("%s: curve %v (duration %s), want %v", tc.name, got, pl.Duration(), tc.want)
		}
	}
}

// TestMixShares: the mix sends each row its share of the requests, rows
// without a prefix spread over the groups by key count.
func TestMixShares(t *testing.T) {
	t.Parallel()
	p := &Profile{Kind: Kind, Version: Version,
		Keyspace:   &Keyspace{Keys: 400, Prefixes: []PrefixShape{{Prefix: "/a/", Keys: 300, ValueBytes: 10}, {Prefix: "/b/", Keys: 100, ValueBytes: 10}}},
		Operations: []Operation{{Op: OpPut, Prefix: "/a/", Rate: 50}, {Op: OpRange, Rate: 40}, {Op: OpTxn, Prefix: "/b/", Rate: 10, Txn: &TxnShape{Compares: 1, Puts: 1}}}}
	pl, err := NewPlan(p, Options{Prefix: "/r/"})
	if err != nil {
		t.Fatal(err)
	}
	w := pl.Workload()
	if got := w.Ops(); !slices.Equal(got, []string{OpPut, OpRange, OpTxn}) {
		t.Fatalf("ops %v", got)
	}
	c := w.NewClient(load.ClientInfo{})
	counts := map[string]float64{}
	const n = 10000
	for seq := range int64(n) {
		r := c.Next(seq)
		key := ""
		switch r.Method {
		case load.MethodRange, load.MethodPut:
			key = string(keyOf(t, r))
		}
		counts[w.Ops()[r.Op]]++
		if r.Method == load.MethodRange && len(key) > 5 {
			counts["range "+key[:5]]++
		}
	}
	for what, want := range map[string]float64{OpPut: 0.5, OpRange: 0.4, OpTxn: 0.1, "range /r/a/": 0.3, "range /r/b/": 0.1} {
		if got := counts[what] / n; math.Abs(got-want) > 0.005 {
			t.Errorf("%s: share %.4f, want %.2f", what, got, want)
		}
	}
}

// keyOf decodes a put's or a range's key from its message.
func keyOf(t *testing.T, r load.Request) []byte {
	t.Helper()
	b := make([]byte, r.Msg.Size())
	if _, err := r.Msg.MarshalToSizedBuffer(b); err != nil {
		t.Fatal(err)
	}
	if r.Method == load.MethodPut {
		var m pb.PutRequest
		if err := proto.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m.Key
	}
	var m pb.RangeRequest
	if err := proto.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Key
}

// TestMixNextAllocatesNothing: once a client has used every entry, a
// request costs no allocation (the per-request cost of bench put).
func TestMixNextAllocatesNothing(t *testing.T) {
	p := small()
	p.Operations = append(p.Operations, Operation{Op: OpRange, Prefix: "/a/", Rate: 5, RangeKeys: 3},
		Operation{Op: OpDelete, Prefix: "/a/", Rate: 1}, Operation{Op: OpTxn, Prefix: "/a/", Rate: 2, Txn: &TxnShape{Compares: 1, Puts: 1}})
	pl, err := NewPlan(p, Options{Prefix: "/r/"})
	if err != nil {
		t.Fatal(err)
	}
	c := pl.Workload().NewClient(load.ClientInfo{})
	seq := int64(0)
	for ; seq < 1000; seq++ {
		c.Next(seq)
	}
	if n := testing.AllocsPerRun(1000, func() { c.Next(seq); seq++ }); n != 0 {
		t.Errorf("%g allocations per request", n)
	}
}
