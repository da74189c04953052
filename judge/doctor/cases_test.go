package doctor

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/internal/golden"

	"github.com/etcdlab/etcdlab/result"
)

var update = flag.Bool("update", false, "rewrite testdata/cases/*.golden from what the judge finds now")

// casesDir holds the recorded cases: doctor result documents (NAME.json,
// what measure/doctor measured: members, logs, keyspace, history, the disk
// job's verdicts) and what the judge makes of them (NAME.golden).
const casesDir = "testdata/cases"

// TestCases: every recorded diagnosis in testdata/cases, judged, gives
// the findings and checks of its golden file. Judge rewrites the steps,
// findings and overall status, so a document doctor wrote (--output json)
// is a case as it is. Run with -update to rewrite the goldens, then
// review their diff.
func TestCases(t *testing.T) {
	t.Parallel()
	paths := golden.Cases(t, casesDir)
	for _, path := range paths {
		t.Run(golden.Name(path), func(t *testing.T) {
			t.Parallel()
			doc := readCase(t, path)
			Judge(doc)
			golden.Check(t, golden.Beside(path), judged(doc), *update)
		})
	}
}

// readCase reads a doctor document.
func readCase(t *testing.T, path string) *result.Document {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := result.Read(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if doc.Kind != result.KindDoctor || doc.Doctor == nil {
		t.Fatalf("%s: a %s document, not a diagnosis", path, doc.Kind)
	}
	return doc
}

// judged is what the golden files hold: the overall status, the findings
// in rank order with everything they say, then each step's checks and
// what it could not see.
func judged(doc *result.Document) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "overall %s\n", doc.Overall)
	for _, f := range doc.Doctor.Findings {
		member := f.Member
		if member == "" {
			member = "(cluster)"
		}
		fmt.Fprintf(&b, "finding %d: %s %s %s, score %s\n", f.Rank, f.Status, f.Cause, member, strconv.FormatFloat(f.Score, 'g', 6, 64))
		fmt.Fprintf(&b, "  summary: %s\n", f.Summary)
		for _, e := range f.Evidence {
			fmt.Fprintf(&b, "  evidence: %s\n", e)
		}
		fmt.Fprintf(&b, "  fix: %s\n  source: %s\n", f.Fix, f.Source)
		if len(f.Versions) > 0 {
			fmt.Fprintf(&b, "  versions: %s\n", strings.Join(f.Versions, ", "))
		}
	}
	for _, st := range doc.Doctor.Steps {
		fmt.Fprintf(&b, "step %s\n", st.Name)
		for _, v := range st.Checks {
			detail := v.Threshold
			if v.Status == result.Skip {
				detail = v.Explanation // why it was not judged
			}
			fmt.Fprintf(&b, "  %s %s: %s (%s)\n", v.Status, v.What, v.Display, detail)
		}
		for _, u := range st.Unseen {
			fmt.Fprintf(&b, "  unseen: %s\n", u)
		}
	}
	return b.Bytes()
}
