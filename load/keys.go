package load

import (
	"crypto/rand"
	"fmt"
	"math"
	mrand "math/rand/v2"
)

// Keys makes printable keys: Prefix followed by the key index in lowercase
// hex, zero-padded to Size characters. etcd benchmark writes the index as a
// NUL-padded binary varint instead; printable keys can be listed, deleted by
// prefix and read in etcdctl. Keys is a value; copy it freely.
type Keys struct {
	Prefix string
	// Size is the length of the part after the prefix (--key-size).
	Size int
	// Space is the number of distinct keys (--key-space-size).
	Space int64
	// Sequential picks key seq mod Space; otherwise keys are uniform random.
	Sequential bool
}

// Validate checks that Size characters can name Space keys.
func (k Keys) Validate() error {
	if k.Size < 1 {
		return fmt.Errorf("--key-size must be at least 1, not %d", k.Size)
	}
	if k.Space < 1 {
		return fmt.Errorf("--key-space-size must be at least 1, not %d", k.Space)
	}
	if k.Size < 16 && float64(k.Space) > math.Pow(16, float64(k.Size)) {
		return fmt.Errorf("--key-size %d (hex digits) cannot name %d distinct keys; raise --key-size or lower --key-space-size", k.Size, k.Space)
	}
	return nil
}

// Index returns the key index for request seq.
func (k Keys) Index(seq int64, rnd *mrand.Rand) int64 {
	if k.Sequential {
		return seq % k.Space
	}
	return rnd.Int64N(k.Space)
}

// Append appends the key with index i to dst.
func (k Keys) Append(dst []byte, i int64) []byte {
	dst = append(dst, k.Prefix...)
	const hexd = "0123456789abcdef"
	start := len(dst)
	for range k.Size {
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
