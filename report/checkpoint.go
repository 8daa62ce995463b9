package report

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"os"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/workload"
)

// Checkpoint state of the observers a run keeps (see sim.Engine's
// MarshalBinary): each encodes what it has gathered so far and restores it
// into a new value made with the same settings.

type metricsState struct {
	Jobs, Completed, Killed, Rejected, Failed int64
	NodeFailed, Pending                       int64

	Waits    []int64
	Bslds    []float64
	Cells    []uint8
	KilledIn []int64

	WaitSum, RespSum int64
	BsldSum          float64
	ProcSec          int64

	FirstSubmit, LastEnd workload.Time
}

// MarshalBinary encodes what m has gathered. Metrics keeps the waits and
// the slowdowns apart, each sorted by value, no longer as pairs of one job
// each, so it writes them grouped by cell, the i-th wait and the i-th
// slowdown of a cell side by side. Jobs may thus be paired otherwise than
// they ran, which no summary can tell: it depends on each cell's waits and
// each cell's slowdowns, not on which went with which. The state keeps the
// form of one value per job that earlier versions wrote, and reads theirs.
func (m *Metrics) MarshalBinary() ([]byte, error) {
	waits, bslds, cells := m.perJob()
	return encodeState(metricsState{
		Jobs: m.jobs, Completed: m.completed, Killed: m.killed, Rejected: m.rejected, Failed: m.failed,
		NodeFailed: m.nodeFailed, Pending: m.pending, Waits: waits, Bslds: bslds, Cells: cells, KilledIn: m.killedIn[:],
		WaitSum: m.waitSum, RespSum: m.respSum, BsldSum: m.bsldSum, ProcSec: m.procSec,
		FirstSubmit: m.firstSubmit, LastEnd: m.lastEnd,
	})
}

// perJob returns a wait, a bounded slowdown and a cell for every job that
// ran, grouped by cell (see MarshalBinary).
func (m *Metrics) perJob() ([]int64, []float64, []uint8) {
	waits := make([]int64, m.ran)
	bslds := make([]float64, m.ran)
	cells := make([]uint8, m.ran)
	// wAt and bAt are where each cell's next wait and slowdown go: a
	// cell's jobs start with those at the floor.
	var wAt, bAt [numCells]int64
	var start int64
	for c, n := range m.cellJobs {
		for i := start; i < start+n; i++ {
			cells[i] = uint8(c)
		}
		wAt[c] = start + m.waits.atFloor[c] // the waits of 0 are there
		bAt[c] = start
		for range m.bslds.atFloor[c] {
			bslds[bAt[c]] = 1
			bAt[c]++
		}
		start += n
	}
	m.waits.each(waitFloor, func(k uint64, c uint8) {
		waits[wAt[c]] = int64(k)
		wAt[c]++
	})
	m.bslds.each(bsldFloor, func(k uint64, c uint8) {
		bslds[bAt[c]] = math.Float64frombits(k)
		bAt[c]++
	})
	return waits, bslds, cells
}

// JournalRecordSize is the size of one job's entry in a Metrics journal:
// its wait (int64), bounded slowdown (float64 bits) and cell, little-endian.
const JournalRecordSize = 17

// appendJournal appends one job's entry to b.
func appendJournal(b []byte, wait int64, bsld float64, cell uint8) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(wait))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(bsld))
	return append(b, cell)
}

// Journal turns on m's journal: from now on each job that ran is also
// kept, in the order it came, until TakeJournal hands it over. A
// checkpointed run keeps the journal in a file of its own, appended at each
// checkpoint, so that a checkpoint costs what changed since the last one
// rather than every finished job again (see MarshalCounts).
func (m *Metrics) Journal() { m.journalOn = true }

// TakeJournal returns the entries gathered since the last call and starts
// a new, empty journal. The bytes are m's own until the next job.
func (m *Metrics) TakeJournal() []byte {
	b := m.journal
	m.journal = m.journal[:0]
	return b
}

// MarshalCounts encodes what m has gathered except the per-job waits and
// slowdowns, which a journal holds: a checkpoint that keeps the journal
// apart restores m with UnmarshalJournal.
func (m *Metrics) MarshalCounts() ([]byte, error) {
	return encodeState(metricsState{
		Jobs: m.jobs, Completed: m.completed, Killed: m.killed, Rejected: m.rejected, Failed: m.failed,
		NodeFailed: m.nodeFailed, Pending: m.pending, KilledIn: m.killedIn[:],
		WaitSum: m.waitSum, RespSum: m.respSum, BsldSum: m.bsldSum, ProcSec: m.procSec,
		FirstSubmit: m.firstSubmit, LastEnd: m.lastEnd,
	})
}

