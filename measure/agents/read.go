package agents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/etcdlab/etcdlab/result"
)

// Marker starts the one line on which an agent without a result file
// writes its result (on stdout, so that `kubectl logs` carries it, between
// whatever else the pod logged).
const Marker = "etcdlab-agent-result "

// WriteLine writes doc as one marker line.
func WriteLine(w io.Writer, doc *result.Document) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", Marker, b)
	return err
}

// ReadResults reads agents' results from r: one or more JSON result
// documents, or text in which results sit on marker lines (the output of
// `kubectl logs` over the Job's pods, with or without --prefix or
// --timestamps). It reports an error for input holding neither, naming
// the line of a marker line that does not decode.
func ReadResults(r io.Reader) ([]*result.Document, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	first, err := firstByte(br)
	if err != nil {
		return nil, err
	}
	if first == '{' {
		return readJSON(br)
	}
	var docs []*result.Document
	for line := 1; ; line++ {
		s, err := br.ReadString('\n')
		if i := strings.Index(s, Marker); i >= 0 {
			d, derr := result.Read(strings.NewReader(s[i+len(Marker):]))
			if derr != nil {
				return nil, fmt.Errorf("line %d: %w", line, derr)
			}
			docs = append(docs, d)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(docs) == 0 {
		return nil, errors.New("no agent result in it: neither a result document nor a line starting " + strings.TrimSpace(Marker))
	}
	return docs, nil
}

// readJSON reads concatenated result documents.
func readJSON(r io.Reader) ([]*result.Document, error) {
	dec := json.NewDecoder(r)
	var docs []*result.Document
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("not a result document: %w", err)
		}
		d, err := result.Read(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// firstByte peeks at the first byte that is not white space.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0, errors.New("empty: no agent result in it")
			}
			return 0, err
		}
		if b != ' ' && b != '\n' && b != '\t' && b != '\r' {
			return b, br.UnreadByte()
		}
	}
}
