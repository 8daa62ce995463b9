package workload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	gzip "github.com/klauspost/compress/gzip"
)

// Reader streams the cleaned jobs of a trace, whatever its format.
// *SWFReader and *ParquetReader are Readers; Open returns one that also
// applies the checks a run needs.
type Reader interface {
	// Next reads the next kept job into j. It returns io.EOF after the last
	// job, and a *ParseError for a bad record.
	Next(j *Job) error
	// Header returns what the trace says about itself (for Parquet, the SWF
	// header stored in its key/value metadata, if any).
	Header() *Header
	// Stats returns the counts of records read and rules applied so far.
	Stats() CleanStats
	// Path returns the name of the input, as given.
	Path() string
	// Close releases the input.
	Close() error
}

// Format is a trace file format.
type Format string

// Values of Format.
const (
	// FormatSWF is the Standard Workload Format, plain or gzip-compressed.
	FormatSWF Format = "swf"
	// FormatParquet is Parquet, in schedsim's job schema (see ParquetSchema)
	// or a dataset's own schema read through a ColumnMap.
	FormatParquet Format = "parquet"
)

// Option configures Open and NewReader.
type Option func(*openConfig)

type openConfig struct {
	format  Format
	columns *ColumnMap
	raw     bool
	tz      *time.Location
	speed   float64
	ticks   int64
}

// WithFormat reads the input as format f instead of detecting it.
func WithFormat(f Format) Option { return func(c *openConfig) { c.format = f } }

// WithColumns reads a Parquet input through the column mapping m (see
// ParseColumns) instead of schedsim's own schema. An SWF input with a
// mapping is an error.
func WithColumns(m *ColumnMap) Option { return func(c *openConfig) { c.columns = m } }

// Raw returns every record as read, for conversion: no cleaning rule
// applies, no record is dropped and job numbers are not checked; Submit,
// Procs, Run and Estimate are the raw values rounded (Procs the requested
// processors, else the allocated ones), and the counts are only Records and
// Kept. Records must still be sorted by submit time (those with a negative
// submit time excepted), and bad values are still errors.
func Raw() Option { return func(c *openConfig) { c.raw = true } }

// Errors about the input as a whole, wrapped in a *ParseError naming the file.
var (
	// ErrNotTrace is returned for a file that is neither SWF text nor Parquet,
	// such as an archive or a file compressed with something other than gzip.
	ErrNotTrace = errors.New("workload: not a trace file")
)

