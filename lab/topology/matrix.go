package topology

import (
	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/lab/cluster"
)

// LinkMatrix lays out the configured one-way links of a running cluster
// (members names, and the clients' end) as a table: rows from, columns to,
// "-" on the diagonal and "0s" for a link with nothing set. It returns the
// header and the rows, for a table writer.
func LinkMatrix(names []string, links []wan.LinkStatus) (header []string, rows [][]string) {
	names = append(append([]string(nil), names...), cluster.ClientNode)
	cfg := map[[2]string]string{}
	for _, l := range links {
		cfg[[2]string{l.From, l.To}] = l.Link.String()
	}
	for _, from := range names {
		row := []string{from}
		for _, to := range names {
			v := cfg[[2]string{from, to}]
			switch {
			case from == to:
				v = "-"
			case v == "":
				v = "0s"
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return append([]string{"FROM \\ TO"}, names...), rows
}
