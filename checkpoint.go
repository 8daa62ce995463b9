package schedsim

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/traces"
	"github.com/schedsim/schedsim/workload"
)

// A checkpoint file is
//
//	"schedsim-checkpoint\n"   magic, 20 bytes
//	version                  uint32, big-endian (checkpointVersion)
//	length                   uint64, big-endian: the payload's length
//	payload                  encoding/gob of checkpointFile
//	checksum                 uint32, big-endian: CRC-32 (Castagnoli) of the payload
//
// It is written to a temporary file and renamed, so a checkpoint is either
// the previous one or the new one, never half of one.
const (
	checkpointMagic   = "schedsim-checkpoint\n"
	checkpointVersion = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checkpointFile is what a checkpoint holds: the run's scenario, the trace
// it reads, and the state of the engine and of every observer, with where
// the partial jobs.csv ended.
type checkpointFile struct {
	Scenario []byte // the run's scenario, canonical JSON (Scenario.Canonical)
	// Path and Every are where and how often the run takes its
	// checkpoints: a resumed run goes on taking them.
	Path   string
	Every  workload.Time
	Trace  FileFingerprint
	Inputs []FileFingerprint // the other files the run reads (--node-events, --slurm-conf, --config)
	At     workload.Time     // the last instant simulated

	Engine, Metrics, Series, Gantt []byte
	// Breakdown is the per-user, -queue and -partition breakdown's state
	// (absent from checkpoints written before it existed).
	Breakdown []byte

	JobsTemp string // the partial jobs.csv (absolute), "" without --out
	JobsSize int64
	JobsCRC  uint32

	// Journal is the file (absolute) of every finished job's wait and
	// slowdown (report.Metrics.Journal), appended at each checkpoint;
	// Metrics holds the rest. JournalSize and JournalCRC (CRC-32C) say how
	// much of it this checkpoint covers: bytes after it, from a checkpoint
	// that a kill stopped half-way, are cut off on resume.
	Journal     string
	JournalSize int64
	JournalCRC  uint32

	// Rows is the file (absolute) of the rows of jobs.parquet
	// (report.JobsParquet.TakeRows), appended at each checkpoint; ""
	// without jobs.parquet. RowsSize and RowsCRC (CRC-32C) say how much of
	// it this checkpoint covers, as for the journal.
	Rows     string
	RowsSize int64
	RowsCRC  uint32

	// Meter is the file (absolute) of the records the power model's
	// meter keeps to the end of the run (report.EnergyRun.MarshalRecords),
	// a chunk appended at each checkpoint; "" without a power model.
	// MeterSize and MeterCRC (CRC-32C) say how much of it this checkpoint
	// covers.
	Meter     string
	MeterSize int64
	MeterCRC  uint32

	// FilterLogSize is the length of DIR/filters.log (the standard error
	// of HPC Pack filter programs) at the checkpoint: a resumed run cuts it
	// there and goes on appending.
	FilterLogSize int64

	// Done marks a run that finished: its whole output is in Stage (the
	// staging directory, absolute), about to be renamed into place, or
	// already there. A run killed between the two is completed on resume.
	Done  bool
	Stage string
}

// FileFingerprint identifies an input file's content: its name, size and
// CRC-32C. Checkpoints, sweep points and baselines store them to tell
// whether an input file changed.
type FileFingerprint struct {
	Name string
	Size int64
	CRC  uint32
}

// String returns the fingerprint as "NAME (SIZE bytes, CRC X)".
func (f FileFingerprint) String() string {
	return fmt.Sprintf("%s (%d bytes, CRC %08x)", f.Name, f.Size, f.CRC)
}

// Fingerprint reads the whole file once and returns its fingerprint; ""
// is the embedded sample trace.
func Fingerprint(trace string) (FileFingerprint, error) {
	var r io.Reader
	name := trace
	if trace == "" {
		r, name = traces.Sample(), "embedded:"+traces.SampleName
	} else {
		f, err := os.Open(trace)
		if err != nil {
			return FileFingerprint{}, err
		}
		defer f.Close()
		r = f
	}
	h := crc32.New(castagnoli)
	n, err := io.Copy(h, bufio.NewReaderSize(r, 1<<20))
	if err != nil {
		return FileFingerprint{}, fmt.Errorf("reading %s: %w", name, err)
	}
	return FileFingerprint{Name: name, Size: n, CRC: h.Sum32()}, nil
}

// writeCheckpoint writes c to path atomically.
func writeCheckpoint(path string, c *checkpointFile) error {
	var payload bytes.Buffer
	if err := gob.NewEncoder(&payload).Encode(c); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return report.WriteFileAtomic(path, func(w io.Writer) error {
		var head [len(checkpointMagic) + 12]byte
		copy(head[:], checkpointMagic)
		binary.BigEndian.PutUint32(head[len(checkpointMagic):], checkpointVersion)
		binary.BigEndian.PutUint64(head[len(checkpointMagic)+4:], uint64(payload.Len()))
		if _, err := w.Write(head[:]); err != nil {
			return err
		}
		if _, err := w.Write(payload.Bytes()); err != nil {
			return err
		}
		return binary.Write(w, binary.BigEndian, crc32.Checksum(payload.Bytes(), castagnoli))
	})
}

// errCheckpoint marks a checkpoint file that cannot be used.
var errCheckpoint = errors.New("cannot resume")

// readCheckpoint reads and checks the checkpoint at path.
func readCheckpoint(path string) (*checkpointFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &InputError{fmt.Errorf("--resume: %w", err)}
	}
	bad := func(format string, a ...any) error {
		return &InputError{fmt.Errorf("--resume %s: %w: "+format, append([]any{path, errCheckpoint}, a...)...)}
	}
	m := len(checkpointMagic)
	if len(b) < m || string(b[:m]) != checkpointMagic {
		return nil, bad("not a schedsim checkpoint (no %q magic at its start)", strings.TrimSpace(checkpointMagic))
	}
	if len(b) < m+12+4 {
		return nil, bad("truncated: %d bytes", len(b))
	}
	if v := binary.BigEndian.Uint32(b[m:]); v != checkpointVersion {
		return nil, bad("checkpoint format version %d; this schedsim reads version %d", v, checkpointVersion)
	}
	n := binary.BigEndian.Uint64(b[m+4:])
	if n != uint64(len(b)-m-12-4) {
		return nil, bad("truncated or padded: header says %d payload bytes, file holds %d", n, len(b)-m-12-4)
	}
	payload := b[m+12 : len(b)-4]
	if sum, want := crc32.Checksum(payload, castagnoli), binary.BigEndian.Uint32(b[len(b)-4:]); sum != want {
		return nil, bad("corrupt: checksum %08x, file says %08x", sum, want)
	}
	var c checkpointFile
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(&c); err != nil {
		return nil, bad("undecodable payload: %v", err)
	}
	return &c, nil
}

