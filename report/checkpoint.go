package report

import (
	"bytes"
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
	*m = Metrics{
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
	s := ganttState{Limit: g.limit, Ranges: g.ranges, Seen: g.seen}
	for _, j := range g.jobs {
		s.NAlloc = append(s.NAlloc, len(j.Alloc))
		j.Alloc = nil
		s.Jobs = append(s.Jobs, j)
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
	g.seen, g.ranges, g.jobs = s.Seen, s.Ranges, s.Jobs
	off := 0
	for i, n := range s.NAlloc {
		if n < 0 || off+n > len(g.ranges) {
			return fmt.Errorf("report: gantt state: allocations overrun the ranges")
		}
		g.jobs[i].Alloc = g.ranges[off : off+n : off+n]
		off += n
	}
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
