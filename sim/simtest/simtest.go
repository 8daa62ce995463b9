// Package simtest is a harness for testing schedulers on package sim's
// engine, for schedsim's own tests and for anyone writing a policy or an
// observer: jobs written compactly (Job, or as text: ParseJobs, Jobs), a
// Source over a slice of jobs, an Observer that keeps every record
// (Recorder), a Policy wrapper that keeps every decision (Spy), the checks
// every schedule must pass whatever the policy (CheckSchedule), and a
// runner that does all of it at once (Simulate).
//
// Scenario files are small test cases a person can check by hand: a
// machine, a policy and a few jobs, followed by the schedule they must
// give (see ParseScenario for the format). A test runs them with
// Scenario.Run and compares the result with the file's schedule, which
// the test rewrites when run with its -update flag.
//
// Long tests (oracles, equivalence runs over thousands of seeded cases,
// whole-trace runs) ask Full or Cases how much to run: their full counts
// in CI, fewer in an everyday go test.
package simtest

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// Full reports whether long tests run their full case counts: when the
// environment variable CI holds a true value (as strconv.ParseBool reads
// it: CI=true, as CI services and .ci/run set it) and go test runs without
// -short. Otherwise they run a quick sample, so that go test ./... stays
// within a few minutes on a laptop; CI=true go test ./... runs everything.
// Call it from a test: it asks testing.Short, which panics before the test
// flags are parsed.
func Full() bool {
	if testing.Short() {
		return false
	}
	ci, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && ci
}

// Cases returns full when Full reports true, else quick: the number of
// seeded cases a long test runs.
func Cases(full, quick int) int {
	if Full() {
		return full
	}
	return quick
}

// Job returns a job as the cleaning rules leave it: id, submit time,
// processors, run time and estimate (workload.Unknown: none, so never
// killed and never backfilled). The requested fields equal the ones the
// engine uses; every other SWF field is -1 (unknown), the status 1.
// NewSource numbers the jobs (Seq).
func Job(id int64, submit workload.Time, procs int, run, estimate workload.Time) workload.Job {
	return workload.Job{
		ID: id, Submit: submit, Procs: procs, Run: run, Estimate: estimate,
		RawWait: -1, RawRun: float64(run), AllocProcs: procs, ReqProcs: procs, ReqTime: float64(estimate),
		AvgCPUSec: -1, UsedMemKB: -1, ReqMemKB: -1, Status: 1, User: -1, Group: -1,
		Executable: -1, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1,
	}
}

// Source is a sim.Source over a slice of jobs, in slice order. It hands
// out copies: the engine never changes Jobs.
type Source struct {
	Jobs []workload.Job
	next int
}

// NewSource returns a Source over jobs after numbering them (Seq) in slice
// order, in place: as a trace reader numbers the records it reads.
func NewSource(jobs []workload.Job) *Source {
	for i := range jobs {
		jobs[i].Seq = int64(i)
	}
	return &Source{Jobs: jobs}
}

// Next implements sim.Source.
func (s *Source) Next(j *workload.Job) error {
	if s.next >= len(s.Jobs) {
		return io.EOF
	}
	*j = s.Jobs[s.next]
	s.next++
	return nil
}

// Recorder is a sim.Observer that keeps a copy of every record, in the
// order the engine emitted them. The copies share nothing with the engine.
type Recorder struct {
	Records []sim.Record
}

// Wants implements sim.Observer: the records.
func (r *Recorder) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds} }

// Observe implements sim.Observer: it keeps a copy of the event's record.
func (r *Recorder) Observe(e *sim.Event) { r.JobDone(e.Record) }

// JobDone keeps a copy of rec.
func (r *Recorder) JobDone(rec *sim.Record) {
	r.Records = append(r.Records, CopyRecord(rec))
}

// ByID returns the record of job id; it fails t unless there is exactly
// one.
func (r *Recorder) ByID(t testing.TB, id int64) sim.Record {
	t.Helper()
	var out *sim.Record
	for i := range r.Records {
		if r.Records[i].Job.ID == id {
			if out != nil {
				t.Fatalf("job %d recorded twice", id)
			}
			out = &r.Records[i]
		}
	}
	if out == nil {
		t.Fatalf("job %d never recorded", id)
	}
	return *out
}

// Outcomes returns the records as sim.Verify checks them: what a
// sim.Collector would have kept of the run.
func (r *Recorder) Outcomes() []sim.Outcome {
	c := &sim.Collector{}
	for i := range r.Records {
		c.JobDone(&r.Records[i])
	}
	return c.Outcomes
}