// UnmarshalJournal restores what MarshalCounts encoded, with the per-job
// entries of journal (every entry the run's journal ever had, in order).
func (m *Metrics) UnmarshalJournal(counts, journal []byte) error {
	if len(journal)%JournalRecordSize != 0 {
		return fmt.Errorf("report: metrics journal: %d bytes is not a whole number of entries", len(journal))
	}
	n := len(journal) / JournalRecordSize
	s := metricsState{Waits: make([]int64, n), Bslds: make([]float64, n), Cells: make([]uint8, n)}
	for i := range n {
		e := journal[i*JournalRecordSize:]
		s.Waits[i] = int64(binary.LittleEndian.Uint64(e))
		s.Bslds[i] = math.Float64frombits(binary.LittleEndian.Uint64(e[8:]))
		s.Cells[i] = e[16]
	}
	var c metricsState
	if err := decodeState("metrics", counts, &c); err != nil {
		return err
	}
	c.Waits, c.Bslds, c.Cells = s.Waits, s.Bslds, s.Cells
	b, err := encodeState(c)
	if err != nil {
		return err
	}
	on := m.journalOn
	if err := m.UnmarshalBinary(b); err != nil {
		return err
	}
	m.journalOn = on
	return nil
}

// bucketSize is the size of one closed bucket in a series journal chunk.
const bucketSize = 8 + int(NumSeries)*8*4

// Chunk kinds of a series journal.
const (
	seriesAppend byte = 'A' // closed buckets after those before
	seriesReset  byte = 'R' // every closed bucket, after a change of width
)

// Journal turns on the series' journal: each TakeJournal hands over the
// buckets closed since the last one, so that a checkpoint writes what
// changed (see MarshalCounts). Closed buckets change only when the series
// doubles its bucket width, a few times a run; the chunk then holds them all.
func (ts *TimeSeries) Journal() { ts.journaled, ts.journalWidth = 0, ts.width }

// TakeJournal returns the chunk of closed buckets since the last call.
func (ts *TimeSeries) TakeJournal() []byte {
	kind, from := seriesAppend, ts.journaled
	if ts.width != ts.journalWidth || from > len(ts.closed) {
		kind, from = seriesReset, 0
	}
	b := make([]byte, 0, 5+(len(ts.closed)-from)*bucketSize)
	b = append(b, kind)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ts.closed)-from))
	for _, k := range ts.closed[from:] {
		b = binary.LittleEndian.AppendUint64(b, uint64(k.k))
		for i := range NumSeries {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(k.sum[i]))
		}
		for _, v := range [...]*Values{&k.min, &k.max, &k.last} {
			for i := range NumSeries {
				b = binary.LittleEndian.AppendUint64(b, uint64(v[i]))
			}
		}
	}
	ts.journaled, ts.journalWidth = len(ts.closed), ts.width
	return b
}

// MarshalCounts encodes the series' state except its closed buckets, which
// its journal holds (see UnmarshalJournal).
func (ts *TimeSeries) MarshalCounts() ([]byte, error) {
	closed := ts.closed
	ts.closed = nil
	b, err := ts.MarshalBinary()
	ts.closed = closed
	return b, err
}

// UnmarshalJournal restores what MarshalCounts encoded, with the closed
// buckets of the journal's chunks, applied in order.
func (ts *TimeSeries) UnmarshalJournal(counts []byte, chunks [][]byte) error {
	if err := ts.UnmarshalBinary(counts); err != nil {
		return err
	}
	var closed []bucket
	for _, c := range chunks {
		if len(c) < 5 || (c[0] != seriesAppend && c[0] != seriesReset) {
			return fmt.Errorf("report: series journal: malformed chunk")
		}
		n := int(binary.LittleEndian.Uint32(c[1:]))
		if len(c) != 5+n*bucketSize {
			return fmt.Errorf("report: series journal: chunk of %d bytes for %d buckets", len(c), n)
		}
		if c[0] == seriesReset {
			closed = closed[:0]
		}
		p := c[5:]
		u := func() uint64 { x := binary.LittleEndian.Uint64(p); p = p[8:]; return x }
		for range n {
			var k bucket
			k.k = int64(u())
			for i := range NumSeries {
				k.sum[i] = math.Float64frombits(u())
			}
			for _, v := range [...]*Values{&k.min, &k.max, &k.last} {
				for i := range NumSeries {
					v[i] = int64(u())
				}
			}
			closed = append(closed, k)
		}
	}
	if len(closed) > ts.maxPoints {
		return fmt.Errorf("report: series journal: %d buckets, at most %d", len(closed), ts.maxPoints)
	}
	ts.closed = closed
	ts.journaled, ts.journalWidth = len(closed), ts.width
	return nil
}

