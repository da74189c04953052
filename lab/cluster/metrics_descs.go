package cluster

import "github.com/prometheus/client_golang/prometheus"

// clusterDescs are the metrics Metrics exposes. Immutable.
type clusterDescs struct {
	up, stopped, starts, exits, faults, leader, leaderChanges, term                             *prometheus.Desc
	linkDelay, linkJitter, linkRate, linkLoss, linkPartitioned, linkHold, linkChunks, linkBytes *prometheus.Desc
}

func newClusterDescs() clusterDescs {
	member, link := []string{"member"}, []string{"from", "to"}
	desc := func(name, help string, labels []string) *prometheus.Desc {
		return prometheus.NewDesc("etcdlab_cluster_"+name, help, labels, nil)
	}
	return clusterDescs{
		up:      desc("member_up", "1 while the member's process runs (it may be stopped), 0 after it exited.", member),
		stopped: desc("member_stopped", "1 while the member's process is stopped (SIGSTOP: a paused member answers nothing).", member),
		starts:  desc("member_starts_total", "Processes started for the member (1, plus restarts).", member),
		exits:   desc("member_exits_total", "The member's processes that exited while the cluster ran (kills, crashes).", member),
		faults:  desc("faults_total", "Faults injected through the process that runs the cluster (its control socket: cluster fault restart, link, partition, heal; experiment timelines).", []string{"fault"}),
		leader:  desc("member_is_leader", "1 for the member that leads in the highest term among those answering at the scrape.", member),
		leaderChanges: desc("leader_changes_seen_total",
			"Changes of the leading member between one scrape and the next (several within one scrape interval count once; each member's etcd_server_leader_changes_seen_total is exact).", nil),
		term:            desc("raft_term", "The leader's raft term at the last scrape that found a leader.", nil),
		linkDelay:       desc("link_delay_seconds", "Configured one-way delay of the emulated directed link.", link),
		linkJitter:      desc("link_jitter_seconds", "Configured jitter (uniform, +/-) of the emulated directed link.", link),
		linkRate:        desc("link_rate_bytes_per_second", "Configured bandwidth of the emulated directed link (0: unlimited).", link),
		linkLoss:        desc("link_loss_ratio", "Configured fraction of chunks lost once on the emulated directed link.", link),
		linkPartitioned: desc("link_partitioned", "1 while the emulated directed link is partitioned (delivers nothing).", link),
		linkHold:        desc("link_hold_seconds", "Median time the emulator held the link's most recent chunks (up to 256 since its last change).", link),
		linkChunks:      desc("link_chunks_total", "Chunks the emulated directed link delivered.", link),
		linkBytes:       desc("link_bytes_total", "Bytes the emulated directed link delivered.", link),
	}
}

func (d *clusterDescs) describe(ch chan<- *prometheus.Desc) {
	for _, x := range []*prometheus.Desc{d.up, d.stopped, d.starts, d.exits, d.faults, d.leader, d.leaderChanges, d.term,
		d.linkDelay, d.linkJitter, d.linkRate, d.linkLoss, d.linkPartitioned, d.linkHold, d.linkChunks, d.linkBytes} {
		ch <- x
	}
}
