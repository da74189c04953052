package agents

import (
	"bufio"
	"errors"
	"os"
	"strings"
)

// ReadArgsFile reads a bench command line from path, one argument per
// line, blank lines and lines starting with # ignored: the Job's
// ConfigMap (ArgsFile), as Manifests writes it.
func ReadArgsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var args []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		args = append(args, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nil, errors.New(path + " holds no arguments")
	}
	return args, nil
}
