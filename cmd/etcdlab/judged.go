package main

import (
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/judge/bottleneck"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
)

// judged works out with package judge what reports of docs show that the
// documents do not state (render draws, it never judges): the thresholds
// table, and bottleneck statements for experiments whose result has none.
func judged(docs ...*result.Document) render.Judged {
	var j render.Judged
	for _, th := range judge.All() {
		j.Thresholds = append(j.Thresholds, render.Threshold{ID: string(th.ID), What: th.What, Unit: th.Unit, Warn: th.Warn, Fail: th.Fail, Source: th.Source})
	}
	for _, d := range docs {
		cells, sweep, ok := bottleneck.Missing(d)
		if !ok {
			continue
		}
		if j.Statements == nil {
			j.Statements = map[*result.Document]render.Statements{}
		}
		j.Statements[d] = render.Statements{Cells: cells, Sweep: sweep}
	}
	return j
}

// judgedNamed is judged for named documents.
func judgedNamed(docs []result.Named) render.Judged {
	ds := make([]*result.Document, len(docs))
	for i, d := range docs {
		ds[i] = d.Doc
	}
	return judged(ds...)
}
