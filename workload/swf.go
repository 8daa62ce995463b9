package workload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	gzip "github.com/klauspost/compress/gzip"
	"io"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
)

// SWFFieldNames names the 18 fields of an SWF job line, index 0 = field 1.
var SWFFieldNames = [18]string{
	"job number", "submit time", "wait time", "run time", "allocated processors",
	"average CPU time", "used memory", "requested processors", "requested time",
	"requested memory", "status", "user id", "group id", "executable number",
	"queue number", "partition number", "preceding job number", "think time",
}

// maxSWFValue is the largest magnitude the reader accepts in a field: larger
// values are garbage, and every field then fits an int64 with room to spare.
const maxSWFValue = 1e15

// ErrNoJobs is returned by readers of a trace that holds no job at all.
var ErrNoJobs = errors.New("workload: trace has no jobs")

// ParseError is a bad input record: the file, the line (1-based) of a text
// file (SWF, sacct output, Batsim's JSON) or the row (1-based) of a Parquet
// file, and the field: the 1-based SWF field number (0 when the whole record
// is at fault or the field is not one of SWF's), the column's name for
// Parquet and sacct output, or the key of a JSON value for Batsim
// ("jobs[3].subtime").
type ParseError struct {
	Path   string
	Line   int64
	Row    int64
	Field  int
	Column string
	Key    string
	Err    error
}