// checkpointer takes a run's checkpoints (--checkpoint) and resumes it
// (--resume).
type checkpointer struct {
	path     string        // --checkpoint FILE, "" for none
	every    workload.Time // --checkpoint-every, in seconds
	tick     workload.Time // the run's ticks a second (--time-unit)
	scenario []byte        // the run's scenario, canonical JSON
	from     *checkpointFile
	trace    FileFingerprint
	inputs   []FileFingerprint

	// Set up by the run.
	eng      *sim.Engine
	m        *report.Metrics
	ts       *report.TimeSeries
	gantt    *report.Gantt
	bd       *report.Breakdown
	csv      *report.JobsCSV
	jobsFile *report.AtomicFile
	barrier  func() // waits until the observers have seen every record given

	outDir *report.OutDir // the run's output directory, being written

	filterLog *os.File // DIR/filters.log, nil without it

	energy  *report.EnergyRun // the power model's meter, nil without it
	energyN report.EnergyMark // its records and switches in the checkpoints so far
	meter   sidecar           // its records, appended at each checkpoint

	pq   *report.JobsParquet // jobs.parquet's writer, nil without it
	rows sidecar             // its rows, appended at each checkpoint

	journal     *os.File // the metrics' journal, appended at each checkpoint
	journalPath string
	journalSize int64
	journalCRC  uint32

	writing  chan written // the checkpoint being written (persist), nil if none
	notUntil time.Time    // no checkpoint is taken before then (see save)
	written  int          // checkpoints taken
	skipped  int          // checkpoints not taken: the previous one was being written
	stall    int          // test hook: SCHEDSIM_TEST_STALL_CHECKPOINT
}

