package sim_test

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// none is the estimate of a job without one.
const none = workload.Unknown

// job builds a cleaned job: id, submit time, processors, run time and
// estimate (none: no estimate). Seq is set by newSource.
func job(id int64, submit workload.Time, procs int, run, estimate workload.Time) workload.Job {
	return workload.Job{
		ID: id, Submit: submit, Procs: procs, Run: run, Estimate: estimate,
		RawWait: -1, RawRun: float64(run), AllocProcs: procs, ReqProcs: procs, ReqTime: float64(estimate),
		AvgCPUSec: -1, UsedMemKB: -1, ReqMemKB: -1, Status: 1, User: -1, Group: -1,
		Executable: -1, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1,
	}
}

// sliceSource is a sim.Source over a slice of jobs, in slice order.
type sliceSource struct {
	jobs []workload.Job
	next int
}

// newSource returns a source over jobs, numbering them (Seq) in slice order.
// It keeps jobs without copying them: it sets their Seq in place.
func newSource(jobs []workload.Job) *sliceSource {
	for i := range jobs {
		jobs[i].Seq = int64(i)
	}
	return &sliceSource{jobs: jobs}
}

func (s *sliceSource) Next(j *workload.Job) error {
	if s.next >= len(s.jobs) {
		return io.EOF
	}
	*j = s.jobs[s.next]
	s.next++
	return nil
}

// recorder is an Observer that keeps a copy of every record, in the order
// the engine emitted them.
type recorder struct {
	recs []sim.Record
}

func (r *recorder) JobDone(rec *sim.Record) {
	c := *rec
	j := *rec.Job
	c.Job = &j
	c.Alloc = append([]cluster.Range(nil), rec.Alloc...)
	c.Steps = nil
	for _, g := range rec.Steps {
		g.Alloc = append([]cluster.Range(nil), g.Alloc...)
		c.Steps = append(c.Steps, g)
	}
	r.recs = append(r.recs, c)
}

// byID returns the record of job id; it fails the test if there is not
// exactly one.
func (r *recorder) byID(t testing.TB, id int64) sim.Record {
	t.Helper()
	var out *sim.Record
	for i := range r.recs {
		if r.recs[i].Job.ID == id {
			if out != nil {
				t.Fatalf("job %d recorded twice", id)
			}
			out = &r.recs[i]
		}
	}
	if out == nil {
		t.Fatalf("job %d never recorded", id)
	}
	return *out
}

// discard is an Observer that drops every record.
type discard struct{}

func (discard) JobDone(*sim.Record) {}

// simulate runs jobs (numbered in slice order) on a machine of procs
// processors under pol and returns the records and the run's statistics. The
// records are checked against the schedule invariants first.
func simulate(t testing.TB, procs int, pol policy.Policy, jobs []workload.Job) (*recorder, sim.Stats) {
	t.Helper()
	eng, err := sim.New(sim.Config{Procs: procs, Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	st, err := eng.Run(newSource(jobs), rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkSchedule(procs, jobs, rec.recs); err != nil {
		t.Fatalf("%v\n%s", err, formatRecords(rec.recs))
	}
	return rec, st
}

// checkSchedule checks what must hold of any schedule, whatever the policy:
// every job recorded once; a rejected job is exactly one larger than the
// machine; a job runs its run time cut at its estimate, never before its
// submission, on exactly its processors; no processor is used by two jobs at
// once; records come in order of end time.
func checkSchedule(procs int, jobs []workload.Job, recs []sim.Record) error {
	if len(recs) != len(jobs) {
		return fmt.Errorf("%d records for %d jobs", len(recs), len(jobs))
	}
	seen := make(map[int64]bool)
	for i, r := range recs {
		j := r.Job
		if seen[j.Seq] {
			return fmt.Errorf("job %d (seq %d) recorded twice", j.ID, j.Seq)
		}
		seen[j.Seq] = true
		if i > 0 && r.End < recs[i-1].End {
			return fmt.Errorf("record of job %d (end %d) after one ending at %d", j.ID, r.End, recs[i-1].End)
		}
		if (r.State == sim.Rejected) != (j.Procs > procs) {
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
	// No processor in two jobs at once: sweep the starts and ends.
	type ev struct {
		at    workload.Time
		start bool
		r     *sim.Record
	}
	var evs []ev
	for i := range recs {
		if recs[i].State != sim.Rejected && recs[i].End > recs[i].Start {
			evs = append(evs, ev{recs[i].Start, true, &recs[i]}, ev{recs[i].End, false, &recs[i]})
		}
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].at != evs[b].at {
			return evs[a].at < evs[b].at
		}
		return !evs[a].start && evs[b].start // ends first
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

func formatRecords(recs []sim.Record) string {
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "  job %d seq %d submit %d procs %d run %d est %d: %v start %d end %d alloc %s %s\n",
			r.Job.ID, r.Job.Seq, r.Job.Submit, r.Job.Procs, r.Job.Run, r.Job.Estimate, r.State, r.Start, r.End,
			cluster.FormatRanges(nil, r.Alloc), r.Reason)
	}
	return b.String()
}

// reserveSpy wraps a policy and keeps, for every job it reserved, the
// earliest start it was promised.
type reserveSpy struct {
	policy.Policy
	promised map[int64]workload.Time // job id → earliest reserved start
}

func (s *reserveSpy) Schedule(v policy.View, d policy.Decisions) {
	s.Policy.Schedule(v, reserveLog{d, v, s})
}

type reserveLog struct {
	policy.Decisions
	v policy.View
	s *reserveSpy
}

func (r reserveLog) Reserve(i int, at workload.Time) {
	id := r.v.Job(i).ID
	if old, ok := r.s.promised[id]; !ok || at < old {
		r.s.promised[id] = at
	}
	r.Decisions.Reserve(i, at)
}

// checkPromises checks that every reserved job started by its reservation.
func checkPromises(s *reserveSpy, recs []sim.Record) error {
	for _, r := range recs {
		if at, ok := s.promised[r.Job.ID]; ok && r.Start > at {
			return fmt.Errorf("job %d reserved at %d started at %d: a backfilled job delayed it", r.Job.ID, at, r.Start)
		}
	}
	return nil
}