// Error implements error, in the form "path:line: field N (name): reason" for
// SWF, "path: row N: column "name": reason" for Parquet, "path:line: column
// "name": reason" for sacct output and "path:line: key "jobs[3].res":
// reason" for Batsim.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Row > 0 {
		fmt.Fprintf(&b, ": row %d", e.Row)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": key %q", e.Key)
	} else if e.Column != "" {
		fmt.Fprintf(&b, ": column %q", e.Column)
	} else if e.Field > 0 && e.Field <= len(SWFFieldNames) {
		fmt.Fprintf(&b, ": field %d (%s)", e.Field, SWFFieldNames[e.Field-1])
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// HeaderField is one "; Key: value" directive of an SWF header, in file order.
type HeaderField struct {
	Key   string
	Value string
}

// Header is what an SWF file's leading comment block says.
type Header struct {
	// Fields are the "Key: value" directives in file order, keys and values trimmed.
	Fields []HeaderField
	// Comments are all leading comment lines as written, without the ';'.
	Comments []string
	// MaxProcs and MaxNodes are the machine size directives, 0 when absent,
	// unknown (-1) or not a machine size (see MachineSize). The value's first
	// number counts: text before and after it is ignored ("338 (batch
	// partition; 512 total)" is 338), and it may be written as SWF's job
	// lines write numbers ("1e3" and "1000.0" are 1000).
	MaxProcs, MaxNodes int
	// Preemption is the value of the Preemption directive ("No", "Yes", "Double"), or "".
	Preemption string

	// procsErr and nodesErr are the errors of MaxProcs and MaxNodes
	// directives whose value is not a machine size.
	procsErr, nodesErr error
}

// Get returns the value of the first directive named key (case-insensitive), or "".
func (h *Header) Get(key string) string {
	for _, f := range h.Fields {
		if strings.EqualFold(f.Key, key) {
			return f.Value
		}
	}
	return ""
}

// UnixStart returns the trace's start, the header's UnixStartTime in Unix
// seconds (its first word, an integer), and whether it has one. Times
// since the trace's start (Job.Submit, …) are counted from it.
func (h *Header) UnixStart() (int64, bool) {
	f := strings.Fields(h.Get("UnixStartTime"))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || v < -maxUnixStart || v > maxUnixStart {
		return 0, false
	}
	return v, true
}

// maxUnixStart bounds the UnixStartTime Header.UnixStart accepts: about
// 31,000 years either side of 1970, so that the trace's instants in
// milliseconds stay far inside an int64.
const maxUnixStart = 1 << 40

// SWFReader streams the jobs of an SWF trace, applying the cleaning rules.
// It reads the header when it is created and one line per job after that, so
// memory does not grow with the trace.
type SWFReader struct {
	path   string
	src    io.Reader // the text, decompressed
	closer []io.Closer
	hdr    Header
	cl     cleaner
	line   int64
	// *swfText holds the text read ahead, buf[pos:end] not parsed yet,
	// followed by a NUL (see parseFast), and the fields of the line last
	// parsed; rerr is the error that ended src, once met, which comes
	// after the text in buf.
	*swfText
	rerr error
	// long gathers a line too long for buf; first is the first job line
	// when readHeader met it there (else readHeader puts it back in buf).
	long  []byte
	first []byte
	done  bool
	// general turns parseFast off (tests compare both paths).
	general bool
	// extra is the rule ExtraFieldsIgnore: fields after the 18th are
	// ignored.
	extra bool
}

// swfText is an SWFReader's text buffer and the values of the line last
// parsed: parseFast reaches both from one pointer, which leaves more
// registers to its fields.
type swfText struct {
	fields [18]float64
	ints   [18]bool
	// vals holds the fields read as integers; frac marks (bit k for field
	// k+1) those in fields and ints instead.
	vals [18]int64
	frac uint32
	// buf[pos:end] is the text not parsed yet.
	pos, end int
	// strict (set by Open) also rejects negative values other than -1,
	// binary data and overlong lines.
	strict bool
	buf    [swfBufSize + 8]byte
}

// swfBufSize is the size of an SWFReader's text buffer, less 8 bytes that
// are there only for 8-byte loads at its last indexes: a power of two, so
// that parseFast can mask its indexes into it (see load64). The text in it
// stops swfBufSlack bytes before swfBufSize: parseFast reads at most 15
// bytes past the NUL that follows the text, and the last line may be given
// a '\n' there.
const (
	swfBufSize  = 64 << 10
	swfBufSlack = 64
	swfBufText  = swfBufSize - swfBufSlack // room for text
)

// maxStrictLine is, about, the longest line a strict reader accepts: an SWF
// job line is about a hundred bytes, so anything longer is not SWF. The
// line it rejects is one of strictLineReject bytes or more before its '\n':
// the reader used to check the limit after each 256 KiB of a long line it
// gathered, and keeps the length at which that check failed.
const (
	maxStrictLine    = 1 << 20
	strictLineReject = maxStrictLine + 256<<10
)

var _ Reader = (*SWFReader)(nil)

// OpenSWF opens an SWF trace file, plain or gzip-compressed (detected from
// its first bytes, not its name). Close the reader when done.
func OpenSWF(path string, rules Rules) (*SWFReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewSWFReader(f, path, rules)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = append(r.closer, f)
	return r, nil
}

// NewSWFReader reads an SWF trace from in, plain or gzip-compressed; path
// names the input in errors. It reads the header before returning.
func NewSWFReader(in io.Reader, path string, rules Rules) (*SWFReader, error) {
	return newSWFReader(in, path, rules, false, false)
}

// newSWFReader is NewSWFReader with Open's checks (strict) and Raw (raw).
func newSWFReader(in io.Reader, path string, rules Rules, strict, raw bool) (*SWFReader, error) {
	if err := rules.Validate(); err != nil {
		return nil, err
	}
	r := &SWFReader{path: path, swfText: &swfText{strict: strict}}
	r.cl = newCleaner(rules, &r.hdr, "SWF lines")
	r.cl.raw = raw
	br := bufio.NewReaderSize(in, 256<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &ParseError{Path: path, Err: fmt.Errorf("bad gzip stream: %w", err)}
		}
		// Decompress on a goroutine of its own, ahead of the parser.
		ra := newReadAhead(zr)
		r.closer = append(r.closer, zr, ra)
		br = bufio.NewReaderSize(ra, 256<<10)
	}
	r.src = br
	if strict {
		if err := r.sniff(br); err != nil {
			r.Close()
			return nil, err
		}
	}
	if err := r.readHeader(); err != nil {
		r.Close()
		return nil, err
	}
	if err := r.cl.prepare(); err != nil {
		r.Close()
		return nil, &ParseError{Path: path, Err: err}
	}
	r.extra = rules.ExtraFields == ExtraFieldsIgnore
	return r, nil
}

// sniff rejects binary input before lines are read: a NUL byte in the first
// 4 KiB of (decompressed) text.
func (r *SWFReader) sniff(br *bufio.Reader) error {
	head, err := br.Peek(4096)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return &ParseError{Path: r.path, Line: 1, Err: err}
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		line := 1 + int64(bytes.Count(head[:i], []byte{'\n'}))
		return &ParseError{Path: r.path, Line: line, Err: fmt.Errorf("binary data (a NUL byte at offset %d): not an SWF text trace", i)}
	}
	return nil
}