// newCheckpointer parses --checkpoint, --checkpoint-every and --resume.
// It returns nil if none is given.
func newCheckpointer(path, every, resume string, sc *Scenario, trace string, inputs ...string) (*checkpointer, error) {
	if path == "" && resume == "" {
		if every != "" {
			return nil, inputf("--checkpoint-every needs --checkpoint FILE")
		}
		return nil, nil
	}
	c := &checkpointer{path: path, scenario: sc.Canonical()}
	tick, err := TimeUnitTicks(sc.TimeUnit)
	if err != nil {
		return nil, inputf("--time-unit %v", err)
	}
	c.tick = workload.Time(tick)
	if path != "" {
		// Found now rather than at the first checkpoint, after a part of
		// the run.
		if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
			return nil, inputf("--checkpoint %s: no directory %s to write it in", path, filepath.Dir(path))
		}
		if every == "" {
			every = defaultCheckpointEvery
		}
		t, err := policy.ParseDuration(every)
		if err != nil || t <= 0 || (c.tick > 1 && t > workload.MaxTime) {
			return nil, inputf("--checkpoint-every %q: want a positive simulated time such as 3600, 12h or 7d", every)
		}
		c.every = t
	}
	if c.trace, err = Fingerprint(trace); err != nil {
		return nil, &InputError{fmt.Errorf("--checkpoint: %w", err)}
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		fp, err := Fingerprint(in)
		if err != nil {
			return nil, &InputError{fmt.Errorf("--checkpoint: %w", err)}
		}
		c.inputs = append(c.inputs, fp)
	}
	if resume != "" {
		if c.from, err = readCheckpoint(resume); err != nil {
			return nil, err
		}
		if !bytes.Equal(c.from.Scenario, c.scenario) {
			return nil, inputf("--resume %s: %v: the checkpoint was taken with other options (%s); give --resume alone, or the same options", resume, errCheckpoint, ScenarioDiff(c.from.Scenario, c.scenario))
		}
		if c.path == "" && c.from.Path != "" {
			c.path, c.every = c.from.Path, c.from.Every
		}
		if c.from.Trace != c.trace {
			return nil, inputf("--resume %s: %v: the checkpoint was taken on %v, the trace is now %v", resume, errCheckpoint, c.from.Trace, c.trace)
		}
		if !slices.Equal(c.from.Inputs, c.inputs) {
			return nil, inputf("--resume %s: %v: an input file changed since the checkpoint: it read %v, now %v", resume, errCheckpoint, c.from.Inputs, c.inputs)
		}
	}
	if s := os.Getenv("SCHEDSIM_TEST_STALL_CHECKPOINT"); s != "" {
		c.stall, _ = strconv.Atoi(s)
	}
	return c, nil
}

// defaultCheckpointEvery is --checkpoint-every's default.
const defaultCheckpointEvery = "30d"

// config sets up cfg's checkpoints.
func (c *checkpointer) config(cfg *sim.Config) {
	if c.path == "" {
		return
	}
	cfg.CheckpointEvery = c.every * c.tick // the spacing is simulated seconds
	cfg.OnCheckpoint = c.save
}

// engine returns the run's engine: new, or restored from the checkpoint.
func (c *checkpointer) engine(cfg sim.Config, m *report.Metrics, ts *report.TimeSeries, gantt *report.Gantt, bd *report.Breakdown) (*sim.Engine, error) {
	if err := sim.CanCheckpoint(cfg); err != nil {
		return nil, &InputError{fmt.Errorf("--checkpoint: %w", err)}
	}
	c.m, c.ts, c.gantt, c.bd = m, ts, gantt, bd
	if c.from == nil {
		eng, err := sim.New(cfg)
		if err != nil {
			return nil, &InputError{err}
		}
		c.eng = eng
		if err := c.openJournal(); err != nil {
			return nil, err
		}
		return eng, nil
	}
	eng, err := sim.Restore(cfg, c.from.Engine)
	if err != nil {
		return nil, &InputError{fmt.Errorf("--resume: %w: %v", errCheckpoint, err)}
	}
	c.eng = eng
	if err := c.resumeJournal(); err != nil {
		return nil, err
	}
	if err := c.resumeGantt(gantt); err != nil {
		return nil, err
	}
	return eng, nil
}

// resumeGantt restores the Gantt chart's jobs, and the breakdown, from
// the checkpoint.
func (c *checkpointer) resumeGantt(gantt *report.Gantt) error {
	if c.from.Breakdown != nil && c.bd != nil {
		if err := c.bd.UnmarshalBinary(c.from.Breakdown); err != nil {
			return inputf("--resume: %v: %v", errCheckpoint, err)
		}
	}
	if (gantt == nil) != (c.from.Gantt == nil) {
		return inputf("--resume: %v: the Gantt chart was kept in one run and not in the other", errCheckpoint)
	}
	if gantt != nil {
		if err := gantt.UnmarshalBinary(c.from.Gantt); err != nil {
			return &InputError{fmt.Errorf("--resume: %w: %v", errCheckpoint, err)}
		}
	}
	return nil
}