// UnmarshalBinary restores what MarshalBinary encoded, in this version or
// an earlier one.
func (m *Metrics) UnmarshalBinary(b []byte) error {
	var s metricsState
	if err := decodeState("metrics", b, &s); err != nil {
		return err
	}
	if len(s.Bslds) != len(s.Waits) || len(s.Cells) != len(s.Waits) || len(s.KilledIn) != len(m.killedIn) {
		return fmt.Errorf("report: metrics state: columns of different lengths")
	}
	for _, c := range s.Cells {
		if c >= numCells {
			return fmt.Errorf("report: metrics state: cell %d out of range", c)
		}
	}
	// Tests set shorter runs on a new Metrics: keep them.
	waitRuns, bsldRuns := m.waits.runLen, m.bslds.runLen
	tick := m.tick // the run's unit (SetTick), not part of the state
	*m = Metrics{
		tick: tick,
		jobs: s.Jobs, completed: s.Completed, killed: s.Killed, rejected: s.Rejected, failed: s.Failed,
		nodeFailed: s.NodeFailed, pending: s.Pending, ran: int64(len(s.Waits)),
		waitSum: s.WaitSum, respSum: s.RespSum, bsldSum: s.BsldSum, procSec: s.ProcSec,
		firstSubmit: s.FirstSubmit, lastEnd: s.LastEnd,
	}
	copy(m.killedIn[:], s.KilledIn)
	m.waits.runLen, m.bslds.runLen = waitRuns, bsldRuns
	for i, c := range s.Cells {
		m.cellJobs[c]++
		m.waits.add(uint64(s.Waits[i]), waitFloor, c)
		m.bslds.add(math.Float64bits(s.Bslds[i]), bsldFloor, c)
	}
	return nil
}

type bucketState struct {
	K              int64
	Sum            [NumSeries]float64
	Min, Max, Last Values
}

type seriesState struct {
	Procs     int64
	MaxPoints int

	Started          bool
	Origin, Width    workload.Time
	Closed           []bucketState
	Open             bucketState
	Cur              Values
	LastT, End       workload.Time
	Samples, Changes int64
	Loss, Unavail    int64
}

func toBucketState(b bucket) bucketState {
	return bucketState{K: b.k, Sum: b.sum, Min: b.min, Max: b.max, Last: b.last}
}

func fromBucketState(b bucketState) bucket {
	return bucket{k: b.K, sum: b.Sum, min: b.Min, max: b.Max, last: b.Last}
}

// MarshalBinary encodes the series so far.
func (ts *TimeSeries) MarshalBinary() ([]byte, error) {
	s := seriesState{Procs: ts.procs, MaxPoints: ts.maxPoints, Started: ts.started, Origin: ts.origin, Width: ts.width,
		Open: toBucketState(ts.open), Cur: ts.cur, LastT: ts.lastT, End: ts.end,
		Samples: ts.samples, Changes: ts.changes, Loss: ts.loss, Unavail: ts.unavail}
	for _, b := range ts.closed {
		s.Closed = append(s.Closed, toBucketState(b))
	}
	return encodeState(s)
}

// UnmarshalBinary restores what MarshalBinary encoded into a series made by
// NewTimeSeries with the same machine size and number of points.
func (ts *TimeSeries) UnmarshalBinary(b []byte) error {
	var s seriesState
	if err := decodeState("time series", b, &s); err != nil {
		return err
	}
	if s.Procs != ts.procs || s.MaxPoints != ts.maxPoints {
		return fmt.Errorf("report: time series state of %d processors and %d points, want %d and %d", s.Procs, s.MaxPoints, ts.procs, ts.maxPoints)
	}
	// Sample divides by the width with a shift: it must be a power of two.
	if s.Width < 1 || s.Width&(s.Width-1) != 0 || len(s.Closed) > s.MaxPoints {
		return fmt.Errorf("report: time series state: bucket width %d, %d buckets", s.Width, len(s.Closed))
	}
	ts.started, ts.origin, ts.width = s.Started, s.Origin, s.Width
	ts.shift = uint(bits.TrailingZeros64(uint64(s.Width)))
	ts.closed = ts.closed[:0]
	for _, b := range s.Closed {
		ts.closed = append(ts.closed, fromBucketState(b))
	}
	ts.open, ts.cur, ts.lastT, ts.end = fromBucketState(s.Open), s.Cur, s.LastT, s.End
	ts.samples, ts.changes, ts.loss, ts.unavail = s.Samples, s.Changes, s.Loss, s.Unavail
	return nil
}

