package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/etcdlab/etcdlab/result"
	"github.com/etcdlab/etcdlab/result/compare"
)

// The messages the CLI prints after "-o " for a value a command does not
// take: one per subject, as the commands always printed them.
func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		subject string
		ok      []string
		msg     string
	}{
		{result.KindBench, []string{"text", "json", "csv"}, `must be text, json or csv, not "xml"`},
		{result.KindDisk, []string{"text", "json"}, `must be text or json, not "xml"`},
		{result.KindCheck, []string{"text", "json"}, `must be text or json, not "xml"`},
		{result.KindDoctor, []string{"text", "json"}, `must be text or json, not "xml"`},
		{result.KindExperiment, []string{"text", "json"}, `must be text or json, not "xml"`},
		{SubjectComparison, []string{"text", "markdown", "json"}, `must be text, markdown or json, not "xml"`},
		{SubjectStatus, []string{"table", "json"}, `must be table or json, not "xml"`},
	} {
		for _, v := range tc.ok {
			if f, err := ParseFormat(tc.subject, v); err != nil || string(f) != v {
				t.Errorf("%s: ParseFormat(%q) = %q, %v", tc.subject, v, f, err)
			}
		}
		if Formats(tc.subject)[0] != Format(tc.ok[0]) {
			t.Errorf("%s: default %s, want %s", tc.subject, Formats(tc.subject)[0], tc.ok[0])
		}
		_, err := ParseFormat(tc.subject, "xml")
		var fe *FormatError
		if !errors.As(err, &fe) || err.Error() != tc.msg {
			t.Errorf("%s: error %v, want %s", tc.subject, err, tc.msg)
		}
	}
	if _, err := ParseFormat(result.KindDisk, "csv"); err == nil {
		t.Error("disk took csv")
	}
	if fs := Formats("nonsense"); fs != nil {
		t.Errorf("an unknown subject has formats %v", fs)
	}
}

func TestFileFormat(t *testing.T) {
	for path, want := range map[string]Format{"-": FormatMarkdown, "a/r.md": FormatMarkdown, "r.html": FormatHTML} {
		if f, err := FileFormat(path); err != nil || f != want {
			t.Errorf("FileFormat(%q) = %q, %v; want %q", path, f, err, want)
		}
	}
	_, err := FileFormat("r.pdf")
	if want := `must end in .html or .md (or be - for Markdown on stdout), not "r.pdf"`; err == nil || err.Error() != want {
		t.Errorf("r.pdf: %v, want %s", err, want)
	}
}

// Write draws each kind in each of its formats exactly as the kind's own
// function does, and refuses the rest.
func TestWriteDispatch(t *testing.T) {
	bench := sweepFixture(t, 1)
	check := checkFixture(t)
	disk := diskFixture()
	experiment := storageSweep()
	term := TerminalOptions{Wide: true}
	bo := TextOptions{Precise: true}
	direct := func(draw func(io.Writer) error) []byte {
		var b bytes.Buffer
		if err := draw(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, tc := range []struct {
		doc  *result.Document
		f    Format
		want []byte
	}{
		{bench, FormatText, direct(func(w io.Writer) error { return BenchText(w, bench, bo) })},
		{bench, FormatCSV, direct(func(w io.Writer) error { return BenchCSV(w, bench) })},
		{bench, FormatJSON, direct(func(w io.Writer) error { return result.Write(w, bench) })},
		{check, FormatText, direct(func(w io.Writer) error { return CheckText(w, check, term) })},
		{disk, FormatText, direct(func(w io.Writer) error { return DiskText(w, disk, term) })},
		{disk, FormatJSON, direct(func(w io.Writer) error { return result.Write(w, disk) })},
		{experiment, FormatText, direct(func(w io.Writer) error { return ExperimentText(w, experiment, term, Judged{}) })},
	} {
		var got bytes.Buffer
		if err := Write(&got, tc.f, tc.doc, Options{Bench: bo, Terminal: term}); err != nil {
			t.Fatalf("%s as %s: %v", tc.doc.Kind, tc.f, err)
		}
		if !bytes.Equal(got.Bytes(), tc.want) {
			t.Errorf("%s as %s differs from the kind's own drawing", tc.doc.Kind, tc.f)
		}
	}
	for _, f := range []Format{FormatCSV, FormatHTML, FormatTable} {
		err := Write(io.Discard, f, disk, Options{})
		var fe *FormatError
		if !errors.As(err, &fe) || err.Error() != `must be text or json, not "`+string(f)+`"` {
			t.Errorf("disk as %s: %v", f, err)
		}
	}
}

func TestReportAndComparisonDispatch(t *testing.T) {
	docs := []result.Named{named("a", diskFixture()), named("b", diskFixture())}
	var md, want bytes.Buffer
	if err := Report(&md, FormatMarkdown, docs, Judged{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&want, docs, Judged{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(md.Bytes(), want.Bytes()) {
		t.Error("Report as markdown differs from Markdown")
	}
	if err := Report(io.Discard, FormatText, docs, Judged{}); err == nil {
		t.Error("Report took text")
	}
	cs, err := compare.Compare(docs[0], docs[1])
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := Comparison(&js, FormatJSON, cs); err != nil {
		t.Fatal(err)
	}
	var back []compare.Comparison
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back) != len(cs) {
		t.Errorf("comparison JSON: %v, %d comparisons", err, len(back))
	}
	var m bytes.Buffer
	if err := Comparison(&m, FormatMarkdown, cs); err != nil || m.String() != CompareMarkdown(cs) {
		t.Errorf("comparison markdown: %v", err)
	}
	if err := Comparison(io.Discard, FormatCSV, cs); err == nil || err.Error() != `must be text, markdown or json, not "csv"` {
		t.Errorf("comparison as csv: %v", err)
	}
}
