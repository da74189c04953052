package slowfs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// fitFileKey begins a fit read from a tool's output: "fit:file=PATH".
const fitFileKey = "file="

// minFilePercentile is the lowest percentile a fit from a file uses: the
// median and above, so the knots sit where etcd's waits hurt and the tail
// is the measured one, not an extrapolation from the fast end.
const minFilePercentile = 50

// toolPercentile is one percentile a tool printed.
type toolPercentile struct {
	p float64
	d time.Duration
}

var (
	// fio's text output: "    sync percentiles (usec):" then lines like
	// "     |  1.00th=[ 1004],  5.00th=[ 1123], ...".
	fioSyncHeader = regexp.MustCompile(`^sync percentiles \((nsec|usec|msec)\):`)
	fioEntry      = regexp.MustCompile(`([0-9.]+)th=\[\s*([0-9]+)\s*\]`)
	// etcd-perf (quay.io/openshift-scale/etcd-perf): "INFO: 99th
	// percentile of fsync is 692060160 ns".
	etcdPerfP99 = regexp.MustCompile(`99th percentile of fsync is ([0-9]+) ns`)
)

// fitFromFile reads the sync percentiles in a tool's output at path and
// turns those from p50 up into a fit's knots. spec is the whole delay
// text, for errors; each error is one line naming the file and what it
// lacks.
func fitFromFile(spec, path string) ([]knot, error) {
	if path == "" {
		return nil, fmt.Errorf("%q: fit:file= needs a path (fio's output, text or --output-format=json)", spec)
	}
	b, err := readToolOutput(path)
	if err != nil {
		return nil, fmt.Errorf("%q: %q: %w", spec, path, err)
	}
	ps, err := toolPercentiles(b)
	if err != nil {
		return nil, fmt.Errorf("%q: %q: %w", spec, path, err)
	}
	var ks []knot
	for _, p := range ps {
		// fio rounds to its unit: percentiles with the value of the one
		// below them add nothing (the lower one is kept), and a fit needs
		// each larger than the last.
		ln := math.Log(p.d.Seconds())
		if p.p < minFilePercentile || p.p >= 100 || p.d <= 0 || (len(ks) > 0 && ln <= ks[len(ks)-1].ln) {
			continue
		}
		ks = append(ks, knot{p: p.p, z: zScore(p.p / 100), ln: ln})
	}
	if len(ks) < 2 {
		return nil, fmt.Errorf("%q: %q: %d distinct sync percentile(s) from p%d up; a fit needs at least two", spec, path, len(ks), minFilePercentile)
	}
	return ks, nil
}

// maxToolOutput bounds what a fit reads: fio's output is a few kilobytes,
// even as JSON.
const maxToolOutput = 16 << 20

// readToolOutput reads a regular file of at most maxToolOutput bytes (not
// a device or a pipe, which could be endless). Its errors do not repeat
// the path.
func readToolOutput(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, errors.New("not a regular file")
	case fi.Size() > maxToolOutput:
		return nil, fmt.Errorf("larger than %d MiB: not a tool's output", maxToolOutput>>20)
	}
	return io.ReadAll(io.LimitReader(f, maxToolOutput))
}

// toolPercentiles finds the sync (fsync/fdatasync) latency percentiles in
// a tool's output, sorted by percentile: fio's JSON (jobs[0].sync.lat_ns,
// also when embedded in other text as etcd-perf prints it), else the first
// "sync percentiles" block of fio's text output. etcd-perf's own summary
// gives only a p99, which is refused.
func toolPercentiles(b []byte) ([]toolPercentile, error) {
	ps, jsonErr := fioJSONPercentiles(b)
	if len(ps) == 0 {
		ps = fioTextPercentiles(b)
	}
	if len(ps) > 0 {
		sort.Slice(ps, func(i, j int) bool { return ps[i].p < ps[j].p })
		return ps, nil
	}
	if jsonErr != nil {
		return nil, jsonErr
	}
	if m := etcdPerfP99.FindSubmatch(b); m != nil {
		return nil, fmt.Errorf("only a p99 (etcd-perf's %q); a fit needs at least two percentiles: give fio's output (text, or --output-format=json)", string(m[0]))
	}
	return nil, errors.New(`no sync percentiles: want fio's text output (a "sync percentiles (usec):" block) or its --output-format=json (jobs[0].sync.lat_ns.percentile), of a job with fsync=1 or fdatasync=1`)
}

// fioJSON is the part of fio's --output-format=json a fit reads.
type fioJSON struct {
	Jobs []struct {
		Sync struct {
			LatNs struct {
				Percentile map[string]float64 `json:"percentile"`
			} `json:"lat_ns"`
		} `json:"sync"`
	} `json:"jobs"`
}

// fioJSONPercentiles reads jobs[0].sync.lat_ns.percentile from the first
// JSON object starting a line of b. No object is no error; an fio object
// without sync percentiles is one.
func fioJSONPercentiles(b []byte) ([]toolPercentile, error) {
	start := -1
	if bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("{")) {
		start = bytes.IndexByte(b, '{')
	} else if i := bytes.Index(b, []byte("\n{")); i >= 0 {
		start = i + 1
	}
	if start < 0 {
		return nil, nil
	}
	var f fioJSON
	if err := json.NewDecoder(bytes.NewReader(b[start:])).Decode(&f); err != nil {
		return nil, nil // not JSON after all (or cut short): try the text forms
	}
	if len(f.Jobs) == 0 || len(f.Jobs[0].Sync.LatNs.Percentile) == 0 {
		return nil, errors.New("fio JSON without jobs[0].sync.lat_ns.percentile: run the job with fsync=1 or fdatasync=1")
	}
	var ps []toolPercentile
	for k, v := range f.Jobs[0].Sync.LatNs.Percentile {
		p, err := strconv.ParseFloat(k, 64)
		if err != nil {
			return nil, fmt.Errorf("fio JSON: sync percentile %q is not a number", k)
		}
		ps = append(ps, toolPercentile{p: p, d: time.Duration(v)})
	}
	return ps, nil
}

// fioTextPercentiles reads the first "sync percentiles" block of fio's
// text output.
func fioTextPercentiles(b []byte) []toolPercentile {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		m := fioSyncHeader.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		unit := map[string]time.Duration{"nsec": time.Nanosecond, "usec": time.Microsecond, "msec": time.Millisecond}[m[1]]
		var ps []toolPercentile
		for _, row := range lines[i+1:] {
			row = strings.TrimSpace(row)
			if !strings.HasPrefix(row, "|") {
				break
			}
			for _, e := range fioEntry.FindAllStringSubmatch(row, -1) {
				p, err1 := strconv.ParseFloat(e[1], 64)
				v, err2 := strconv.ParseInt(e[2], 10, 64)
				if err1 == nil && err2 == nil {
					ps = append(ps, toolPercentile{p: p, d: time.Duration(v) * unit})
				}
			}
		}
		return ps
	}
	return nil
}

// resolveFitFile makes a relative fit:file= path in spec relative to dir
// (a topology or experiment file's directory); other specs, absolute
// paths and an empty dir are left as they are.
func resolveFitFile(spec, dir string) string {
	p, ok := strings.CutPrefix(spec, fitPrefix+fitFileKey)
	if !ok || dir == "" || p == "" || filepath.IsAbs(p) {
		return spec
	}
	return fitPrefix + fitFileKey + filepath.Join(dir, p)
}
