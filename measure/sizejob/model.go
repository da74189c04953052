package sizejob

import (
	"errors"

	"github.com/etcdlab/etcdlab/measure/size"
)

// load is the etcd load the fields' cluster implies: load/sizing's model
// of Nodes, Pods and Churn, the rest from its defaults.
func (j *Fields) load() (size.Load, error) {
	_ = j.quota() // the model's quota, once load/sizing is merged
	return nil, nil
}

// errNoModel says the sizing model is not in this build.
var errNoModel = errors.New("the sizing model (load/sizing) is not in this build")
