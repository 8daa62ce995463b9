package workload

import (
	"fmt"
	"io"
	"sort"
)

// memRecord is one job record a whole-file reader (sacct, Batsim) made,
// before the cleaning rules: the raw fields of job are set, submit is the
// raw submit time in seconds (fractional for Batsim, negative when
// unknown), line is where the record is in the file, and unfinished marks
// a job that had not ended when the file was written (dropped, and
// counted, unless raw records are read).
type memRecord struct {
	job        Job
	submit     float64
	line       int64
	unfinished bool
}

// memSource streams records held in memory through the cleaner, in
// submission order (ties in file order). sacct output and Batsim
// workloads are read whole: steps must be folded into their job, and
// neither is sorted by submit time.
type memSource struct {
	path string
	hdr  Header
	cl   cleaner
	recs []memRecord
	next int
	cur  *memRecord
	// column names SWF field f (1-based) in errors, "" for none; keys
	// says that the names are JSON keys (ParseError.Key), not columns.
	column func(f int) string
	keys   bool
	// rows says that line is a row number (a Parquet file's), not a line.
	rows   bool
	closer io.Closer
}

// newMemSource sorts recs by submit time, file order breaking ties, and
// returns the source that cleans them with rules (raw: see Raw). The
// header must be whole. The records' times are ticks of 1/tick second
// (0 or 1: seconds): the rules' times in seconds count in them.
func newMemSource(path string, hdr Header, recs []memRecord, rules Rules, raw bool, records string, column func(int) string, tick Time) (*memSource, error) {
	sort.SliceStable(recs, func(a, b int) bool { return recs[a].submit < recs[b].submit })
	s := &memSource{path: path, hdr: hdr, recs: recs, column: column}
	s.cl = newCleaner(rules, &s.hdr, records)
	s.cl.raw = raw
	s.cl.tick = max(tick, 1)
	if err := s.cl.prepare(); err != nil {
		return nil, &ParseError{Path: path, Err: err}
	}
	return s, nil
}

// Next implements Reader.
func (s *memSource) Next(j *Job) error {
	for s.next < len(s.recs) {
		r := &s.recs[s.next]
		s.next++
		s.cur = r
		if r.unfinished && !s.cl.raw {
			s.cl.drop(&s.cl.stats.DroppedUnfinished)
			continue
		}
		*j = r.job
		kept, err := s.cl.clean(j, r.submit)
		if err != nil {
			return s.errorAt(2, err)
		}
		if kept {
			return nil
		}
	}
	return io.EOF
}

// Header implements Reader.
func (s *memSource) Header() *Header { return &s.hdr }

// Stats implements Reader.
func (s *memSource) Stats() CleanStats { return s.cl.stats }

// Path implements Reader.
func (s *memSource) Path() string { return s.path }

// Close implements Reader.
func (s *memSource) Close() error {
	s.recs = nil
	if s.closer != nil {
		err := s.closer.Close()
		s.closer = nil
		return err
	}
	return nil
}

// empty implements source.
func (s *memSource) empty() bool { return len(s.recs) == 0 }

// errorAt implements source: the error names the last record's line and
// the column that holds SWF field f.
func (s *memSource) errorAt(f int, err error) *ParseError {
	pe := &ParseError{Path: s.path, Err: err}
	if s.cur != nil && s.rows {
		pe.Row = s.cur.line
	} else if s.cur != nil {
		pe.Line = s.cur.line
	}
	name := ""
	if s.column != nil {
		name = s.column(f)
	}
	if s.keys {
		pe.Key = name
	} else {
		pe.Column = name
	}
	if name == "" && f > 0 {
		pe.Err = fmt.Errorf("%s: %w", SWFFieldNames[f-1], err)
	}
	return pe
}
