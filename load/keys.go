package load

import (
	"crypto/rand"
	"math"
	mrand "math/rand/v2"

	"github.com/etcdlab/etcdlab/invalid"
)

// Keys makes printable keys: Prefix followed by the key index in lowercase
// hex, zero-padded to KeySize characters. etcd benchmark writes the index as
// a NUL-padded binary varint instead; printable keys can be listed, deleted
// by prefix and read in etcdctl. Keys is a value; copy it freely.
type Keys struct {
	Prefix string
	// KeySize is the length of the part after the prefix.
	KeySize int
	// KeySpaceSize is the number of distinct keys.
	KeySpaceSize int64
	// Sequential picks key seq mod KeySpaceSize; otherwise keys are
	// uniform random.
	Sequential bool
}

// Validate checks that KeySize hex digits can name KeySpaceSize keys. Its
// errors are invalid.Errorf errors naming the Keys fields.
func (k Keys) Validate() error {
	if k.KeySize < 1 {
		return invalid.Errorf("{KeySize} must be at least 1, not %d", k.KeySize)
	}
	if k.KeySpaceSize < 1 {
		return invalid.Errorf("{KeySpaceSize} must be at least 1, not %d", k.KeySpaceSize)
	}
	if k.KeySize < 16 && float64(k.KeySpaceSize) > math.Pow(16, float64(k.KeySize)) {
		return invalid.Errorf("{KeySize} %d (hex digits) cannot name %d distinct keys; raise {KeySize} or lower {KeySpaceSize}", k.KeySize, k.KeySpaceSize)
	}
	return nil
}

// Index returns the key index for request seq; rnd is used for random
// keys only.
func (k Keys) Index(seq int64, rnd *mrand.Rand) int64 {
	if k.Sequential {
		return seq % k.KeySpaceSize
	}
	return rnd.Int64N(k.KeySpaceSize)
}

// Append appends the key with index i to dst.
func (k Keys) Append(dst []byte, i int64) []byte {
	dst = append(dst, k.Prefix...)
	const hexd = "0123456789abcdef"
	start := len(dst)
	for range k.KeySize {
		dst = append(dst, '0')
	}
	for p := len(dst) - 1; p >= start && i > 0; p-- {
		dst[p] = hexd[i&15]
		i >>= 4
	}
	return dst
}

// RandomValue returns n random printable bytes, the value every write of a
// run reuses (as etcd benchmark does).
func RandomValue(n int) []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return b
}

// PrefixEnd returns the end of the range holding every key that starts with
// prefix, as clientv3.GetPrefixRangeEnd.
func PrefixEnd(prefix string) string {
	end := []byte(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return string(end[:i+1])
		}
	}
	return "\x00"
}