// Open opens the trace file at path for reading with rules. It detects the
// format from the file's first bytes — "PAR1" is Parquet; text (plain or
// gzip) whose first character is '{' is a Batsim JSON workload, whose
// first line names '|'-separated columns among which JobID or JobIDRaw is
// Slurm accounting output (sacct); any other text is SWF — and falls back
// to the name (.parquet, .pq, .json, .sacct) only to explain a file that
// does not start as its name says. Close the reader when done.
//
// Beyond what the format's reader checks, the reader Open returns rejects
// what no run can use, each as a *ParseError naming the file and, for a
// record, its line or row and field: a file without any job record
// (ErrNoJobs; an empty or header-only file), binary data or an unsupported
// compression (ErrNotTrace), values below -1 (SWF's "unknown") in any SWF
// field but the status (which the cleaner counts, see
// CleanStats.StatusUnknown), and a job number an earlier kept job has
// (unless Rules.Duplicate says keep or drop).
//
// Slurm accounting output is what "sacct --allusers --parsable2" (or
// --parsable) prints with its header line, the columns in any order; the
// reader needs JobID or JobIDRaw, Submit, a run time (Elapsed, ElapsedRaw,
// or Start and End) and a processor count (NCPUS, AllocCPUS, ReqCPUS,
// ReqTRES or AllocTRES), and reads Eligible, Timelimit(Raw), State,
// ExitCode, NNodes, ReqNodes, ReqMem, User, UID, Group, GID, Partition,
// QOS, Priority, JobName, MaxRSS and TotalCPU when present, ignoring other
// columns. Each job becomes one SWF record: job number JobIDRaw (else the
// JobID's; array tasks without JobIDRaw are numbered after the largest
// number in the file, in file order); times in seconds from the first
// submission (the header's UnixStartTime; see WithTimeZone); wait = Start
// − Submit, the recorded start; run time = Elapsed for a job that started
// (else -1); processors allocated = NCPUS (AllocTRES cpu), requested =
// ReqCPUS (ReqTRES cpu); requested time = Timelimit; memory per processor
// from ReqTRES mem (the job's total) or ReqMem (suffix c: per CPU; n or no
// suffix: per node); the state as an SWF status (COMPLETED 1; FAILED,
// TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, PREEMPTED 0;
// CANCELLED 5, whether or not it had started; REQUEUED 2; another state
// -1; without State, ExitCode 0:0 is 1, another 0); users and groups by UID and GID (else
// their names numbered in order of appearance, from 1), queues by QOS and
// partitions by name, numbered so too and listed in the header ("Queue: 1
// normal"), executables by JobName; TotalCPU / NCPUS as the average CPU
// time; Priority as Job.Priority; ReqNodes (or NNodes) as Job.ReqNodes
// and the memory per node as Job.MemPerNodeKB; Eligible, when after
// Submit, as Job.HoldUntil. Other columns (Account, Reservation,
// Constraints, …) have no place in a Job and are ignored; so are GPUs
// (gres/gpu in the TRES lists).
// Job steps (123.batch, 123.0) fold into their job (the largest MaxRSS of
// its steps is its used memory); the components of a heterogeneous job
// (123+0, 123+1) fold into one job (processors, nodes and memory added,
// the longest run and limit; a failed component fails it); an earlier run
// of a requeued job (sacct --duplicates: the same JobID again later) is a
// partial record, status 2. Jobs not finished when sacct ran (PENDING,
// RUNNING, SUSPENDED, …, and REVOKED ones) are dropped and counted
// (CleanStats.DroppedUnfinished). "Unknown", "None" and empty values are
// unknown (-1).
//
// A Batsim workload is a JSON object with "jobs" (id, subtime, res,
// profile, and walltime if any), "profiles" and "nb_res" (the header's
// MaxProcs). A job's run time is its profile's: a delay profile's delay,
// a parallel_homogeneous profile's computation at the hosts' speed (see
// WithBatsimSpeed) or, without one, its "runtime" field, a composed
// profile's parts in sequence. Batsim's times are seconds and may be
// fractional: submit, run and requested times are rounded to whole
// seconds as SWF's fractional times are (half away from zero, counted in
// CleanStats.RoundedFractional). A profile's non-zero "ret" makes the job
// failed (status 0), else completed (1). Jobs are replayed in the order of
// their submit times as written (before rounding), ties in file order.
//
// Both are read whole into memory (about 250 bytes a job), unlike SWF and
// Parquet, which stream. A Parquet file need not be sorted by submit time:
// one whose rows are not (found by a first pass over its submit column) is
// read whole too, and its jobs replayed in the order of their submit
// times, ties in row order.
func Open(path string, rules Rules, opts ...Option) (Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, &ParseError{Path: path, Err: fmt.Errorf("%w: it is a directory", ErrNotTrace)}
	}
	r, err := open(f, f, st.Size(), f, path, rules, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// NewReader reads a trace from in as Open reads a file; name names the input
// in errors. A Parquet input is read through in's ReadAt when in is an
// io.ReaderAt with a Size method (as *bytes.Reader and *strings.Reader are),
// and is otherwise read into memory first. NewReader does not close in: if in
// needs closing, the caller closes it after the reader.
func NewReader(in io.Reader, name string, rules Rules, opts ...Option) (Reader, error) {
	type sizedReaderAt interface {
		io.ReaderAt
		Size() int64
	}
	if ra, ok := in.(sizedReaderAt); ok {
		return open(in, ra, ra.Size(), nil, name, rules, opts)
	}
	return open(in, nil, -1, nil, name, rules, opts)
}

// open detects the format of in and returns the checked reader. ra, when not
// nil, reads the same input at offsets and size is its size. closer, if not
// nil, is closed by the reader's Close (not on error).
func open(in io.Reader, ra io.ReaderAt, size int64, closer io.Closer, name string, rules Rules, opts []Option) (Reader, error) {
	var cfg openConfig
	for _, o := range opts {
		o(&cfg)
	}
	if err := rules.Validate(); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(in, 64<<10)
	magic, err := br.Peek(8)
	if err != nil && err != io.EOF {
		return nil, &ParseError{Path: name, Err: err}
	}
	format := cfg.format
	if format == "" {
		format = detect(magic, name)
		if format == FormatSWF {
			format = detectText(br, name)
		}
	}
	if err := checkMagic(magic, name, format); err != nil {
		return nil, err
	}
	if cfg.ticks > 1 && format != FormatBatsim {
		return nil, &ParseError{Path: name, Err: fmt.Errorf("a time unit finer than the second applies to Batsim workloads only, and this is %s", formatName(format))}
	}
	if cfg.columns != nil && format != FormatParquet {
		return nil, &ParseError{Path: name, Err: fmt.Errorf("a column mapping applies to Parquet traces only, and this is %s", formatName(format))}
	}
	var src source
	switch format {
	case FormatSacct, FormatBatsim:
		text, cl, err := textReader(br, name)
		if err != nil {
			return nil, err
		}
		var r *memSource
		if format == FormatSacct {
			r, err = newSacctReader(text, name, rules, cfg.raw, cfg.tz)
		} else {
			r, err = newBatsimReader(text, name, rules, cfg.raw, cfg.speed, cfg.ticks)
		}
		if cl != nil {
			cl.Close()
		}
		if err != nil {
			return nil, err
		}
		r.closer = closer
		src = r
	case FormatSWF:
		r, err := newSWFReader(br, name, rules, true, cfg.raw)
		if err != nil {
			return nil, err
		}
		if closer != nil {
			r.closer = append([]io.Closer{closer}, r.closer...)
		}
		src = r
	case FormatParquet:
		if ra == nil {
			// Not seekable: Parquet is read from its footer, so hold it in memory.
			data, err := io.ReadAll(br)
			if err != nil {
				return nil, &ParseError{Path: name, Err: err}
			}
			ra, size = bytes.NewReader(data), int64(len(data))
		}
		r, err := newParquetReader(ra, size, name, rules, cfg.columns, cfg.raw)
		if err != nil {
			return nil, err
		}
		r.closer = closer
		if src, err = r.sortedSource(cfg.raw); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("workload: unknown format %q (want swf, parquet, sacct or batsim)", format)
	}
	if src.empty() {
		src.Close()
		return nil, &ParseError{Path: name, Err: fmt.Errorf("%w: the file holds no job record (it is empty, or has only header comments)", ErrNoJobs)}
	}
	return &checked{source: src, dup: dupCheck{rule: rules.Duplicate, raw: cfg.raw}}, nil
}

// detect returns the format the first bytes of a file say, else its name;
// FormatSWF for any text (see detectText).
func detect(magic []byte, name string) Format {
	if bytes.HasPrefix(magic, []byte("PAR1")) {
		return FormatParquet
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".parquet", ".pq":
		return FormatParquet
	}
	return FormatSWF
}

// sniffSize is how much text detectText looks at: the first line of sacct
// output, its header, has a name for each column.
const sniffSize = 16 << 10

// detectText tells the text formats apart from the text's first bytes
// (gzip-compressed or not), without consuming them: Batsim's JSON starts
// with '{', sacct output with its header line; anything else is SWF. The
// name (.json, .sacct, with .gz or not) decides only for a text that
// starts as no SWF does (with a comment or a number) or, for .sacct,
// whose first line has a '|', so that the error is the one its name
// says.
func detectText(br *bufio.Reader, name string) Format {
	head, _ := br.Peek(sniffSize)
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		// The start of the compressed text: enough for its first line.
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return FormatSWF
		}
		buf := make([]byte, sniffSize)
		n, _ := io.ReadFull(zr, buf)
		head = buf[:n]
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n")
	if len(t) > 0 && t[0] == '{' {
		return FormatBatsim
	}
	first, _, _ := bytes.Cut(t, []byte{'\n'})
	if isSacctHeader(first) {
		return FormatSacct
	}
	// SWF text starts with a comment or a number.
	swfLike := len(t) > 0 && strings.IndexByte(";0123456789+-.", t[0]) >= 0
	switch filepath.Ext(strings.TrimSuffix(strings.ToLower(name), ".gz")) {
	case ".json":
		if !swfLike {
			return FormatBatsim
		}
	case ".sacct":
		if !swfLike || bytes.IndexByte(first, '|') >= 0 {
			return FormatSacct
		}
	}
	return FormatSWF
}

