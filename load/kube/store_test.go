package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/load"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
)

func testPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("u-" + name), Labels: map[string]string{"app": "a"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
}

// TestEncodingIsKubeApiserversStorageEncoding checks our bytes against
// apimachinery's own protobuf serializer (the one kube-apiserver stores
// with), and that decoding restores the object with its revision.
func TestEncodingIsKubeApiserversStorageEncoding(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "web-7d4b9c8f5-x2kzq"} {
		pod := testPod(name)
		got, err := encode(resPods, pod)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(got, []byte("k8s\x00")) {
			t.Fatalf("no k8s\\0 magic: %q", got[:8])
		}
		want := &bytes.Buffer{}
		typed := pod.DeepCopy()
		typed.APIVersion, typed.Kind = "v1", "Pod"
		if err := protobuf.NewSerializer(scheme, scheme).Encode(typed, want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("encoding differs from apimachinery's protobuf serializer:\n got %x\nwant %x", got, want.Bytes())
		}
		back, err := decode(resPods, got, 42)
		if err != nil {
			t.Fatal(err)
		}
		if back.GetName() != name || back.GetResourceVersion() != "42" || back.(*corev1.Pod).Spec.Containers[0].Image != "registry.k8s.io/pause:3.10" {
			t.Fatalf("round trip lost data: %+v", back)
		}
		if _, err := decode(resNodes, got, 1); err == nil {
			t.Fatal("a pod decoded as a node")
		}
	}
	if _, err := decode(resPods, []byte("{}"), 1); !errors.Is(err, errNotKube) {
		t.Fatalf("JSON decoded: %v", err)
	}
}

// TestRequestShapes drives the storage layer against a real member and
// checks kube-apiserver's semantics on etcd's kubernetes interface.
func TestRequestShapes(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 1)
	cli, conf := c.KV(), c.Client()
	unary, err := load.DialUnary(context.Background(), conf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unary.Close)
	// The same semantics whichever transport carries the storage layer's
	// requests: gRPC-go, or the wire engine bench uses by default.
	for _, tc := range []struct {
		name string
		kv   pb.KVClient
	}{{"grpc", nil}, {"wire", unary.KV()}} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(cli, tc.kv, keys{root: "/shapes-" + tc.name + "/registry/"}, load.NewRecorder(len(opNames()), time.Now()), 5*time.Second, newLagTracker(), 1)
			requestShapes(t, cli, st)
		})
	}
}