// CopyRecord returns a copy of rec that shares no memory with it (the
// engine reuses a record's memory once Observer.Observe returns).
func CopyRecord(rec *sim.Record) sim.Record {
	c := *rec
	j := *rec.Job
	c.Job = &j
	c.Alloc = append([]cluster.Range(nil), rec.Alloc...)
	c.PredictedAlloc = append([]cluster.Range(nil), rec.PredictedAlloc...)
	c.Preemptions = append([]sim.PreemptMark(nil), rec.Preemptions...)
	c.Runs = nil
	for _, r := range rec.Runs {
		c.Runs = append(c.Runs, sim.RunSpan{From: r.From, To: r.To, Alloc: append([]cluster.Range(nil), r.Alloc...)})
	}
	c.Steps = nil
	for _, g := range rec.Steps {
		g.Alloc = append([]cluster.Range(nil), g.Alloc...)
		c.Steps = append(c.Steps, g)
	}
	return c
}

// SampleRecorder is a Recorder that also keeps every sample
// (sim.EventSampled).
type SampleRecorder struct {
	Recorder
	Samples []sim.Sample
}

// Wants implements sim.Observer: the records and the samples.
func (s *SampleRecorder) Wants() sim.Wants {
	return sim.Wants{Kinds: sim.RecordKinds | sim.KindsOf(sim.EventSampled)}
}

// Observe implements sim.Observer.
func (s *SampleRecorder) Observe(e *sim.Event) {
	if e.Kind == sim.EventSampled {
		s.Samples = append(s.Samples, e.Samples...)
		return
	}
	s.JobDone(e.Record)
}

// Discard is a sim.Observer that drops every record (it wants them, so
// that the engine builds them as for any observer).
type Discard struct{}

// Wants implements sim.Observer: the records.
func (Discard) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds} }

// Observe implements sim.Observer.
func (Discard) Observe(*sim.Event) {}

// Tee is a sim.Observer that hands every event to each of its observers
// that wants its kind, in order.
type Tee []sim.Observer

// Wants implements sim.Observer: what any of them wants.
func (t Tee) Wants() sim.Wants {
	var w sim.Wants
	for _, o := range t {
		w.Kinds |= o.Wants().Kinds
	}
	return w
}

// Observe implements sim.Observer.
func (t Tee) Observe(e *sim.Event) {
	for _, o := range t {
		if o.Wants().Kinds.Has(e.Kind) {
			o.Observe(e)
		}
	}
}

// Run runs jobs, in slice order, under cfg and returns every record and
// the run's statistics. An error from the engine fails t. The jobs are
// used as they are (Seq included): see NewSource.
func Run(t testing.TB, cfg sim.Config, jobs []workload.Job) (*Recorder, sim.Stats) {
	t.Helper()
	eng, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &Recorder{}
	st, err := eng.Run(&Source{Jobs: jobs}, rec)
	if err != nil {
		t.Fatal(err)
	}
	return rec, st
}

// RunNodes runs a copy of jobs, numbered in slice order (NewSource), under
// cfg on the cluster of nodes spec describes (a new node selector of it as
// cfg.Allocator) and returns every record, the run's statistics and the
// selector as the run left it. An error fails t.
func RunNodes(t testing.TB, spec *cluster.Spec, cfg sim.Config, jobs []workload.Job) (*Recorder, sim.Stats, cluster.Allocator) {
	t.Helper()
	al, err := spec.NewAllocator()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Allocator = al
	rec, st := Run(t, cfg, NewSource(append([]workload.Job(nil), jobs...)).Jobs)
	return rec, st, al
}

// Simulate runs jobs, numbered in slice order (NewSource), on a pool of
// procs processors under pol, and returns every record and the run's
// statistics. The records must pass CheckSchedule, or t fails.
func Simulate(t testing.TB, procs int, pol policy.Policy, jobs []workload.Job) (*Recorder, sim.Stats) {
	t.Helper()
	NewSource(jobs)
	rec, st := Run(t, sim.Config{Procs: procs, Policy: pol}, jobs)
	if err := CheckSchedule(procs, jobs, rec.Records); err != nil {
		t.Fatalf("%v\n%s", err, Format(rec.Records))
	}
	return rec, st
}

// CheckSchedule checks what must hold of any schedule of jobs on a pool
// of procs processors, whatever the policy: every job recorded once; a
// job is rejected, at its submission and with a reason, exactly when it
// is larger than the machine; a job runs its run time cut at its estimate
// (then it is killed), never before its submission, on exactly its number
// of processors, all of the machine's; no processor is used by two jobs at
// once; records come in order of end time. It does not apply to runs with
// filters, node events, growth or a cluster of nodes.
func CheckSchedule(procs int, jobs []workload.Job, recs []sim.Record) error {
	return checkSchedule(procs, jobs, recs, false)
}