// empty reports whether the trace has no job line at all (only header
// comments and blank lines, or nothing); it is valid right after creation.
func (r *SWFReader) empty() bool { return r.done && r.first == nil }

// errorAt returns a *ParseError about the last record read.
func (r *SWFReader) errorAt(field int, err error) *ParseError {
	return &ParseError{Path: r.path, Line: r.line, Field: field, Err: err}
}

// Header returns the trace's header.
func (r *SWFReader) Header() *Header { return &r.hdr }

// Stats returns the counts of records read and rules applied so far.
func (r *SWFReader) Stats() CleanStats { return r.cl.stats }

// Path returns the name of the input, as given.
func (r *SWFReader) Path() string { return r.path }

// Close releases the underlying file and decompressor.
func (r *SWFReader) Close() error {
	var first error
	for i := len(r.closer) - 1; i >= 0; i-- {
		if err := r.closer[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	r.closer = nil
	return first
}

// readLine returns the next line: its text, without its end-of-line bytes
// ('\n' and the '\r's before it), is buf[s:n], and its '\n' is at e (r.pos
// is then e+1; a last line without one is given one). A line too long for
// buf comes back as r.long, with s = -1 (n and e are then meaningless).
// The text is valid until the next call. It returns io.EOF after the last
// line.
func (r *SWFReader) readLine() (s, n, e int, err error) {
	s = r.pos
	i := bytes.IndexByte(r.buf[s:r.end], '\n')
	if i < 0 {
		return r.readLineMore()
	}
	e = s + i
	r.pos = e + 1
	r.line++
	return s, trimCR(&r.buf, s, e), e, nil
}

// trimCR returns the end of the text of the line b[s:e] without the '\r's
// at its end. (The mask, which changes nothing, spares a bounds check.)
func trimCR(b *[swfBufSize + 8]byte, s, e int) int {
	for e > s && b[(e-1)&(swfBufSize-1)] == '\r' {
		e--
	}
	return e
}

// readLineMore is readLine when buf holds no whole line: it reads more text
// (moving the start of the line to the front of buf first), gathers a line
// longer than buf into r.long, ends the last line, and reports the error
// that ended the input, on the line it cut short.
func (r *SWFReader) readLineMore() (s, n, e int, err error) {
	b := &r.buf
	for {
		if r.rerr != nil {
			if r.rerr != io.EOF {
				return 0, 0, 0, &ParseError{Path: r.path, Line: r.line + 1, Err: r.rerr}
			}
			if r.pos == r.end {
				return 0, 0, 0, io.EOF
			}
			// The last line, without a '\n': give it one (there is room
			// in the slack, even after a full buffer).
			b[r.end] = '\n'
			r.end++
			b[r.end] = 0
			return r.readLine()
		}
		if r.pos > 0 {
			copy(b[:], b[r.pos:r.end])
			r.end -= r.pos
			r.pos = 0
		}
		if r.end == swfBufText {
			return r.readLong()
		}
		from := r.end
		r.read()
		if i := bytes.IndexByte(b[from:r.end], '\n'); i >= 0 {
			return r.readLine()
		}
	}
}

// readLong gathers the line that fills buf, and the rest of it, into
// r.long; a strict reader rejects it once it is strictLineReject bytes long.
func (r *SWFReader) readLong() (s, n, e int, err error) {
	b := &r.buf
	r.long = r.long[:0]
	for {
		i := bytes.IndexByte(b[r.pos:r.end], '\n')
		if i < 0 {
			i = r.end - r.pos
		}
		r.long = append(r.long, b[r.pos:r.pos+i]...)
		r.pos += i
		if r.strict && len(r.long) >= strictLineReject {
			return 0, 0, 0, &ParseError{Path: r.path, Line: r.line + 1, Err: fmt.Errorf("line longer than %d bytes: not an SWF text trace", maxStrictLine)}
		}
		if r.pos < r.end {
			r.pos++ // the '\n'
			break
		}
		if r.rerr != nil {
			if r.rerr != io.EOF {
				return 0, 0, 0, &ParseError{Path: r.path, Line: r.line + 1, Err: r.rerr}
			}
			break
		}
		r.pos, r.end = 0, 0
		r.read()
	}
	r.line++
	for len(r.long) > 0 && r.long[len(r.long)-1] == '\r' {
		r.long = r.long[:len(r.long)-1]
	}
	return -1, 0, 0, nil
}

// read reads more text into buf after r.end, up to swfBufText, and puts the
// NUL after it; at the end of the input it sets r.rerr. As bufio does, it
// gives up on a source that returns nothing many times in a row.
func (r *SWFReader) read() {
	for range 100 {
		k, err := r.src.Read(r.buf[r.end:swfBufText])
		if k < 0 || k > swfBufText-r.end {
			err = errors.New("workload: the input returned an invalid count from Read")
			k = 0
		}
		r.end += k
		r.buf[r.end] = 0
		if err != nil {
			r.rerr = err
			return
		}
		if k > 0 {
			return
		}
	}
	r.rerr = io.ErrNoProgress
}

// text returns the text of the line readLine returned as s and n.
func (r *SWFReader) text(s, n int) []byte {
	if s < 0 {
		return r.long
	}
	return r.buf[s:n]
}

func (r *SWFReader) readHeader() error {
	for {
		s, n, _, err := r.readLine()
		if err == io.EOF {
			r.done = true
			return nil
		}
		if err != nil {
			return err
		}
		line := r.text(s, n)
		if r.line == 1 && bytes.HasPrefix(line, utf8BOM) {
			// A byte order mark, which some editors write first: not text.
			line = line[len(utf8BOM):]
			if s >= 0 {
				s += len(utf8BOM)
			}
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] != ';' {
			// The first job line: put it back for Next.
			if s >= 0 {
				r.pos = s
				r.line--
			} else {
				r.first = line
			}
			return nil
		}
		r.hdr.addComment(string(t[1:]), r.path, r.line)
	}
}

// utf8BOM is the UTF-8 byte order mark.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// addComment adds one header comment line, text without its ';', and the
// "Key: value" directive it holds, if any; line is its line number (0 when
// the header does not come from a file's lines) in the file path.
func (h *Header) addComment(text, path string, line int64) {
	h.Comments = append(h.Comments, text)
	key, val, ok := strings.Cut(text, ":")
	key = strings.TrimSpace(key)
	if !ok || key == "" || strings.ContainsAny(key, " \t") || strings.HasPrefix(val, "//") {
		return // a continuation or free-text comment, or a URL ("http://…")
	}
	val = strings.TrimSpace(val)
	h.Fields = append(h.Fields, HeaderField{Key: key, Value: val})
	switch strings.ToLower(key) {
	case "maxprocs":
		h.MaxProcs, h.procsErr = sizeDirective(key, val, path, line)
	case "maxnodes":
		h.MaxNodes, h.nodesErr = sizeDirective(key, val, path, line)
	case "preemption":
		h.Preemption = val
	}
}

// sizeDirective reads the value of a machine size directive: the size, 0
// with a nil error when it is -1 (unknown), or 0 and a *ParseError naming
// the line and the directive.
func sizeDirective(key, val, path string, line int64) (int, error) {
	n, err := parseSize(val)
	if err != nil {
		return 0, &ParseError{Path: path, Line: line, Err: fmt.Errorf("header %s %q: %w", key, val, err)}
	}
	if n == Unknown {
		return 0, nil
	}
	return n, nil
}

// parseSize reads a machine size: the first number of s (text before and
// after it is ignored), written as SWF's job lines write numbers; it must
// be a whole number from 1 to MaxMachineProcs, or -1 (unknown, returned
// as is).
func parseSize(s string) (int, error) {
	i := strings.IndexAny(s, "0123456789")
	if i < 0 {
		return 0, errors.New("no number of processors")
	}
	if i > 0 && s[i-1] == '.' {
		i--
	}
	if i > 0 && (s[i-1] == '-' || s[i-1] == '+') {
		i--
	}
	j := i
	if s[j] == '-' || s[j] == '+' {
		j++
	}
	digits := func() {
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	}
	digits()
	whole := true
	if j < len(s) && s[j] == '.' {
		j++
		digits()
		whole = false
	}
	if j+1 < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if s[k] == '-' || s[k] == '+' {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			j = k
			digits()
			whole = false
		}
	}
	if j+1 < len(s) && s[j] == ',' && s[j+1] >= '0' && s[j+1] <= '9' {
		return 0, errors.New("not a number (no thousands separators: write 1024, not 1,024)")
	}
	lit := s[i:j]
	var v float64
	if whole {
		n, err := strconv.ParseInt(lit, 10, 64)
		if err != nil && lit[0] == '-' {
			return 0, fmt.Errorf("%s processors: a machine has at least one (-1 means unknown)", lit)
		}
		if err != nil || n > MaxMachineProcs {
			return 0, limitf("more than %d processors, the largest machine schedsim simulates", MaxMachineProcs)
		}
		v = float64(n)
	} else {
		f, err := strconv.ParseFloat(lit, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			return 0, errors.New("no number of processors")
		case f > MaxMachineProcs || f < -MaxMachineProcs || err != nil:
			return 0, limitf("more than %d processors, the largest machine schedsim simulates", MaxMachineProcs)
		case f != math.Trunc(f):
			return 0, fmt.Errorf("%s is not a whole number of processors", lit)
		}
		v = f
	}
	switch {
	case v == Unknown:
		return Unknown, nil
	case v < 1:
		return 0, fmt.Errorf("%s processors: a machine has at least one (-1 means unknown)", lit)
	}
	return int(v), nil
}

// Next reads the next kept job into j. It returns io.EOF after the last job,
// and a *ParseError for a malformed line.
func (r *SWFReader) Next(j *Job) error {
	if r.first != nil {
		line := r.first
		r.first = nil
		if kept, err := r.parse(line, j); err != nil || kept {
			return err
		}
	}
	for !r.done {
		s, n, e, err := r.readLine()
		if err == io.EOF {
			r.done = true
			break
		}
		if err != nil {
			return err
		}
		var kept bool
		if s >= 0 && !r.general && r.parseFast(s) == e+1 {
			kept, err = r.fill(j)
		} else {
			kept, err = r.parse(r.text(s, n), j)
		}
		if err != nil {
			return err
		}
		if kept {
			return nil
		}
	}
	return io.EOF
}

// readBatch implements batchReader.
func (r *SWFReader) readBatch(jobs []Job) ([]Job, error) { return r.readJobs(jobs, nil) }

// readJobs is readBatch with the checks of Open's reader, d, when not nil
// (and not for raw records): it applies d to each job kept, and returns
// its error as that reader does.
//
// It is Next's loop, fused and without a call per job: it parses each line
// right into its place in jobs, with parseFast where the line is, and
// leaves anything else to nextSlow.
func (r *SWFReader) readJobs(jobs []Job, d *dupCheck) ([]Job, error) {
	k := len(jobs)
	jobs = jobs[:cap(jobs)]
	for k < len(jobs) {
		j := &jobs[k]
		var kept bool
		var err error
		if next := r.nextFast(); next > 0 {
			r.pos = next
			r.line++
			kept, err = r.fill(j)
		} else {
			kept, err = r.nextSlow(j)
		}
		if err != nil {
			return jobs[:k], err
		}
		if !kept {
			continue
		}
		// d.seen(j) written out, which the compiler does not inline.
		if d != nil && (j.Status < 2 || j.Status > 4) && d.ids.add(j.ID) {
			keep, err := d.duplicate(j)
			if err != nil {
				return jobs[:k], r.errorAt(1, err)
			}
			if !keep {
				continue
			}
		}
		k++
	}
	return jobs, nil
}

// nextFast parses the next line with parseFast where it is, if it may,
// and returns the index after it, or a negative number.
func (r *SWFReader) nextFast() int {
	if r.first != nil || r.general {
		return -1
	}
	return r.parseFast(r.pos)
}

// nextSlow reads the next line into j the general way, if it is whole in
// buf, else with Next (which reads on to a kept job), and reports whether
// j holds a kept job.
func (r *SWFReader) nextSlow(j *Job) (bool, error) {
	s := r.pos
	i := bytes.IndexByte(r.buf[s:r.end], '\n')
	if i < 0 || r.first != nil {
		if err := r.Next(j); err != nil {
			return false, err
		}
		return true, nil
	}
	e := s + i
	r.pos = e + 1
	r.line++
	return r.parse(r.buf[s:trimCR(&r.buf, s, e)], j)
}

// parse reads one line the general way into j and applies the rules. It
// reports false for comments, blank lines and dropped jobs.
func (r *SWFReader) parse(line []byte, j *Job) (bool, error) {
	n := 0
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			break
		}
		if n == 0 && line[i] == ';' {
			return false, nil
		}
		if n == 18 {
			if r.extra {
				if !r.cl.raw {
					r.cl.stats.ExtraFields++
				}
				break
			}
			return false, &ParseError{Path: r.path, Line: r.line, Err: fmt.Errorf("more than 18 fields (an SWF job line has exactly 18; the extra-fields rule \"ignore\", --extra-fields ignore, reads the first 18 and ignores the rest)")}
		}
		start := i
		v, isInt, end, ok := scanNumber(line, i)
		i = end
		if !ok {
			if r.strict && isBinary(line[start:i]) {
				return false, &ParseError{Path: r.path, Line: r.line, Field: n + 1, Err: fmt.Errorf("binary data %q: not an SWF text trace", truncate(line[start:i], 16))}
			}
			return false, &ParseError{Path: r.path, Line: r.line, Field: n + 1, Err: fmt.Errorf("%q is not a number", line[start:i])}
		}
		if !(math.Abs(v) <= maxSWFValue) {
			return false, &ParseError{Path: r.path, Line: r.line, Field: n + 1, Err: fmt.Errorf("%v is out of range", v)}
		}
		if r.strict && v < 0 && v != Unknown && n != 10 {
			// (A negative status, field 11, is counted by the cleaner.)
			return false, &ParseError{Path: r.path, Line: r.line, Field: n + 1, Err: fmt.Errorf("%s is negative: SWF writes -1 for an unknown value", line[start:i])}
		}
		r.fields[n], r.ints[n] = v, isInt
		n++
	}
	if n == 0 {
		return false, nil
	}
	if n != 18 {
		return false, &ParseError{Path: r.path, Line: r.line, Err: fmt.Errorf("%d fields, want 18 (is this an SWF file?)", n)}
	}
	r.frac = 1<<18 - 1 // every field in r.fields
	return r.fill(j)
}

