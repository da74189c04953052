package metrics

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// parseDelimited reads Prometheus's delimited protobuf format (each
// MetricFamily a varint length and the message) into a Snapshot, decoding
// only the families the scraper keeps: a family's name, its first field,
// is read without decoding the rest. Series at 0 of sparse families are
// dropped, as from text. Errors are one line, as Parse's.
func (s *Scraper) parseDelimited(url string, at time.Time, body []byte) (*Snapshot, error) {
	fams := map[string]*dto.MetricFamily{}
	for len(body) > 0 {
		n, k := binary.Uvarint(body)
		if k <= 0 || n > uint64(len(body)-k) {
			return nil, fmt.Errorf("%s does not serve Prometheus metrics: a truncated protobuf message", url)
		}
		msg := body[k : k+int(n)]
		body = body[k+int(n):]
		if name, ok := familyName(msg); ok && s.keep != nil && !s.keep[name] {
			continue
		}
		if name, ok := familyName(msg); ok && s.sparse[name] {
			msg = dropZeroMetrics(msg)
		}
		mf := &dto.MetricFamily{}
		if err := proto.Unmarshal(msg, mf); err != nil {
			return nil, fmt.Errorf("%s does not serve Prometheus metrics: %w", url, firstLineOf(err))
		}
		if s.keep != nil && !s.keep[mf.GetName()] {
			continue
		}
		if len(mf.Metric) > 0 { // as the text parser, which drops empty families
			fams[mf.GetName()] = mf
		}
	}
	if _, ok := fams[string(HasLeader)]; !ok {
		return nil, fmt.Errorf("%s serves Prometheus metrics, but not etcd's (no %s)", url, HasLeader)
	}
	return &Snapshot{URL: url, At: at, Families: fams}, nil
}

// familyName reads a MetricFamily's name (field 1, a string) when it is
// the message's first field, as Go's and most encoders write it.
func familyName(msg []byte) (string, bool) {
	if len(msg) < 2 || msg[0] != 0x0a { // field 1, wire type 2 (bytes)
		return "", false
	}
	n, k := binary.Uvarint(msg[1:])
	if k <= 0 || n > uint64(len(msg)-1-k) {
		return "", false
	}
	return string(msg[1+k : 1+k+int(n)]), true
}

// dropZeroMetrics returns a MetricFamily message without its metrics
// (field 4) whose counter, gauge or untyped value is 0, found by walking
// the wire format rather than decoding them (etcd's gRPC counter has some
// 750 series, nearly all 0). A message it cannot walk is returned whole.
func dropZeroMetrics(msg []byte) []byte {
	out := make([]byte, 0, len(msg))
	for rest := msg; len(rest) > 0; {
		num, typ, n := protowire.ConsumeTag(rest)
		if n < 0 {
			return msg
		}
		m := protowire.ConsumeFieldValue(num, typ, rest[n:])
		if m < 0 {
			return msg
		}
		field := rest[:n+m]
		rest = rest[n+m:]
		if num == 4 && typ == protowire.BytesType {
			if v, ok := metricValue(field[n:]); ok && v == 0 {
				continue
			}
		}
		out = append(out, field...)
	}
	return out
}

// metricValue reads the value of a Metric (length-prefixed) whose value
// is a gauge (field 2), counter (3) or untyped (5), each holding it as a
// double in field 1; ok is false for anything else (a histogram).
func metricValue(b []byte) (float64, bool) {
	metric, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, false
	}
	for len(metric) > 0 {
		num, typ, n := protowire.ConsumeTag(metric)
		if n < 0 {
			return 0, false
		}
		metric = metric[n:]
		if typ == protowire.BytesType && (num == 2 || num == 3 || num == 5) {
			inner, m := protowire.ConsumeBytes(metric)
			if m < 0 {
				return 0, false
			}
			v := 0.0 // proto3: a value of 0 is not written
			for len(inner) > 0 {
				fnum, ftyp, k := protowire.ConsumeTag(inner)
				if k < 0 {
					return 0, false
				}
				inner = inner[k:]
				if fnum == 1 && ftyp == protowire.Fixed64Type {
					bits, j := protowire.ConsumeFixed64(inner)
					if j < 0 {
						return 0, false
					}
					v = math.Float64frombits(bits)
				}
				j := protowire.ConsumeFieldValue(fnum, ftyp, inner)
				if j < 0 {
					return 0, false
				}
				inner = inner[j:]
			}
			return v, true
		}
		m := protowire.ConsumeFieldValue(num, typ, metric)
		if m < 0 {
			return 0, false
		}
		metric = metric[m:]
	}
	return 0, false
}
