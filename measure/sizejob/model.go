package sizejob

import (
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load/sizing"
	"github.com/etcdlab/etcdlab/measure/size"
)

// load is the etcd load the fields' cluster implies: load/sizing's model
// of Nodes, Pods and Churn, every other figure from the model's defaults
// with their sources (docs/sizing.md), judged against the quota.
func (j *Fields) load() (size.Load, error) {
	return size.FromModel(sizing.Cluster{Nodes: j.Nodes, Pods: j.Pods, Churn: j.Churn}, j.quota())
}

// modelPath is the path of the field a model's error names first (nil
// when it names none of the job's fields).
func modelPath(err error) []any {
	inv := invalid.As(err)
	if inv == nil {
		return nil
	}
	for _, p := range inv.Params() {
		switch p {
		case "Nodes", "Pods", "Churn":
			return []any{yamlSizeName(p)}
		}
	}
	return nil
}
