package experiment

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"go.yaml.in/yaml/v3"
)

// decode reads the file into s as strictly as go-yaml reads a struct (an
// unknown key anywhere is an error, with its line): the workloads through
// a struct type made from the registry, one field per job named by its key
// and of its fields' type, so that a job's fields are read with the rest of
// the file and their errors read as the rest's do. Each workload's job is
// the one key it sets (check refuses none or two); a job's own fault
// timeline (job.WithFaults) is read into its steps.
func (s *Spec) decode(dec *yaml.Decoder) error {
	fields := []reflect.StructField{{Name: "Name", Type: reflect.TypeFor[string](), Tag: `yaml:"name"`}}
	for i, j := range s.jobs {
		fields = append(fields, reflect.StructField{Name: "J" + strconv.Itoa(i), Type: reflect.TypeOf(j.Fields()), Tag: reflect.StructTag(`yaml:"` + j.Name() + `"`)})
	}
	fields = append(fields, reflect.StructField{Name: "Setups", Type: reflect.TypeFor[[]string](), Tag: `yaml:"setups"`})
	wt := reflect.StructOf(fields)
	rt := reflect.StructOf([]reflect.StructField{
		{Name: "Spec", Type: reflect.TypeFor[Spec](), Tag: `yaml:",inline"`},
		{Name: "Workloads", Type: reflect.SliceOf(wt), Tag: `yaml:"workloads"`},
	})
	v := reflect.New(rt)
	if err := dec.Decode(v.Interface()); err != nil {
		// go-yaml names the types it could not read into: these two by
		// the names they stand for.
		names := strings.NewReplacer(rt.String(), "experiment.Spec", wt.String(), "experiment.Workload")
		if te, ok := err.(*yaml.TypeError); ok {
			for i := range te.Errors {
				te.Errors[i] = names.Replace(te.Errors[i])
			}
			return s.yamlError(te)
		}
		return s.yamlError(err)
	}
	file, text, tree, jobs := s.file, s.text, s.tree, s.jobs
	*s = v.Elem().Field(0).Interface().(Spec)
	s.file, s.text, s.tree, s.jobs = file, text, tree, jobs
	ws := v.Elem().Field(1)
	for i := range ws.Len() {
		dw := ws.Index(i)
		w := Workload{Name: dw.Field(0).String(), Setups: dw.Field(dw.NumField() - 1).Interface().([]string)}
		for k, j := range s.jobs {
			f := dw.Field(k + 1)
			if f.IsZero() {
				continue
			}
			w.set++
			if w.Job == "" {
				w.Job, w.Fields = j.Name(), f.Interface()
			}
		}
		if wf, ok := w.Fields.(job.WithFaults); ok {
			if n := wf.JobFaults().Node(); n != nil {
				if err := n.Decode(&w.faults); err != nil {
					return s.yamlError(err)
				}
			}
		}
		s.Workloads = append(s.Workloads, w)
	}
	return nil
}