// jobsCSV returns the writer of DIR/jobs.csv: a new one, or the partial
// file of the checkpoint, cut to where the checkpoint was taken.
func (c *checkpointer) jobsCSV(path, traceName string, scored bool) (*report.AtomicFile, *report.JobsCSV, error) {
	var f *report.AtomicFile
	var err error
	if c.from != nil {
		if c.from.JobsTemp == "" {
			return nil, nil, inputf("--resume: %v: the checkpointed run wrote no jobs.csv (it had no --out)", errCheckpoint)
		}
		if _, err := os.Stat(c.from.JobsTemp); errors.Is(err, os.ErrNotExist) {
			// A kill after the finished jobs.csv was renamed into the
			// staging directory, before the run was marked done: the
			// whole file begins with the partial one.
			os.Rename(filepath.Join(filepath.Dir(c.from.JobsTemp), "jobs.csv"), c.from.JobsTemp)
		}
		if f, err = report.ResumeAtomic(path, c.from.JobsTemp, c.from.JobsSize, c.from.JobsCRC); err != nil {
			return nil, nil, &InputError{fmt.Errorf("--resume: %w: %v", errCheckpoint, err)}
		}
		if scored {
			c.csv = report.ResumeScoreDJobsCSV(f, traceName)
		} else {
			c.csv = report.ResumeJobsCSV(f, traceName)
		}
	} else {
		if f, err = report.CreateAtomic(path); err != nil {
			return nil, nil, err
		}
		f.Track()
		if scored {
			c.csv = report.NewScoreDJobsCSV(f, traceName)
		} else {
			c.csv = report.NewJobsCSV(f, traceName)
		}
	}
	if c.tick > 1 {
		c.csv.SetTick(int64(c.tick))
	}
	f.KeepOnAbort() // a killed or interrupted run can be resumed
	c.jobsFile = f
	return f, c.csv, nil
}

// save takes a checkpoint at the end of instant t, if the previous one is
// on disk.
//
// Taking it stops the simulation only while its state is copied: the
// finished jobs' rows flushed to the partial jobs.csv, the engine's state
// (sim.Snapshot) and the metrics' counters. The rest (encoding the engine's
// state, appending to the journal, syncing the journal and jobs.csv,
// writing the checkpoint file and renaming it into place) goes on, on a
// goroutine of its own, while the simulation runs on. A checkpoint due
// while the previous one is still being written, or sooner after it than
// writerIdle times as long as that write took, is not taken: the next one
// due after is; what finished in between goes into that one's journal
// chunk. So a checkpoint costs what changed since the last one, and a disk
// or machine slower than the simulation spaces them out instead of slowing
// the run. Which instants get a checkpoint then depends on the wall clock,
// but a run resumed from any of them gives the same results.
func (c *checkpointer) save(t workload.Time) error {
	if c.writing != nil {
		if c.stall > 0 {
			// Test hook: every checkpoint due is taken, so that the
			// stall comes at the same instant whatever the disk's
			// speed, and the one before it is whole.
			if err := c.wait(); err != nil {
				return err
			}
		} else {
			select {
			case w := <-c.writing:
				c.writing = nil
				if w.err != nil {
					return w.err
				}
				c.notUntil = w.end.Add(writerIdle * w.took)
			default:
				c.skipped++
				return nil
			}
		}
	}
	if c.stall == 0 && !c.notUntil.IsZero() && time.Now().Before(c.notUntil) {
		c.skipped++
		return nil
	}
	c.written++
	if c.barrier != nil {
		c.barrier() // the observers have seen every job up to t
	}
	if c.jobsFile != nil {
		if err := c.csv.Flush(); err != nil {
			return err
		}
	}
	if c.stall > 0 && c.written == c.stall {
		// Test hook: stop here, with rows past the previous checkpoint
		// on disk, and wait for SIGKILL.
		fmt.Fprintf(os.Stderr, "schedsim: stalled before checkpoint %d\n", c.written)
		select {}
	}
	ck := &checkpointFile{Scenario: c.scenario, Path: c.path, Every: c.every, Trace: c.trace, Inputs: c.inputs, At: t}
	snap, err := c.eng.Snapshot()
	if err != nil {
		return err
	}
	chunk := c.journalChunk()
	ck.Journal, ck.JournalSize, ck.JournalCRC = c.journalPath, c.journalSize, c.journalCRC
	if ck.Metrics, err = c.m.MarshalCounts(); err != nil {
		return err
	}
	if ck.Series, err = c.ts.MarshalCounts(); err != nil {
		return err
	}
	if c.gantt != nil {
		if ck.Gantt, err = c.gantt.MarshalBinary(); err != nil {
			return err
		}
	}
	if c.bd != nil {
		if ck.Breakdown, err = c.bd.MarshalBinary(); err != nil {
			return err
		}
	}
	if c.jobsFile != nil {
		if ck.JobsTemp, err = filepath.Abs(c.jobsFile.TempName()); err != nil {
			return err
		}
		ck.JobsSize, ck.JobsCRC = c.jobsFile.Position()
	}
	if c.filterLog != nil {
		// Filter programs write to it on this goroutine, in their calls.
		if ck.FilterLogSize, err = c.filterLog.Seek(0, io.SeekCurrent); err != nil {
			return err
		}
	}
	var side []sideChunk
	if c.energy != nil {
		b, err := c.energy.MarshalRecords(c.energyN)
		if err != nil {
			return err
		}
		c.energyN = c.energy.Mark()
		side = append(side, c.meter.take(binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(b)), uint64(len(b)))))
		side = append(side, c.meter.take(b))
		ck.Meter, ck.MeterSize, ck.MeterCRC = c.meter.path, c.meter.size, c.meter.crc
	}
	if c.pq != nil {
		side = append(side, c.rows.take(c.pq.TakeRows()))
		ck.Rows, ck.RowsSize, ck.RowsCRC = c.rows.path, c.rows.size, c.rows.crc
	}
	done := make(chan written, 1)
	c.writing = done
	go func() {
		start := time.Now()
		err := c.persist(ck, snap, chunk, side)
		end := time.Now()
		done <- written{err: err, took: end.Sub(start), end: end}
	}()
	return nil
}