// textReader returns the text of br, decompressed when it is gzip; the
// closer, when not nil, is the decompressor's.
func textReader(br *bufio.Reader, name string) (io.Reader, io.Closer, error) {
	if m, _ := br.Peek(2); len(m) == 2 && m[0] == 0x1f && m[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, &ParseError{Path: name, Err: fmt.Errorf("bad gzip stream: %w", err)}
		}
		return zr, zr, nil
	}
	return br, nil, nil
}

// formatName names a format in messages.
func formatName(f Format) string {
	switch f {
	case FormatSWF:
		return "SWF"
	case FormatParquet:
		return "Parquet"
	case FormatSacct:
		return "sacct output"
	case FormatBatsim:
		return "a Batsim workload"
	}
	return string(f)
}

// checkMagic rejects inputs whose first bytes say they are not format.
func checkMagic(magic []byte, name string, format Format) error {
	for _, m := range []struct {
		magic, what string
	}{
		{"\x28\xb5\x2f\xfd", "zstd-compressed"},
		{"BZh", "bzip2-compressed"},
		{"\xfd7zXZ\x00", "xz-compressed"},
		{"PK\x03\x04", "a zip archive"},
		{"\x04\x22\x4d\x18", "lz4-compressed"},
		{"7z\xbc\xaf\x27\x1c", "a 7-zip archive"},
	} {
		if bytes.HasPrefix(magic, []byte(m.magic)) {
			return &ParseError{Path: name, Err: fmt.Errorf("%w: the file is %s; schedsim reads SWF, sacct output and Batsim workloads (plain or gzip) and Parquet: decompress it first", ErrNotTrace, m.what)}
		}
	}
	if format == FormatParquet && len(magic) > 0 && !bytes.HasPrefix(magic, []byte("PAR1")) {
		return &ParseError{Path: name, Err: fmt.Errorf("%w: the file does not start with Parquet's magic bytes \"PAR1\"", ErrNotTrace)}
	}
	if format != FormatParquet && bytes.HasPrefix(magic, []byte("PAR1")) {
		return &ParseError{Path: name, Err: fmt.Errorf("%w: the file is Parquet, not %s", ErrNotTrace, formatName(format))}
	}
	return nil
}

