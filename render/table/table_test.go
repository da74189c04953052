package table

import (
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := Write(&b, []string{"NAME", "µS"}, [][]string{{"m1", "12"}, {"member-2"}}); err != nil {
		t.Fatal(err)
	}
	want := `+----------+----+
| NAME     | µS |
+----------+----+
| m1       | 12 |
| member-2 |    |
+----------+----+
`
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}