// written is how persist's write of a checkpoint went.
type written struct {
	err  error
	took time.Duration // how long it took
	end  time.Time     // when it ended
}

// writerIdle is how many times as long as the last write took the writer
// then stays idle: writing checkpoints takes at most a tenth of the run's
// time (of a core that the simulation and its observers share), whatever
// --checkpoint-every asks. The wall clock only spaces checkpoints out; what
// each holds, and a run resumed from it, depend on none of it.
const writerIdle = 9

// persist writes a checkpoint taken by save: the engine's state encoded,
// the journal chunk appended and synced, the partial jobs.csv synced up to
// at least the size the checkpoint records, and last the checkpoint file,
// atomically. It runs on its own goroutine, one at a time; the simulation
// goes on meanwhile, appending rows to jobs.csv (past the recorded size,
// which a resume cuts).
func (c *checkpointer) persist(ck *checkpointFile, snap *sim.Snapshot, chunk []byte, side []sideChunk) error {
	var err error
	if ck.Engine, err = snap.MarshalBinary(); err != nil {
		return err
	}
	for _, sc := range side {
		if err := sc.write(); err != nil {
			return err
		}
	}
	if _, err := c.journal.Write(chunk); err != nil {
		return err
	}
	if err := c.journal.Sync(); err != nil {
		return err
	}
	if c.jobsFile != nil {
		if err := c.jobsFile.Sync(); err != nil {
			return err
		}
	}
	if c.filterLog != nil {
		if err := c.filterLog.Sync(); err != nil {
			return err
		}
	}
	return writeCheckpoint(c.path, ck)
}

// wait waits until the checkpoint being written, if any, is on disk, and
// returns the error that stopped it.
func (c *checkpointer) wait() error {
	if c == nil || c.writing == nil {
		return nil
	}
	w := <-c.writing
	c.writing = nil
	return w.err
}

// done removes the checkpoint of a run that completed: resuming it could
// only fail, its partial jobs.csv having become the result.
func (c *checkpointer) done() {
	c.wait() // a write that ends after the removal would leave it behind
	if c != nil && c.path != "" {
		os.Remove(c.path)
		c.closeJournal(true)
	}
	if c != nil {
		c.rows.close(true)
		c.meter.close(true)
		if c.path != "" {
			// A run completed by finishDone did not open them.
			os.Remove(c.path + ".rows")
			os.Remove(c.path + ".energy")
		}
	}
}

