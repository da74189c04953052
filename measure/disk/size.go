package disk

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSize reads a size the way fio does: a number with an optional k, m,
// g or t suffix (also KiB, MB...), all binary multiples (fio's default
// kb_base=1024). "22m" is 23068672 bytes.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "b"), "i")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k':
			mult = 1 << 10
		case 'm':
			mult = 1 << 20
		case 'g':
			mult = 1 << 30
		case 't':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v <= 0 || v > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (examples: 4096, 22m, 1g)", s)
	}
	return v * mult, nil
}
