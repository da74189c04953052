package kube

import (
	"bytes"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// protoMagic is the 4-byte prefix of kube-apiserver's protobuf storage
// encoding ("k8s\x00", protoEncodingPrefix in
// k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go).
const protoMagic = "k8s\x00"

// object is a Kubernetes API object as the emulated apiserver stores it: a
// k8s.io/api type with its generated protobuf methods.
type object interface {
	metav1.Object
	runtime.Object
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// errNotKube is returned for a value without the protobuf magic.
var errNotKube = errors.New("kube: value is not in Kubernetes' protobuf storage encoding")

// encode writes obj as kube-apiserver stores it: the magic, then a
// runtime.Unknown whose TypeMeta names the storage version and whose Raw
// is the object's protobuf, as the protobuf Serializer's doEncode does.
// The resourceVersion is cleared first, as the etcd3 store's
// PrepareObjectForStorage does (etcd's mod_revision is the version).
func encode(r res, obj object) ([]byte, error) {
	i := r.info()
	rv := obj.GetResourceVersion()
	obj.SetResourceVersion("")
	raw, err := obj.Marshal()
	obj.SetResourceVersion(rv)
	if err != nil {
		return nil, fmt.Errorf("kube: encode %s: %w", i.name, err)
	}
	unk := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: i.apiVersion, Kind: i.kind}, Raw: raw}
	out := make([]byte, len(protoMagic), len(protoMagic)+unk.Size())
	copy(out, protoMagic)
	body, err := unk.Marshal()
	if err != nil {
		return nil, fmt.Errorf("kube: encode %s envelope: %w", i.name, err)
	}
	return append(out, body...), nil
}

// decode reads a stored value into a new object of r's type and sets its
// resourceVersion to the key's mod_revision, as the etcd3 store does.
func decode(r res, data []byte, modRev int64) (object, error) {
	i := r.info()
	if !bytes.HasPrefix(data, []byte(protoMagic)) {
		return nil, errNotKube
	}
	var unk runtime.Unknown
	if err := unk.Unmarshal(data[len(protoMagic):]); err != nil {
		return nil, fmt.Errorf("kube: decode %s envelope: %w", i.name, err)
	}
	if unk.Kind != i.kind || unk.APIVersion != i.apiVersion {
		return nil, fmt.Errorf("kube: decode %s: stored as %s %s", i.name, unk.APIVersion, unk.Kind)
	}
	obj := r.newObj()
	if err := obj.Unmarshal(unk.Raw); err != nil {
		return nil, fmt.Errorf("kube: decode %s: %w", i.name, err)
	}
	obj.SetResourceVersion(fmt.Sprint(modRev))
	return obj, nil
}