// failed discards the checkpoint and the partial jobs.csv of a run that
// stopped on bad input (a *workload.ParseError): resuming it could only
// stop on the same input again. Other errors (an interrupt, a full disk)
// keep them for --resume.
func (c *checkpointer) failed(err error) {
	c.wait()
	var pe *workload.ParseError
	if c == nil || !errors.As(err, &pe) {
		return
	}
	if c.path != "" {
		os.Remove(c.path)
		c.closeJournal(true)
	}
	c.rows.close(true)
	c.meter.close(true)
	if c.jobsFile != nil {
		os.Remove(c.jobsFile.TempName()) // Abort, which keeps it, closes it
	}
	if c.outDir != nil {
		c.outDir.Discard()
	}
}

// CheckpointScenario returns the scenario saved in the checkpoint file at
// path, to resume the run with Options.Resume. A file that is not a whole
// checkpoint of this version is an *InputError.
func CheckpointScenario(path string) (Scenario, error) {
	c, err := readCheckpoint(path)
	if err != nil {
		return Scenario{}, err
	}
	var sc Scenario
	if err := json.Unmarshal(c.Scenario, &sc); err != nil {
		return Scenario{}, inputf("--resume %s: %v: its scenario does not decode: %v", path, errCheckpoint, err)
	}
	return sc, nil
}

// ScenarioDiff lists the keys whose values differ between two canonical
// scenarios, "key: saved X, now Y; …".
func ScenarioDiff(saved, now []byte) string {
	var a, b map[string]any
	if json.Unmarshal(saved, &a) != nil || json.Unmarshal(now, &b) != nil {
		return "undecodable scenario"
	}
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var diffs []string
	for _, k := range keys {
		x, _ := json.Marshal(a[k])
		y, _ := json.Marshal(b[k])
		if !bytes.Equal(x, y) {
			diffs = append(diffs, fmt.Sprintf("%s: saved %s, now %s", k, x, y))
		}
	}
	return strings.Join(diffs, "; ")
}

// openJournal starts the metrics' journal of a run that takes checkpoints:
// CHECKPOINT.journal, new and empty.
func (c *checkpointer) openJournal() error {
	if c.path == "" {
		return nil
	}
	path, err := filepath.Abs(c.path + ".journal")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("--checkpoint: %w", err)
	}
	c.journal, c.journalPath, c.journalSize, c.journalCRC = f, path, 0, 0
	c.m.Journal()
	c.ts.Journal()
	return nil
}

// resumeJournal restores the metrics from the checkpoint and its journal,
// cut to the size the checkpoint covers, and goes on appending to it.
func (c *checkpointer) resumeJournal() error {
	bad := func(format string, a ...any) error {
		return inputf("--resume: %v: %s", errCheckpoint, fmt.Sprintf(format, a...))
	}
	f, err := os.OpenFile(c.from.Journal, os.O_RDWR, 0)
	if err != nil {
		return bad("its journal of finished jobs: %v", err)
	}
	data := make([]byte, c.from.JournalSize)
	if _, err := io.ReadFull(f, data); err != nil {
		f.Close()
		return bad("its journal %s is shorter than the %d bytes the checkpoint covers", c.from.Journal, c.from.JournalSize)
	}
	if crc := crc32.Checksum(data, castagnoli); crc != c.from.JournalCRC {
		f.Close()
		return bad("its journal %s differs from what the checkpoint recorded (CRC %08x, recorded %08x)", c.from.Journal, crc, c.from.JournalCRC)
	}
	metrics, series, err := splitJournal(data)
	if err == nil {
		err = c.m.UnmarshalJournal(c.from.Metrics, metrics)
	}
	if err == nil {
		err = c.ts.UnmarshalJournal(c.from.Series, series)
	}
	if err != nil {
		f.Close()
		return bad("%v", err)
	}
	// Bytes past the checkpoint came from one a kill stopped half-way.
	if err := f.Truncate(c.from.JournalSize); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Seek(c.from.JournalSize, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	c.journal, c.journalPath = f, c.from.Journal
	c.journalSize, c.journalCRC = c.from.JournalSize, c.from.JournalCRC
	if c.path != "" {
		c.m.Journal()
	}
	return nil
}

// journalChunk takes what finished since the last checkpoint, as the
// chunk to append to the journal (persist appends it), and counts it in
// the journal's size and CRC: the metrics' entries then the series' closed
// buckets, each preceded by its length (uint64, little-endian).
func (c *checkpointer) journalChunk() []byte {
	m, ts := c.m.TakeJournal(), c.ts.TakeJournal()
	b := make([]byte, 0, 16+len(m)+len(ts))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(m)))
	b = append(b, m...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(ts)))
	b = append(b, ts...)
	c.journalSize += int64(len(b))
	c.journalCRC = crc32.Update(c.journalCRC, castagnoli, b)
	return b
}

