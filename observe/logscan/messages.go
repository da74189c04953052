package logscan

import (
	"strings"
	"time"
	"unicode"
)

// known is one message key: what it points to and the texts etcd logs it
// with, the most specific first.
type known struct {
	key, cause string
	variants   []variant
}

// variant is one wording of a known message.
type variant struct {
	// text is the message's constant part as etcd logs it; every string
	// in match must be in the line's message for it to be this variant
	// (text itself when match is empty).
	text  string
	match []string
	// inError also looks for text in a zap line's "error" field: the
	// errors clients get are logged there, not in "msg".
	inError bool
	// field is the zap field holding the reported duration; after marks
	// where a text message writes it (the last occurrence counts: requests
	// quoted in the message may hold anything).
	field, after string
}

// messages is the table of known messages, matched in order: the first
// variant whose strings a message holds is its key. Sources are listed in
// the package documentation.
var messages = [...]known{ //nolint:gochecknoglobals // constant table
	{key: "slow-fdatasync", cause: "disk", variants: []variant{
		{text: "slow fdatasync", field: "took"},
		{text: "sync duration of", match: []string{"sync duration of ", "expected less than"}, after: "sync duration of "},
	}},
	{key: "heartbeat-late", cause: "disk", variants: []variant{
		{text: "leader failed to send out heartbeat on time", field: "exceeded-duration"},
		{text: "failed to send out heartbeat on time", match: []string{"failed to send out heartbeat"}, field: "exceeded-duration", after: " timeout for "},
	}},
	{key: "server-overloaded", cause: "disk", variants: []variant{
		{text: "server is likely overloaded"},
	}},
	{key: "readindex-slow", cause: "network", variants: []variant{
		{text: "waiting for ReadIndex response took too long, retrying"},
		{text: "timed out waiting for read index response (local node might have slow network)"},
	}},
	{key: "apply-took-too-long", cause: "disk", variants: []variant{
		{text: "apply request took too long", field: "took"},
		{text: "request took too long to execute", match: []string{"took too long (", ") to execute"}, after: "took too long ("},
		{text: "apply entries took too long", after: "took too long ["},
	}},
	// A slow request that answered a listing: what was slow is the
	// request, not the disk (expensive).
	{key: "expensive-read", cause: "requests", variants: []variant{
		{text: "apply request took too long (a large range)", field: "took", after: "took too long ("},
	}},
	// A defragmentation that ended, with how long it took
	// (etcd_disk_defrag_inflight shows one in progress from 3.4.18 and
	// 3.5.2).
	{key: "defrag-finished", cause: "defrag", variants: []variant{
		{text: "finished defragmenting directory", field: "took"},              // 3.5, 3.6
		{text: "finished defragmenting the storage backend"},                   // 3.4, capnslog
		{text: "defragmented", match: []string{"defragmented"}, field: "took"}, // 3.4, zap
	}},
	// A compaction that ended, with how long it took (etcd logs none
	// when one starts; its metrics show one in progress).
	{key: "compaction-finished", cause: "compaction", variants: []variant{
		{text: "finished scheduled compaction", field: "took", after: "(took "}, // zap 3.4 to 3.7; capnslog 3.4 "... at REV (took D)"
	}},
	// A member catching up with a snapshot of the leader's database: the
	// leader sent it, the member received and applied it.
	{key: "snapshot-sent", cause: "catch-up", variants: []variant{
		{text: "sent database snapshot to writer"}, // zap: the leader
		{text: "database snapshot sent out successfully", match: []string{"database snapshot [", "sent out successfully"}}, // capnslog 3.4
	}},
	{key: "snapshot-received", cause: "catch-up", variants: []variant{
		{text: "received and saved database snapshot", after: "took: "}, // zap; capnslog 3.4 "successfully received ... took: D]"
	}},
	{key: "snapshot-applied", cause: "catch-up", variants: []variant{
		{text: "applied snapshot", match: []string{"applied snapshot"}},                             // zap 3.4 to 3.7
		{text: "raft applied incoming snapshot", match: []string{"raft applied incoming snapshot"}}, // capnslog 3.4
	}},
	{key: "sending-buffer-full", cause: "network", variants: []variant{
		{text: "sending buffer is full"},
	}},
	{key: "receiving-buffer-full", cause: "network", variants: []variant{
		{text: "receiving buffer is full"},
	}},
	{key: "lost-tcp-streaming", cause: "network", variants: []variant{
		{text: "lost TCP streaming connection with remote peer"},
		{text: "lost the TCP streaming connection with peer"},
	}},
	{key: "lost-leader", cause: "leader", variants: []variant{
		{text: "lost leader", match: []string{"raft.node: ", " lost leader "}},
	}},
	{key: "elected-leader", cause: "leader", variants: []variant{
		{text: "elected leader", match: []string{"raft.node: ", " elected leader "}},
		{text: "changed leader", match: []string{"raft.node: ", " changed leader from "}},
	}},
	{key: "clock-difference", cause: "clock", variants: []variant{
		{text: "prober found high clock drift"},
		{text: "clock difference against peer", match: []string{"the clock difference against peer "}},
	}},
	{key: "database-space-exceeded", cause: "quota", variants: []variant{
		{text: "database space exceeded", inError: true},
		{text: "exceeded backend quota"},
	}},
	{key: "request-timed-out", cause: "leader", variants: []variant{
		{text: "request timed out", inError: true},
	}},
}

