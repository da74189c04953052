package disk

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/etcdlab/etcdlab/internal/units"
)

// mount describes the mount holding a directory.
type mount struct {
	point, fstype, source, options, majmin string
}

// findMount returns the mount holding dir, from /proc/self/mountinfo.
func findMount(dir string) (mount, bool) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return mount{}, false
	}
	defer f.Close()
	var best mount
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		a, b := strings.Fields(pre), strings.Fields(post)
		if len(a) < 6 || len(b) < 3 {
			continue
		}
		point := unescape(a[4])
		if (dir == point || strings.HasPrefix(dir, strings.TrimSuffix(point, "/")+"/")) && len(point) >= len(best.point) {
			best = mount{point: point, fstype: b[0], source: b[1], options: a[5] + "," + b[2], majmin: a[2]}
		}
	}
	return best, best.point != ""
}

func unescape(s string) string {
	return strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`).Replace(s)
}

// device describes the block device behind a mount, from sysfs.
func device(m mount) string {
	link, err := filepath.EvalSymlinks("/sys/dev/block/" + m.majmin)
	if err != nil {
		return m.source
	}
	queue := filepath.Join(link, "queue")
	if _, err := os.Stat(queue); err != nil {
		queue = filepath.Join(filepath.Dir(link), "queue") // a partition
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(queue, name))
		if err != nil {
			return "?"
		}
		return strings.TrimSpace(string(b))
	}
	rot := map[string]string{"0": "no", "1": "yes"}[read("rotational")]
	if rot == "" {
		rot = "?"
	}
	return fmt.Sprintf("%s (%s; rotational: %s, write cache: %s)", filepath.Base(link), m.source, rot, read("write_cache"))
}

// honestWarnings says what could make the results meaningless.
func honestWarnings(m mount, fs string, p50 float64, size int64, o *Options) []string {
	var w []string
	switch fs {
	case "tmpfs", "ramfs":
		w = append(w, fmt.Sprintf("%s is on %s (memory): syncs are no-ops, so these results say nothing about a real disk", o.Dir, fs))
	case "overlayfs", "fuse":
		w = append(w, fmt.Sprintf("%s is on %s: syncs pass through another layer; qualify the underlying disk directly if you can", o.Dir, fs))
	}
	for _, opt := range strings.Split(m.options, ",") {
		switch opt {
		case "nobarrier", "barrier=0":
			w = append(w, fmt.Sprintf("%s is mounted with %s: syncs do not flush the device's write cache, so latencies are optimistic and data can be lost on power failure", m.point, opt))
		}
	}
	if fs != "tmpfs" && fs != "ramfs" && p50 > 0 && p50 < 50e-6 {
		w = append(w, fmt.Sprintf("fdatasync p50 of %s is faster than durable storage usually is (a good NVMe takes about 20 to 100 µs): the device or hypervisor may acknowledge syncs from a volatile cache (a VM disk with cache=unsafe or writeback, say)", units.Seconds(p50)))
		if size < 64<<20 {
			w = append(w, fmt.Sprintf("the test wrote only %d MiB, which a device or host cache can absorb entirely; a longer run (a 1 GiB file) shows whether the rate holds", size>>20))
		}
	}
	return w
}