func requestShapes(t *testing.T, cli *clientv3.Client, st *store) {
	ctx := context.Background()
	prefix := strings.TrimSuffix(st.keys.root, "registry/")
	key := st.keys.key(resPods, "ns", "p")
	if key != prefix+"registry/pods/ns/p" {
		t.Fatalf("key %q", key)
	}
	if k := st.keys.key(resNodes, "", "n1"); k != prefix+"registry/minions/n1" {
		t.Fatalf("node key %q", k)
	}
	if k := st.keys.key(resServices, "ns", "s"); k != prefix+"registry/services/specs/ns/s" {
		t.Fatalf("service key %q", k)
	}
	if k := st.keys.key(resEndpoints, "ns", "s"); k != prefix+"registry/services/endpoints/ns/s" {
		t.Fatalf("endpoints key %q", k)
	}

	created, err := st.create(ctx, "create pods", resPods, testPod("p"), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("create of an existing key fails with AlreadyExists and writes nothing", func(t *testing.T) {
		p := testPod("p")
		p.Labels["app"] = "other"
		if _, err := st.create(ctx, "create pods", resPods, p, 0); !errors.Is(err, errAlreadyExists) {
			t.Fatalf("got %v, want AlreadyExists", err)
		}
		cur, err := st.get(ctx, "get pods", resPods, key)
		if err != nil || cur.rev != created.rev {
			t.Fatalf("key changed: rev %d → %d (%v)", created.rev, cur.rev, err)
		}
	})
	t.Run("a conflicting update retries from the object etcd returned", func(t *testing.T) {
		// Someone else writes after our cached copy.
		if _, err := st.update(ctx, "patch pods/status", resPods, key, nil, 0, func(o object) (object, error) {
			o.(*corev1.Pod).Status.Phase = corev1.PodPending
			return o, nil
		}); err != nil {
			t.Fatal(err)
		}
		before := st.conflicts.Load()
		var seen []corev1.PodPhase
		stale := created
		got, err := st.update(ctx, "create pods/binding", resPods, key, &stale, 0, func(o object) (object, error) {
			p := o.(*corev1.Pod)
			seen = append(seen, p.Status.Phase)
			p.Spec.NodeName = "n1"
			return p, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if st.conflicts.Load() != before+1 || len(seen) != 2 || seen[0] != "" || seen[1] != corev1.PodPending {
			t.Fatalf("conflicts %d→%d, update function saw %v: want one conflict, then the fresh object", before, st.conflicts.Load(), seen)
		}
		cur, _ := st.get(ctx, "get pods", resPods, key)
		p := cur.obj.(*corev1.Pod)
		if p.Spec.NodeName != "n1" || p.Status.Phase != corev1.PodPending || cur.rev != got.rev {
			t.Fatalf("stored %+v rev %d, want both writes kept at rev %d", p.Spec.NodeName, cur.rev, got.rev)
		}
	})
	t.Run("an update that changes no byte writes nothing", func(t *testing.T) {
		cur, _ := st.get(ctx, "get pods", resPods, key)
		n := st.rec.Count()
		got, err := st.update(ctx, "patch pods/status", resPods, key, &cur, 0, func(o object) (object, error) { return o, nil })
		if err != nil || got.rev != cur.rev {
			t.Fatalf("rev %d → %d (%v)", cur.rev, got.rev, err)
		}
		// From a cached copy, equal bytes cost one fresh read, no write.
		if d := st.rec.Count() - n; d != 1 {
			t.Fatalf("%d requests, want 1 (the fresh read)", d)
		}
	})
	t.Run("delete with a stale revision retries from the current one", func(t *testing.T) {
		stale := created
		before := st.conflicts.Load()
		if err := st.remove(ctx, "delete pods", resPods, key, &stale); err != nil {
			t.Fatal(err)
		}
		if st.conflicts.Load() != before+1 {
			t.Fatal("stale delete did not conflict once")
		}
		if _, err := st.get(ctx, "get pods", resPods, key); !errors.Is(err, errNotFound) {
			t.Fatalf("after delete: %v", err)
		}
		if err := st.remove(ctx, "delete pods", resPods, key, &stale); !errors.Is(err, errNotFound) {
			t.Fatalf("deleting a deleted key: %v, want NotFound", err)
		}
		if _, err := st.update(ctx, "patch pods/status", resPods, key, &stale, 0, func(o object) (object, error) { return o, nil }); !errors.Is(err, errNotFound) {
			t.Fatalf("updating a deleted key: %v, want NotFound", err)
		}
	})
	t.Run("list pages are one snapshot at the first page's revision", func(t *testing.T) {
		for i := range 25 {
			if _, err := st.create(ctx, "create pods", resPods, testPod(fmt.Sprintf("l%02d", i)), 0); err != nil {
				t.Fatal(err)
			}
		}
		// A writer adds pods while the list pages through.
		stop := make(chan struct{})
		done := make(chan struct{})
		wrote := make(chan struct{})
		go func() {
			defer close(done)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				_, _ = st.create(ctx, "create pods", resPods, testPod(fmt.Sprintf("m%04d", i)), 0)
				if i == 0 {
					close(wrote)
				}
			}
		}()
		<-wrote
		n0 := st.rec.Stats(st.ops.id("list pods"), time.Second).Requests
		list, rev, err := st.list(ctx, resPods, 4)
		close(stop)
		<-done
		if err != nil {
			t.Fatal(err)
		}
		pages := st.rec.Stats(st.ops.id("list pods"), time.Second).Requests - n0
		r, err := cli.Get(ctx, st.keys.resourcePrefix(resPods), clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(list)) != r.Count || pages < int64(len(list))/4 {
			t.Fatalf("listed %d in %d pages, etcd had %d at rev %d", len(list), pages, r.Count, rev)
		}
		for i := 1; i < len(list); i++ {
			if list[i-1].obj.GetName() >= list[i].obj.GetName() || list[i].rev > rev {
				t.Fatalf("page order or revision broken at %d", i)
			}
		}
	})
	if st.unknownOps.Load() != 0 {
		t.Fatal("an operation name is missing from the table")
	}
	if _, err := cli.Delete(ctx, prefix, clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
}
