package experiment

import (
	"os"
	"path/filepath"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/result"
)

// ReadResume reads the partial result to continue (Options.Resume): path
// is a directory holding result.json (ResultFile), or the file. Errors are
// invalid input naming the option {Resume}.
func ReadResume(path string) (*result.Document, error) {
	file := path
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		file = filepath.Join(path, ResultFile)
	}
	doc, err := result.ReadFile(file)
	if err != nil {
		return nil, invalid.Errorf("{Resume}: %v", err)
	}
	if doc.Experiment == nil {
		return nil, invalid.Errorf("{Resume}: %s is a %s result, not an experiment's", file, doc.Kind)
	}
	return doc, nil
}

// ResumeDir is where a result resumed from path (as ReadResume takes it)
// is written: where it was.
func ResumeDir(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return path
	}
	return filepath.Dir(path)
}

// ResumeSpec is the experiment a result ran, to resume it without naming
// it again: the built-in of its name, or else the file's text the result
// holds, parsed with the jobs of the registry.
func ResumeSpec(old *result.Document, jobs job.Registry) (*Spec, error) {
	if old.Experiment == nil {
		return nil, invalid.Errorf("the result to resume is a %s result, not an experiment's", old.Kind)
	}
	if _, ok := Builtin(old.Experiment.Name); ok {
		return Load(old.Experiment.Name, jobs)
	}
	return Parse(old.Experiment.Name+".yaml", []byte(old.Experiment.Spec), jobs)
}