// source is what the format readers offer the checked reader.
type source interface {
	Reader
	// empty reports whether the input has no job record at all.
	empty() bool
	// errorAt returns a *ParseError about field (an SWF field number) of the
	// last record read.
	errorAt(field int, err error) *ParseError
}

// checked is the reader Open returns: a format reader plus the rule on
// duplicate job numbers.
type checked struct {
	source
	dup dupCheck
}

// dupCheck applies the rule on duplicate job numbers, job by job.
type dupCheck struct {
	rule          DuplicateRule
	raw           bool
	ids           idSet
	kept, dropped int64
}

// keep applies the rule to j, the next job its source kept: it reports
// whether j stays, or returns the error about j's job number (field 1).
func (d *dupCheck) keep(j *Job) (bool, error) {
	if d.raw || !d.seen(j) {
		return true, nil
	}
	return d.duplicate(j)
}

// seen reports whether an earlier job has j's number, unless j is a part
// of a job (status 2 to 4), and records j's number: whether the rule
// applies to j, unless raw records are read. (SWFReader.readJobs has it
// written out.)
func (d *dupCheck) seen(j *Job) bool {
	return (j.Status < 2 || j.Status > 4) && d.ids.add(j.ID)
}

// duplicate is keep for a job that seen reports.
func (d *dupCheck) duplicate(j *Job) (bool, error) {
	switch d.rule {
	case DuplicateKeep:
		d.kept++
		return true, nil
	case DuplicateDrop:
		d.dropped++
		return false, nil
	}
	return false, fmt.Errorf("job number %d is already used by an earlier job (--duplicate-id keep or drop accepts such traces)", j.ID)
}

