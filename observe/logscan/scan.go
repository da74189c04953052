package logscan

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// DefaultMaxLineBytes is the longest line read when Options leave it zero.
const DefaultMaxLineBytes = 1 << 20

// readBuffer is the size of reads from a source.
const readBuffer = 64 << 10

// unnamed is the member of a stream with no name of its own.
const unnamed = "stdin"

// Options say whose logs are read and which part of them.
type Options struct {
	// Member, if set, names the member of every source, whatever the
	// sources say.
	Member string
	// Since and Until, if not zero, keep only lines logged in [Since,
	// Until]; lines without a timestamp are kept.
	Since, Until time.Time
	// MaxLineBytes is the longest line read (DefaultMaxLineBytes when
	// zero); a longer line is counted as unrecognised.
	MaxLineBytes int
}

// Scan counts the known messages in one stream of one member's log.
// member names the stream's source ("" when it has none) and is its
// member unless Options.Member is set or the log names the member (see
// the package documentation). A stream that starts as gzip is
// decompressed. A stream in no known format is no error: Lines counts
// its lines and Unrecognised those in no format. The error is the
// stream's own (a failed read, a corrupt gzip stream); a gzip stream cut
// short counts the lines before the cut. Scan returns at the stream's end
// and holds nothing afterwards; it is safe for concurrent use on
// different streams. Its census lists no sources.
func Scan(r io.Reader, member string, o Options) (result.LogCensus, error) {
	t := newTally()
	err := t.scan(context.Background(), r, member, o)
	return t.result(), err
}

// scan adds one source to the census.
func (t *tally) scan(ctx context.Context, r io.Reader, source string, o Options) error {
	maxLine := o.MaxLineBytes
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	br := bufio.NewReaderSize(r, readBuffer)
	in, gz := io.Reader(br), false
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return err
		}
		defer zr.Close()
		in, gz = zr, true
	}
	s := newStream()
	err := eachLine(ctx, in, maxLine, func(line []byte, tooLong bool) {
		if tooLong {
			t.census.Lines++
			t.census.Unrecognised++
			return
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || bytes.HasPrefix(line, []byte("-- ")) && bytes.HasSuffix(line, []byte(" --")) {
			return // blank, or journalctl's "-- Boot 1a2b… --"
		}
		t.census.Lines++
		e, ok := parseLine(string(line))
		if !ok {
			t.census.Unrecognised++
			return
		}
		if s.name == "" {
			s.name = e.name
		}
		if s.localID == "" {
			s.localID = e.localID
		}
		if !e.ts.IsZero() && (!o.Since.IsZero() && e.ts.Before(o.Since) || !o.Until.IsZero() && e.ts.After(o.Until)) {
			return
		}
		t.seen(&e)
		if k, v := lookup(e.msg, e.errText); k != nil {
			k, v = expensive(&e, k, v)
			s.add(&e, k, v)
		}
	})
	if gz && errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil // a gzip file cut short, as a log being rotated may be
	}
	t.merge(memberOf(o.Member, s.name, source, s.localID), s)
	return err
}

// memberOf picks a source's member: the caller's, the log's own name, the
// source's name, the log's member ID, or "stdin", the first not empty.
func memberOf(names ...string) string {
	for _, n := range names {
		if n != "" {
			return n
		}
	}
	return unnamed
}

// eachLine calls f with every line of r (without its newline), and
// tooLong for a line longer than maxLine bytes (whose bytes it drops). f
// must not keep line. It checks ctx every few thousand lines.
func eachLine(ctx context.Context, r io.Reader, maxLine int, f func(line []byte, tooLong bool)) error {
	br := bufio.NewReaderSize(r, readBuffer) // r itself when it is one
	var long []byte
	tooLong := false
	for n := 1; ; n++ {
		frag, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong && len(long)+len(frag) > maxLine {
				tooLong, long = true, long[:0]
			} else if !tooLong {
				long = append(long, frag...)
			}
			continue
		}
		line := bytes.TrimSuffix(frag, []byte{'\n'})
		if len(long) > 0 {
			long = append(long, line...)
			line = long
		}
		if len(line) > maxLine {
			tooLong = true
		}
		if len(line) > 0 || tooLong {
			f(line, tooLong)
		}
		long, tooLong = long[:0], false
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
}
