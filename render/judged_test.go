package render

import (
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/judge/bottleneck"
	"github.com/etcdlab/etcdlab/result"
)

// judgedFor is what cmd/etcdlab passes with docs: judge's thresholds, and
// statements for experiments whose fixture states none. Tests may import
// judge; render itself does not.
func judgedFor(docs ...*result.Document) Judged {
	var j Judged
	for _, th := range judge.All() {
		j.Thresholds = append(j.Thresholds, Threshold{ID: string(th.ID), What: th.What, Unit: th.Unit, Warn: th.Warn, Fail: th.Fail, Source: th.Source})
	}
	for _, d := range docs {
		if cells, sweep, ok := bottleneck.Missing(d); ok {
			if j.Statements == nil {
				j.Statements = map[*result.Document]Statements{}
			}
			j.Statements[d] = Statements{Cells: cells, Sweep: sweep}
		}
	}
	return j
}

// judgedNamed is judgedFor for named documents.
func judgedNamed(docs []result.Named) Judged {
	ds := make([]*result.Document, len(docs))
	for i, d := range docs {
		ds[i] = d.Doc
	}
	return judgedFor(ds...)
}

// modelOf is the experiment model a report of doc draws.
func modelOf(doc *result.Document) expModel {
	return newExpModel(doc, judgedFor(doc).Statements[doc])
}