// intFields marks the SWF fields (bit k for field k+1) that a Job holds as
// integers: the job numbers, processors, status and ids.
const intFields = 1<<0 | 1<<4 | 1<<7 | 1<<10 | 1<<11 | 1<<12 | 1<<13 | 1<<14 | 1<<15 | 1<<16

// fill is the end of parse: it builds the job from the 18 values of the
// line, r.vals or, for the fields r.frac marks, r.fields and r.ints, and
// applies the rules.
//
// When every field is an integer (the common line), it works on int64s
// only: a float64 field is the conversion of its integer, and the cleaner
// is given whole seconds, which it would otherwise round.
func (r *SWFReader) fill(j *Job) (bool, error) {
	v := &r.vals
	m := r.frac
	if m&intFields != 0 {
		if err := r.fracInts(); err != nil {
			return false, err
		}
		m &^= intFields
	}
	// Every field of j, in order, one by one: a Job literal would be
	// built on the stack and copied, and zeroing j first costs as much
	// again as these stores. The fields the cleaner sets (Seq, Submit,
	// Procs, Run, Estimate) are zero until it does, as the fields SWF
	// lacks. (TestFillEveryField checks that none is left out.)
	j.Seq = 0
	j.ID = v[0]
	j.Submit, j.Procs, j.Run, j.Estimate = 0, 0, 0, 0
	j.RawWait = float64(v[2])
	j.RawRun = float64(v[3])
	j.AllocProcs = int(v[4])
	j.AvgCPUSec = float64(v[5])
	j.UsedMemKB = float64(v[6])
	j.ReqProcs = int(v[7])
	j.ReqTime = float64(v[8])
	j.ReqMemKB = float64(v[9])
	j.Status = int(v[10])
	j.User = int(v[11])
	j.Group = int(v[12])
	j.Executable = int(v[13])
	j.Queue = int(v[14])
	j.Partition = int(v[15])
	j.PrecedingJob = v[16]
	j.ThinkTime = float64(v[17])
	j.MinProcs, j.MaxProcs, j.ReqNodes, j.MemPerNodeKB = 0, 0, 0, 0
	// A string is stored only when not empty already: storing a pointer,
	// even nil, costs a write barrier while the collector marks.
	if j.Licenses != "" {
		j.Licenses = ""
	}
	if j.Template != "" {
		j.Template = ""
	}
	j.Priority, j.HoldUntil, j.WaitResources = 0, 0, 0
	var kept bool
	var err error
	if m == 0 {
		kept, err = r.cl.cleanTimes(j, v[1] < 0, Time(v[1]), Time(v[3]), Time(v[8]), false)
	} else {
		// The other fields as read, the times rounded by the cleaner.
		submit := float64(v[1])
		for w := m; w != 0; w &= w - 1 {
			switch k := bits.TrailingZeros32(w); k {
			case 1:
				submit = r.fields[k]
			case 2:
				j.RawWait = r.fields[k]
			case 3:
				j.RawRun = r.fields[k]
			case 5:
				j.AvgCPUSec = r.fields[k]
			case 6:
				j.UsedMemKB = r.fields[k]
			case 8:
				j.ReqTime = r.fields[k]
			case 9:
				j.ReqMemKB = r.fields[k]
			case 17:
				j.ThinkTime = r.fields[k]
			}
		}
		kept, err = r.cl.clean(j, submit)
	}
	if err != nil {
		return false, r.errorAt(errField(err), err)
	}
	return kept, nil
}