// holds reports whether msg holds all of v's strings.
func (v *variant) holds(msg string) bool {
	if len(v.match) == 0 {
		return strings.Contains(msg, v.text)
	}
	for _, m := range v.match {
		if !strings.Contains(msg, m) {
			return false
		}
	}
	return true
}

// lookup finds the known message in a line's message, then (for the
// variants that say so) in its error; nil when there is none.
func lookup(msg, errText string) (*known, *variant) {
	for i := range messages {
		for j := range messages[i].variants {
			if v := &messages[i].variants[j]; v.holds(msg) {
				return &messages[i], v
			}
		}
	}
	if errText == "" {
		return nil, nil
	}
	for i := range messages {
		for j := range messages[i].variants {
			if v := &messages[i].variants[j]; v.inError && strings.Contains(errText, v.text) {
				return &messages[i], v
			}
		}
	}
	return nil, nil
}

// tookIn reads the duration written right after the last v.after in msg
// ("1.5s", "218.166193ms", "106.821µs").
func (v *variant) tookIn(msg string) (time.Duration, bool) {
	if v.after == "" {
		return 0, false
	}
	i := strings.LastIndex(msg, v.after)
	if i < 0 {
		return 0, false
	}
	rest := msg[i+len(v.after):]
	end := strings.IndexFunc(rest, func(r rune) bool { return r != '.' && !unicode.IsDigit(r) && !unicode.IsLetter(r) })
	if end >= 0 {
		rest = rest[:end]
	}
	return parseDuration(rest)
}

// expensiveCount is the range_response_count from which a slow request's
// line is an expensive read rather than a slow apply.
const expensiveCount = 10000

// expensive turns a slow-apply line whose response listed at least
// expensiveCount keys ("range_response_count:100000", in zap's response
// field or in a text line's message) into an expensive read.
func expensive(e *entry, k *known, v *variant) (*known, *variant) {
	if k.key != "apply-took-too-long" {
		return k, v
	}
	resp := e.response
	if resp == "" {
		resp = e.msg
	}
	const label = "range_response_count:"
	i := strings.LastIndex(resp, label)
	if i < 0 {
		return k, v
	}
	digits := resp[i+len(label):]
	n := 0
	for _, r := range digits {
		if r < '0' || r > '9' {
			break
		}
		n = 10*n + int(r-'0')
		if n >= expensiveCount {
			for j := range messages {
				if messages[j].key == "expensive-read" {
					return &messages[j], &messages[j].variants[0]
				}
			}
		}
	}
	return k, v
}