// checkSchedule is CheckSchedule; with constrained, a job that fits the
// machine may be rejected too (with a reason): a limit or the
// reservations rejected it (sim.Constraints).
func checkSchedule(procs int, jobs []workload.Job, recs []sim.Record, constrained bool) error {
	if len(recs) != len(jobs) {
		return fmt.Errorf("%d records for %d jobs", len(recs), len(jobs))
	}
	seen := make(map[int64]bool, len(recs))
	for i, r := range recs {
		j := r.Job
		if seen[j.Seq] {
			return fmt.Errorf("job %d (seq %d) recorded twice", j.ID, j.Seq)
		}
		seen[j.Seq] = true
		if i > 0 && r.End < recs[i-1].End {
			return fmt.Errorf("record of job %d (end %d) after one ending at %d", j.ID, r.End, recs[i-1].End)
		}
		if (r.State == sim.Rejected) != (j.Procs > procs) && !(constrained && r.State == sim.Rejected) {
			return fmt.Errorf("job %d of %d processors on a %d-processor machine: state %v", j.ID, j.Procs, procs, r.State)
		}
		if r.State == sim.Rejected {
			if r.Start != j.Submit || r.End != j.Submit || r.Reason == "" || len(r.Alloc) != 0 {
				return fmt.Errorf("rejected job %d: start %d end %d reason %q alloc %v", j.ID, r.Start, r.End, r.Reason, r.Alloc)
			}
			continue
		}
		if r.Start < j.Submit {
			return fmt.Errorf("job %d starts at %d before its submission at %d", j.ID, r.Start, j.Submit)
		}
		killed := j.Estimate > 0 && j.Run > j.Estimate
		wantEnd, wantState := r.Start+j.Run, sim.Completed
		if killed {
			wantEnd, wantState = r.Start+j.Estimate, sim.Killed
		}
		if r.End != wantEnd || r.State != wantState {
			return fmt.Errorf("job %d (run %d, estimate %d) started at %d: end %d state %v, want %d %v", j.ID, j.Run, j.Estimate, r.Start, r.End, r.State, wantEnd, wantState)
		}
		n := 0
		for _, a := range r.Alloc {
			if a.Lo < 0 || a.Hi > procs || a.Lo >= a.Hi {
				return fmt.Errorf("job %d: bad range %v", j.ID, a)
			}
			n += a.Len()
		}
		if n != j.Procs {
			return fmt.Errorf("job %d of %d processors allocated %v", j.ID, j.Procs, r.Alloc)
		}
	}
	// No processor in two jobs at once: sweep the starts and ends, the
	// ends of an instant first.
	type event struct {
		at    workload.Time
		start bool
		r     *sim.Record
	}
	var evs []event
	for i := range recs {
		if recs[i].State != sim.Rejected && recs[i].End > recs[i].Start {
			evs = append(evs, event{recs[i].Start, true, &recs[i]}, event{recs[i].End, false, &recs[i]})
		}
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].at != evs[b].at {
			return evs[a].at < evs[b].at
		}
		return !evs[a].start && evs[b].start
	})
	owner := make([]*sim.Record, procs)
	for _, e := range evs {
		for _, a := range e.r.Alloc {
			for p := a.Lo; p < a.Hi; p++ {
				switch {
				case e.start && owner[p] != nil:
					return fmt.Errorf("processor %d given to job %d at %d while job %d holds it", p, e.r.Job.ID, e.at, owner[p].Job.ID)
				case e.start:
					owner[p] = e.r
				default:
					owner[p] = nil
				}
			}
		}
	}
	return nil
}

// Format returns records one a line, with everything a failing test needs
// to see: the job as the engine saw it, then what became of it.
func Format(recs []sim.Record) string {
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "  job %d seq %d submit %d procs %d run %d est %d: %v start %d end %d alloc %s %s\n",
			r.Job.ID, r.Job.Seq, r.Job.Submit, r.Job.Procs, r.Job.Run, r.Job.Estimate, r.State, r.Start, r.End,
			cluster.FormatRanges(nil, r.Alloc), r.Reason)
	}
	return b.String()
}

// ReadCSV reads a CSV file (an output such as jobs.csv, or a recorded
// reference) into its rows, header first, failing the test on any error.
func ReadCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// WriteCSV writes rows to path as CSV, failing the test on any error: a
// test that plants a fault in an output (jobs.csv) writes it back so.
func WriteCSV(t testing.TB, path string, rows [][]string) {
	t.Helper()
	var b strings.Builder
	w := csv.NewWriter(&b)
	if err := w.WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Columns returns the index of each column of a CSV header by its name.
func Columns(header []string) map[string]int {
	col := make(map[string]int, len(header))
	for i, h := range header {
		col[h] = i
	}
	return col
}

// StartsOf returns the starts of jobs 1 to n among outs as the hand-computed
// schedules of the tests write them: "id:start" in job order, separated by
// spaces (a job with no outcome is left out).
func StartsOf(outs []sim.Outcome, n int) string {
	var got []string
	for id := int64(1); id <= int64(n); id++ {
		for _, o := range outs {
			if o.Job.ID == id {
				got = append(got, fmt.Sprintf("%d:%d", id, o.Start))
			}
		}
	}
	return strings.Join(got, " ")
}

// FirstDiff returns the first line at which a and b differ, with both
// (labelled fast and slow: the tests compare a run that takes a shortcut
// with one that does not), or their lengths in lines.
func FirstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  fast: %s\n  slow: %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(la), len(lb))
}