// Next implements Reader.
func (c *checked) Next(j *Job) error {
	for {
		if err := c.source.Next(j); err != nil {
			return err
		}
		keep, err := c.dup.keep(j)
		if err != nil {
			return c.errorAt(1, err)
		}
		if keep {
			return nil
		}
	}
}

// readBatch implements batchReader: an SWF source reads the batch itself,
// checking each job as it goes; another source goes job by job.
func (c *checked) readBatch(jobs []Job) ([]Job, error) {
	if r, ok := c.source.(*SWFReader); ok {
		if c.dup.raw {
			return r.readJobs(jobs, nil) // raw records are not checked
		}
		return r.readJobs(jobs, &c.dup)
	}
	return readBatch(c, jobs)
}

// Stats implements Reader.
func (c *checked) Stats() CleanStats {
	s := c.source.Stats()
	s.DuplicateIDs = c.dup.kept
	s.DroppedDuplicate = c.dup.dropped
	s.Kept -= c.dup.dropped
	return s
}

// batchReader is a Reader that also reads jobs many at a time, which
// spares the calls and copies of Next per job; Prefetch uses it.
type batchReader interface {
	Reader
	// readBatch appends to jobs the next kept jobs, as Next would read them
	// one by one, until len(jobs) == cap(jobs) or Next would return an
	// error, which it returns then (io.EOF after the last job) with the
	// jobs before it. It may use jobs[len(jobs):cap(jobs)] as scratch.
	readBatch(jobs []Job) ([]Job, error)
}

var (
	_ batchReader = (*checked)(nil)
	_ batchReader = (*SWFReader)(nil)
)

// readBatch is readBatch for any Reader, one Next at a time.
func readBatch(r Reader, jobs []Job) ([]Job, error) {
	for len(jobs) < cap(jobs) {
		jobs = jobs[:len(jobs)+1]
		if err := r.Next(&jobs[len(jobs)-1]); err != nil {
			return jobs[:len(jobs)-1], err
		}
	}
	return jobs, nil
}

// idSet is a set of job numbers. Real traces number their jobs nearly
// consecutively, so it keeps one 64-bit word per 64 numbers in a map and the
// word in use aside: consecutive numbers cost no map access, and memory is
// about one byte per 3 jobs (1M jobs: about 0.4 MB), growing with the
// trace; scattered numbers cost one map entry each.
type idSet struct {
	words map[int64]uint64
	key   int64
	word  uint64
	have  bool
}

// add adds id and reports whether it was already there.
func (s *idSet) add(id int64) bool {
	k, bit := id>>6, uint64(1)<<(uint64(id)&63)
	if !s.have || k != s.key {
		s.load(k)
	}
	if s.word&bit != 0 {
		return true
	}
	s.word |= bit
	return false
}

// load makes the word of key k the word in use, and stores the one it
// replaces. (Apart from add, so that add is small enough to be inlined.)
func (s *idSet) load(k int64) {
	if s.words == nil {
		s.words = make(map[int64]uint64)
	}
	if s.have {
		s.words[s.key] = s.word
	}
	s.key, s.word, s.have = k, s.words[k], true
}