// splitJournal splits a journal into the metrics' entries, all of them,
// and the series' chunks.
func splitJournal(data []byte) (metrics []byte, series [][]byte, err error) {
	next := func() ([]byte, error) {
		if len(data) < 8 {
			return nil, fmt.Errorf("journal cut inside a chunk")
		}
		n := binary.LittleEndian.Uint64(data)
		if n > uint64(len(data)-8) {
			return nil, fmt.Errorf("journal chunk of %d bytes past its end", n)
		}
		part := data[8 : 8+n]
		data = data[8+n:]
		return part, nil
	}
	for len(data) > 0 {
		m, err := next()
		if err != nil {
			return nil, nil, err
		}
		ts, err := next()
		if err != nil {
			return nil, nil, err
		}
		metrics = append(metrics, m...)
		series = append(series, ts)
	}
	return metrics, series, nil
}

// closeJournal closes the journal, and removes it with remove.
func (c *checkpointer) closeJournal(remove bool) {
	if c.journal == nil {
		return
	}
	c.journal.Close()
	if remove {
		os.Remove(c.journalPath)
	}
	c.journal = nil
}

// markDone records that the run finished and its outputs are whole in the
// staging directory stage, just before it is renamed into place.
func (c *checkpointer) markDone(stage string) error {
	if c.path == "" {
		return nil
	}
	if err := c.wait(); err != nil {
		return err
	}
	abs, err := filepath.Abs(stage)
	if err != nil {
		return err
	}
	return writeCheckpoint(c.path, &checkpointFile{Scenario: c.scenario, Path: c.path, Every: c.every,
		Trace: c.trace, Inputs: c.inputs, Done: true, Stage: abs})
}

// finishDone completes a run whose checkpoint says it finished: the staging
// directory is renamed into place if a kill came before, and the results
// are read back from the output directory.
func (o *runner) finishDone() (*Result, error) {
	c := o.ck
	if o.Out == "" {
		return nil, inputf("--resume: %v: the checkpointed run wrote its results to a directory; give its --out", errCheckpoint)
	}
	if fi, err := os.Stat(c.from.Stage); err == nil && fi.IsDir() {
		// The partial jobs.csv of a run that wrote jobs.parquet alone, if
		// the kill came before it was removed.
		partial, _ := filepath.Glob(filepath.Join(c.from.Stage, ".jobs.csv.tmp-*"))
		for _, p := range partial {
			os.Remove(p)
		}
		od, err := report.ResumeOutDir(o.Out, c.from.Stage)
		if err != nil {
			return nil, inputf("--resume: %v: %v", errCheckpoint, err)
		}
		if err := od.Commit(); err != nil {
			return nil, err
		}
	}
	r, err := report.ReadRunDir(o.Out, report.DefaultSeriesPoints)
	if err != nil {
		return nil, inputf("--resume: %v: the run had finished, but its results in %s cannot be read: %v", errCheckpoint, o.Out, err)
	}
	c.done()
	return &Result{Summary: r.Summary, Run: r}, nil
}

// parquet sets up jobs.parquet's rows: those of the checkpoint given back
// to pq, and pq's new rows kept for the checkpoints to come, in
// CHECKPOINT.rows.
func (c *checkpointer) parquet(pq *report.JobsParquet) error {
	c.pq = pq
	if c.from != nil {
		if c.from.Rows == "" {
			return inputf("--resume: %v: the checkpoint holds no rows of jobs.parquet", errCheckpoint)
		}
		rows, err := c.rows.resume(c.from.Rows, c.from.RowsSize, c.from.RowsCRC)
		if err != nil {
			return inputf("--resume: %v: jobs.parquet's rows: %v", errCheckpoint, err)
		}
		if err := pq.Replay(rows); err != nil {
			return inputf("--resume: %v: %v", errCheckpoint, err)
		}
	} else if c.path != "" {
		if err := c.rows.open(c.path + ".rows"); err != nil {
			return fmt.Errorf("--checkpoint: %w", err)
		}
	}
	pq.Journal()
	return nil
}

