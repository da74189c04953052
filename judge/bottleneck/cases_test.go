package bottleneck

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/internal/golden"

	"github.com/etcdlab/etcdlab/result"
)

var update = flag.Bool("update", false, "rewrite testdata/cases/*.golden from what the judge says now")

// casesDir holds the recorded cases: experiment result documents
// (NAME.json, as measure/experiment writes them), the Options a case needs
// beyond its document (NAME.options.json, optional) and the statements the
// judge makes of it (NAME.golden).
const casesDir = "testdata/cases"

// TestCases: every recorded experiment in testdata/cases, filled by Fill,
// gives the statements of its golden file (each cell's and the sweep's).
// A statement already in a document is kept, as Fill keeps it: record a
// case without its bottleneck fields to have it judged. Run with -update
// to rewrite the goldens, then review their diff.
func TestCases(t *testing.T) {
	t.Parallel()
	paths := golden.Cases(t, casesDir, ".options.json")
	for _, path := range paths {
		t.Run(golden.Name(path), func(t *testing.T) {
			t.Parallel()
			doc, o := readCase(t, path)
			Fill(doc, o)
			golden.Check(t, golden.Beside(path), statements(doc), *update)
		})
	}
}

// readCase reads an experiment document and its options, if it has any.
func readCase(t *testing.T, path string) (*result.Document, Options) {
	t.Helper()
	doc, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Kind != result.KindExperiment || doc.Experiment == nil {
		t.Fatalf("%s: a %s document, not an experiment's", path, doc.Kind)
	}
	var o Options
	b, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".options.json")
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		t.Fatal(err)
	default:
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			t.Fatalf("%s.options.json: %v", strings.TrimSuffix(path, ".json"), err)
		}
	}
	return doc, o
}

// statements is what the golden files hold: each cell's statement, then
// the sweep's, with their figures in name order, then each line's knee
// along the file's knee: param.
func statements(doc *result.Document) []byte {
	var b bytes.Buffer
	for _, c := range doc.Experiment.Cells {
		fmt.Fprintf(&b, "cell %s (%s)\n", c.ID, c.Status)
		writeStatement(&b, c.Bottleneck)
	}
	b.WriteString("sweep\n")
	writeStatement(&b, doc.Experiment.Bottleneck)
	for _, k := range doc.Experiment.Knees {
		fmt.Fprintf(&b, "knee %s along %s (found: %v)\n  | %s\n", k.Line, k.Param, k.Found, k.Statement)
	}
	return b.Bytes()
}

func writeStatement(b *bytes.Buffer, s *result.Bottleneck) {
	if s == nil {
		b.WriteString("  no statement\n")
		return
	}
	fmt.Fprintf(b, "  resource: %s\n", s.Resource)
	for _, l := range strings.Split(s.Statement, "\n") {
		fmt.Fprintf(b, "  | %s\n", l)
	}
	names := make([]string, 0, len(s.Figures))
	for k := range s.Figures {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		// Ten significant digits: the same on every architecture (fused
		// multiply-adds may change the last bits).
		fmt.Fprintf(b, "  figure %s = %s\n", k, strconv.FormatFloat(s.Figures[k], 'g', 10, 64))
	}
}
