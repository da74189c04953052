package render

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/result"
	"github.com/etcdlab/etcdlab/result/compare"
)

// Format is a value of a command's -o flag: the layout its output is
// written in. Which formats a command accepts depends on what it writes
// (Formats); Write, Report and Comparison draw each.
type Format string

// The formats, by their -o names.
const (
	// FormatText is the command's own text layout: etcd benchmark's for
	// bench, the verdict tables for disk and check, the diagnosis for
	// doctor, the cells' summary for an experiment, the table of changes
	// for a comparison.
	FormatText Format = "text"
	// FormatJSON is the result document (result.Write), or the comparison
	// or the cluster's status as indented JSON.
	FormatJSON Format = "json"
	// FormatCSV is bench's runs as CSV, one row each.
	FormatCSV Format = "csv"
	// FormatMarkdown is Markdown tables, for issues and pull requests.
	FormatMarkdown Format = "markdown"
	// FormatHTML is a self-contained HTML page with SVG charts.
	FormatHTML Format = "html"
	// FormatTable is `cluster status`'s member table (etcdctl's layout)
	// and `cluster upgrade`'s, one row per member replaced.
	FormatTable Format = "table"
)

// What a command writes, when it is not a result document (a document's
// subject is its kind: result.KindBench, result.KindDisk, ...).
const (
	// SubjectComparison is what `etcdlab compare` writes.
	SubjectComparison = "comparison"
	// SubjectStatus is what `etcdlab cluster status` writes.
	SubjectStatus = "status"
)

// Formats returns the -o values a command writing subject (a result kind,
// SubjectComparison or SubjectStatus) accepts: its default first, in the
// order messages list them. It is nil for an unknown subject. This is the
// one list every command validates -o against.
func Formats(subject string) []Format {
	switch subject {
	case result.KindBench:
		return []Format{FormatText, FormatJSON, FormatCSV}
	case result.KindDisk, result.KindCheck, result.KindDoctor, result.KindExperiment:
		return []Format{FormatText, FormatJSON}
	case SubjectComparison:
		return []Format{FormatText, FormatMarkdown, FormatJSON}
	case SubjectStatus, result.KindUpgrade:
		return []Format{FormatTable, FormatJSON}
	case result.KindSize:
		return []Format{FormatText, FormatJSON, FormatMarkdown, FormatHTML}
	}
	return nil
}

// FormatError is a -o value that cannot be used. Its message reads after
// the flag's name: `-o ` + Error() is the CLI's message.
type FormatError struct {
	// Value is the value given.
	Value string
	// Allowed are the formats that would do (Formats' list), or nil for
	// a report file (FileFormat), whose format is its name's extension.
	Allowed []Format
}

func (e *FormatError) Error() string {
	if e.Allowed == nil {
		return "must end in .html or .md (or be - for Markdown on stdout), not " + strconv.Quote(e.Value)
	}
	var b strings.Builder
	b.WriteString("must be ")
	for i, f := range e.Allowed {
		switch {
		case i == 0:
		case i == len(e.Allowed)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(f))
	}
	return b.String() + ", not " + strconv.Quote(e.Value)
}

// ParseFormat returns value as a Format if a command writing subject
// accepts it, and a *FormatError if not.
func ParseFormat(subject, value string) (Format, error) {
	allowed := Formats(subject)
	for _, f := range allowed {
		if string(f) == value {
			return f, nil
		}
	}
	return "", &FormatError{Value: value, Allowed: allowed}
}

// FileFormat returns the format of a report file from its name (what
// `etcdlab report -o` takes): .html is FormatHTML, .md FormatMarkdown,
// and "-" (stdout) FormatMarkdown; anything else is a *FormatError.
func FileFormat(path string) (Format, error) {
	switch {
	case path == "-" || strings.HasSuffix(path, ".md"):
		return FormatMarkdown, nil
	case strings.HasSuffix(path, ".html"):
		return FormatHTML, nil
	}
	return "", &FormatError{Value: path}
}

// Options are what the text layouts take.
type Options struct {
	// Bench is bench's text options (etcd benchmark's --precise, --sample).
	Bench TextOptions
	// Terminal is the width of the verdict, diagnosis and summary layouts.
	Terminal TerminalOptions
	// Judged is what the caller worked out with judge for the documents
	// (the thresholds table, statements a stored experiment lacks).
	Judged Judged
}

// Write writes doc to w in format f, one of Formats(doc.Kind): FormatJSON
// for any document, FormatText for any but an upgrade's, FormatCSV for
// bench's, FormatTable for an upgrade's, FormatMarkdown and FormatHTML for
// a size answer's; anything else is a *FormatError (Report draws documents
// as HTML or Markdown). It draws what doc states
// and keeps nothing: concurrent calls are safe.
func Write(w io.Writer, f Format, doc *result.Document, o Options) error {
	switch f {
	case FormatJSON:
		return result.Write(w, doc)
	case FormatCSV:
		if doc.Kind == result.KindBench {
			return BenchCSV(w, doc)
		}
	case FormatText:
		switch doc.Kind {
		case result.KindBench:
			return BenchText(w, doc, o.Bench)
		case result.KindDisk:
			return DiskText(w, doc, o.Terminal)
		case result.KindCheck:
			return CheckText(w, doc, o.Terminal)
		case result.KindDoctor:
			return DoctorText(w, doc, o.Terminal)
		case result.KindExperiment:
			return ExperimentText(w, doc, o.Terminal, o.Judged)
		case result.KindSize:
			return SizeText(w, doc.Size)
		}
	case FormatMarkdown:
		if doc.Kind == result.KindSize {
			return SizeMarkdown(w, doc.Size)
		}
	case FormatHTML:
		if doc.Kind == result.KindSize {
			return SizeHTML(w, doc.Size)
		}
	case FormatTable:
		if doc.Kind == result.KindUpgrade {
			return UpgradeTable(w, doc)
		}
	}
	return &FormatError{Value: string(f), Allowed: Formats(doc.Kind)}
}

// Report writes named documents to w as one report: FormatHTML (a page,
// HTML) or FormatMarkdown (Markdown), with what the caller judged of them
// (j); other formats are a *FormatError.
func Report(w io.Writer, f Format, docs []result.Named, j Judged) error {
	switch f {
	case FormatHTML:
		return HTML(w, docs, j)
	case FormatMarkdown:
		return Markdown(w, docs, j)
	}
	return &FormatError{Value: string(f)}
}

// Comparison writes comparisons to w in one of Formats(SubjectComparison).
func Comparison(w io.Writer, f Format, cs []compare.Comparison) error {
	switch f {
	case FormatText:
		return CompareText(w, cs)
	case FormatMarkdown:
		_, err := io.WriteString(w, CompareMarkdown(cs))
		return err
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(cs)
	}
	return &FormatError{Value: string(f), Allowed: Formats(SubjectComparison)}
}