// fracInts is fill's way for the integer fields read as some other number
// (r.frac marks them): each must be whole ("4.0"), and then joins the
// integers in r.vals. (Apart from fill, which then needs no room on its
// stack for the error.)
func (r *SWFReader) fracInts() error {
	for w := r.frac & intFields; w != 0; w &= w - 1 {
		k := bits.TrailingZeros32(w)
		f := r.fields[k]
		if !r.ints[k] && f != math.Trunc(f) {
			return &ParseError{Path: r.path, Line: r.line, Field: k + 1, Err: fmt.Errorf("%v is not an integer", f)}
		}
		r.vals[k] = int64(f)
	}
	return nil
}

// isBinary reports whether b holds bytes no text trace has: control
// characters other than tab, CR and LF, or DEL.
func isBinary(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f {
			return true
		}
	}
	return false
}

// truncate returns b cut to at most n bytes.
func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// scanNumber parses the SWF number that starts at b[i] and ends at the next
// blank (space or tab) or at the end of b, and returns the index of its end.
// An SWF number is an optional sign, digits and an optional fraction; isInt
// reports whether it had no '.'. The value is the correctly rounded float64,
// as strconv.ParseFloat gives: the fast path takes numbers of at most 15
// digits, whose digits form an integer m < 2^53, so that m / 10^k is one
// exact division (Clinger's fast path). Longer numbers and other forms
// (exponents, NaN, Inf) go through strconv.
func scanNumber(b []byte, i int) (v float64, isInt bool, end int, ok bool) {
	start := i
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var m uint64
	digits, frac := 0, 0
	for i < len(b) {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		m = m*10 + uint64(c)
		digits++
		i++
	}
	isInt = true
	if i < len(b) && b[i] == '.' {
		isInt = false
		i++
		for i < len(b) {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			m = m*10 + uint64(c)
			frac++
			i++
		}
	}
	if (i == len(b) || b[i] == ' ' || b[i] == '\t') && digits+frac > 0 && digits+frac <= 15 {
		v = float64(m)
		if frac > 0 {
			v /= pow10[frac]
		}
		if neg {
			v = -v
		}
		return v, isInt, i, true
	}
	for i < len(b) && b[i] != ' ' && b[i] != '\t' {
		i++
	}
	f, err := strconv.ParseFloat(string(b[start:i]), 64)
	return f, false, i, err == nil
}

// pow10 holds the powers of ten scanNumber divides by, all exact in float64.
var pow10 = [16]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// MachineSize returns the machine size the header declares: MaxProcs, else
// MaxNodes, else 0. It is 0 too when the directive it would use has a value
// that is not a machine size; MachineSizeError then says why. (-1, unknown,
// counts as absent.)
func (h *Header) MachineSize() int {
	if h.procsErr != nil {
		return 0
	}
	if h.MaxProcs > 0 {
		return h.MaxProcs
	}
	if h.nodesErr != nil {
		return 0
	}
	return h.MaxNodes
}

// MachineSizeError returns nil, or the error of the directive MachineSize
// would use when its value is not a machine size (not a whole number from
// 1 to MaxMachineProcs, nor -1): a *ParseError naming the header line and
// the directive, which wraps ErrLimit for a size beyond MaxMachineProcs.
func (h *Header) MachineSizeError() error {
	if h.procsErr != nil || h.MaxProcs > 0 {
		return h.procsErr
	}
	return h.nodesErr
}