type ganttState struct {
	Limit  int
	Jobs   []GanttJob // Alloc empty: the ranges are in Ranges, NAlloc each
	NAlloc []int
	Ranges []cluster.Range
	Seen   int64
}

// MarshalBinary encodes the jobs kept so far.
func (g *Gantt) MarshalBinary() ([]byte, error) {
	s := ganttState{Limit: g.limit, Seen: g.seen, Ranges: make([]cluster.Range, 0, g.nr)}
	for i := range g.n {
		r := g.rec(i)
		s.NAlloc = append(s.NAlloc, int(r.n))
		s.Jobs = append(s.Jobs, GanttJob{ID: r.id, Start: workload.Time(r.start), End: workload.Time(r.end), Killed: r.killed})
		s.Ranges = append(s.Ranges, g.alloc(r)...)
	}
	return encodeState(s)
}

// UnmarshalBinary restores what MarshalBinary encoded into a Gantt made by
// NewGantt with the same limit.
func (g *Gantt) UnmarshalBinary(b []byte) error {
	var s ganttState
	if err := decodeState("gantt", b, &s); err != nil {
		return err
	}
	if s.Limit != g.limit || len(s.NAlloc) != len(s.Jobs) {
		return fmt.Errorf("report: gantt state for %d jobs, want %d", s.Limit, g.limit)
	}
	g.recs, g.ranges, g.n, g.nr, g.jobs, g.order = nil, nil, 0, 0, nil, nil
	off := 0
	for i, n := range s.NAlloc {
		if n < 0 || n > len(s.Ranges)-off {
			return fmt.Errorf("report: gantt state: allocations overrun the ranges")
		}
		j := s.Jobs[i]
		g.add(j.ID, int64(j.Start), int64(j.End), j.Killed, s.Ranges[off:off+n])
		off += n
	}
	g.seen = s.Seen
	return nil
}

// ResumeJobsCSV returns a JobsCSV that goes on writing rows to w, a jobs.csv
// whose header and first rows a checkpointed run wrote (see ResumeAtomic);
// it writes no header.
func ResumeJobsCSV(w io.Writer, workloadName string) *JobsCSV {
	return newJobsCSV(w, workloadName)
}

// Track makes a keep a running length and CRC-32 (IEEE) of what is written
// to it from now on, for Position. Call it before the first Write.
func (a *AtomicFile) Track() { a.track = true }

// Position returns the bytes written so far and their CRC-32 (IEEE), when
// Track was called before the first write.
func (a *AtomicFile) Position() (size int64, crc uint32) { return a.n, a.crc }

// TempName returns the name of the temporary file being written.
func (a *AtomicFile) TempName() string { return a.f.Name() }

// KeepOnAbort makes Abort close the temporary file without removing it, so
// that a checkpointed run that stops early can be resumed (ResumeAtomic).
// The file keeps its temporary name: it never looks like a finished result.
func (a *AtomicFile) KeepOnAbort() { a.keep = true }

// ResumeAtomic reopens the temporary file tmp of an AtomicFile for path
// that a checkpointed run was writing, checks that it starts with size
// bytes whose CRC-32 (IEEE) is crc, cuts anything written after them and
// returns an AtomicFile that appends from there, tracking its position.
func ResumeAtomic(path, tmp string, size int64, crc uint32) (*AtomicFile, error) {
	f, err := os.OpenFile(tmp, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("report: resuming %s: the partial file is gone: %w", path, err)
	}
	h := crc32.NewIEEE()
	n, err := io.Copy(h, io.LimitReader(f, size))
	if err == nil && (n != size || h.Sum32() != crc) {
		err = fmt.Errorf("report: resuming %s: %s does not hold what the checkpoint wrote (%d bytes, CRC %08x; found %d bytes, CRC %08x)", path, tmp, size, crc, n, h.Sum32())
	}
	if err == nil {
		err = f.Truncate(size)
	}
	if err == nil {
		_, err = f.Seek(size, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &AtomicFile{f: f, path: path, track: true, n: size, crc: crc}, nil
}

func encodeState(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeState(name string, b []byte, v any) error {
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("report: %s state: %w", name, err)
	}
	return nil
}

// Sync commits what was written so far to stable storage.
func (a *AtomicFile) Sync() error { return a.f.Sync() }