// sidecar is a file beside the checkpoint that grows by a chunk at each
// checkpoint (what finished since the previous one), like the journal:
// size and crc (CRC-32C) cover the chunks taken, which the checkpoint
// records; a resume cuts off what lies past them.
type sidecar struct {
	f    *os.File
	path string // absolute
	size int64
	crc  uint32
}

// sideChunk is a chunk taken for a sidecar, to write.
type sideChunk struct {
	s *sidecar
	b []byte
}

// open creates the sidecar at path, empty.
func (s *sidecar) open(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	s.f, s.path, s.size, s.crc = f, abs, 0, 0
	return nil
}

// resume opens the sidecar at path, checks that its first size bytes have
// the CRC crc, cuts off the rest, and returns those bytes.
func (s *sidecar) resume(path string, size int64, crc uint32) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s is shorter than the %d bytes the checkpoint covers", path, size)
	}
	if got := crc32.Checksum(data, castagnoli); got != crc {
		f.Close()
		return nil, fmt.Errorf("%s differs from what the checkpoint recorded (CRC %08x, recorded %08x)", path, got, crc)
	}
	if err := f.Truncate(size); err == nil {
		_, err = f.Seek(size, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	s.f, s.path, s.size, s.crc = f, path, size, crc
	return data, nil
}

// take counts chunk b in the sidecar's size and CRC (on the simulation's
// goroutine, in save) and returns it for persist to write.
func (s *sidecar) take(b []byte) sideChunk {
	s.size += int64(len(b))
	s.crc = crc32.Update(s.crc, castagnoli, b)
	return sideChunk{s, b}
}

// write appends the chunk to its sidecar and syncs it.
func (sc sideChunk) write() error {
	if sc.s.f == nil {
		return nil
	}
	if _, err := sc.s.f.Write(sc.b); err != nil {
		return err
	}
	return sc.s.f.Sync()
}

// close closes the sidecar, and removes it with remove.
func (s *sidecar) close(remove bool) {
	if s.f == nil {
		return
	}
	s.f.Close()
	if remove {
		os.Remove(s.path)
	}
	s.f = nil
}

// openFilterLog opens DIR/filters.log at path: new, or for a resumed run
// the log as it was at the checkpoint (what the programs wrote after it is
// cut off: they are called again).
func (c *checkpointer) openFilterLog(path string) (*os.File, error) {
	if c.from == nil {
		f, err := os.Create(path)
		c.filterLog = f
		return f, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() < c.from.FilterLogSize {
		err = fmt.Errorf("%s holds %d bytes, fewer than the %d the checkpoint recorded", path, fi.Size(), c.from.FilterLogSize)
	}
	if err == nil {
		err = f.Truncate(c.from.FilterLogSize)
	}
	if err == nil {
		_, err = f.Seek(c.from.FilterLogSize, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, inputf("--resume: %v: filters.log: %v", errCheckpoint, err)
	}
	c.filterLog = f
	return f, nil
}

// meterRecords sets up the power model's meter: the records of the
// checkpoint given back to it, and its new records kept for the
// checkpoints to come, in CHECKPOINT.energy.
func (c *checkpointer) meterRecords(e *report.EnergyRun) error {
	c.energy = e
	if c.from != nil {
		if c.from.Meter == "" {
			return inputf("--resume: %v: the checkpoint holds no records of the power model's meter", errCheckpoint)
		}
		data, err := c.meter.resume(c.from.Meter, c.from.MeterSize, c.from.MeterCRC)
		if err != nil {
			return inputf("--resume: %v: the meter's records: %v", errCheckpoint, err)
		}
		for len(data) > 0 {
			if len(data) < 8 || binary.LittleEndian.Uint64(data) > uint64(len(data)-8) {
				return inputf("--resume: %v: the meter's records are cut inside a chunk", errCheckpoint)
			}
			n := binary.LittleEndian.Uint64(data)
			if err := e.UnmarshalRecords(data[8 : 8+n]); err != nil {
				return inputf("--resume: %v: %v", errCheckpoint, err)
			}
			data = data[8+n:]
		}
		c.energyN = e.Mark()
	} else if c.path != "" {
		if err := c.meter.open(c.path + ".energy"); err != nil {
			return fmt.Errorf("--checkpoint: %w", err)
		}
	}
	return nil
}
