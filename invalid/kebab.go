package invalid

import (
	"strings"
	"unicode"
)

// Kebab turns an option's Go field name into its usual flag spelling,
// without dashes in front: "RWRatio" → "rw-ratio". Renderers of invalid
// errors use it unless an option is spelled otherwise.
func Kebab(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('-')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}
