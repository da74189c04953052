package result

// KindDisk is the kind of `etcdlab disk` documents.
const KindDisk = "disk"

// Disk is the result of a disk qualification.
type Disk struct {
	Profile    string `json:"profile"` // etcd, openshift
	Dir        string `json:"dir"`
	Filesystem string `json:"filesystem"`
	Device     string `json:"device,omitempty"`
	// Equivalent is the fio command line the main job reproduces.
	Equivalent string    `json:"fio_equivalent"`
	Jobs       []DiskJob `json:"jobs"`
	Warnings   []string  `json:"warnings,omitempty"`
	// Suite classifies the disk from the full suite's IOPS, when run.
	Suite string `json:"suite_classification,omitempty"`
}

// DiskJob is one job's measurements. Latencies are in seconds.
type DiskJob struct {
	Name            string  `json:"name"`
	BlockSize       int     `json:"block_size_bytes"`
	Sync            string  `json:"sync,omitempty"` // fdatasync, fsync, odsync
	QueueDepth      int     `json:"queue_depth"`
	Direct          bool    `json:"direct"`
	Ops             int64   `json:"ops"`
	ReadOps         int64   `json:"read_ops,omitempty"`
	WriteOps        int64   `json:"write_ops,omitempty"`
	Bytes           int64   `json:"bytes"`
	RuntimeSeconds  float64 `json:"runtime_seconds"`
	IOPS            float64 `json:"iops"`
	ReadIOPS        float64 `json:"read_iops,omitempty"`
	WriteIOPS       float64 `json:"write_iops,omitempty"`
	BandwidthBytesS float64 `json:"bandwidth_bytes_per_second"`
	// SyncLatency is the latency of the sync call (fdatasync or fsync) after
	// each write; for odsync, the write itself.
	SyncLatency *DiskLatency `json:"sync_latency,omitempty"`
	// IOLatency is the latency of each read or write call.
	IOLatency    *DiskLatency `json:"io_latency,omitempty"`
	StoppedEarly string       `json:"stopped_early,omitempty"`
}

// DiskLatency is a distribution with fio's percentile list.
type DiskLatency struct {
	Min         float64      `json:"min"`
	Mean        float64      `json:"mean"`
	Stddev      float64      `json:"stddev"`
	Max         float64      `json:"max"`
	Percentiles []Percentile `json:"percentiles"`
}

// Percentile is one point of a distribution.
type Percentile struct {
	P       float64 `json:"p"`
	Seconds float64 `json:"seconds"`
}

// At returns percentile p, or 0 when it was not computed.
func (l *DiskLatency) At(p float64) float64 {
	if l == nil {
		return 0
	}
	for _, q := range l.Percentiles {
		if q.P == p {
			return q.Seconds
		}
	}
	return 0
}
