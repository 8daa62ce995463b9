package report

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// callLog is an observer that writes down every call it gets, deeply.
type callLog struct {
	calls   []string
	panicAt int // panic on this call (1-based); 0 never
}

func (l *callLog) note(s string) {
	l.calls = append(l.calls, s)
	if len(l.calls) == l.panicAt {
		panic("observer broke on " + s)
	}
}

func (l *callLog) JobDone(r *sim.Record) {
	l.note(fmt.Sprintf("job %+v state=%v %d-%d alloc=%v steps=%+v reason=%q note=%q req=%d", *r.Job, r.State, r.Start, r.End, r.Alloc, r.Steps, r.Reason, r.Note, r.Requeues))
}

func (l *callLog) Sample(s *sim.Sample) { l.note(fmt.Sprintf("sample %+v", *s)) }

func (l *callLog) Wants() sim.Wants {
	return sim.Wants{Kinds: sim.RecordKinds | sim.KindsOf(sim.EventSampled)}
}

func (l *callLog) Observe(e *sim.Event) {
	switch e.Kind {
	case sim.EventSampled:
		for i := range e.Samples {
			l.Sample(&e.Samples[i])
		}
	case sim.EventStarted:
		l.note(fmt.Sprintf("start slot=%d procs=%d", e.Slot, e.Procs))
	default:
		l.JobDone(e.Record)
	}
}

// giveRecord hands obs r as the engine does, as its event, if obs wants
// it.
func giveRecord(obs sim.Observer, r *sim.Record) {
	var e sim.Event
	sim.RecordEvent(&e, r)
	if obs.Wants().Kinds.Has(e.Kind) {
		obs.Observe(&e)
	}
}

// giveSample hands obs s as the engine does, if obs wants samples.
func giveSample(obs sim.Observer, s *sim.Sample) {
	if obs.Wants().Kinds.Has(sim.EventSampled) {
		obs.Observe(&sim.Event{Kind: sim.EventSampled, Time: s.Time, Sample: s, Samples: []sim.Sample{*s}})
	}
}

// giveStart hands obs a deferred start, as the engine does.
func giveStart(obs sim.Observer, slot int32, procs int) {
	if obs.Wants().Kinds.Has(sim.EventStarted) {
		obs.Observe(&sim.Event{Kind: sim.EventStarted, Job: &workload.Job{}, Procs: procs, Slot: slot, Deferred: true})
	}
}

// feedAsync gives obs n records and samples that reuse their memory, as the
// engine does.
func feedAsync(obs sim.Observer, n int, mid func(i int)) {
	var job workload.Job
	var rec sim.Record
	var smp sim.Sample
	alloc := make([]cluster.Range, 0, 8)
	for i := range n {
		job = workload.Job{Seq: int64(i), ID: int64(i + 1), Submit: workload.Time(i), Procs: i%5 + 1, Run: 10, User: i % 3}
		alloc = alloc[:0]
		for k := range i % 4 {
			alloc = append(alloc, cluster.Range{Lo: k * 10, Hi: k*10 + i%7})
		}
		rec = sim.Record{Job: &job, State: sim.State(i % 3), Start: workload.Time(i), End: workload.Time(i + 10), Alloc: alloc, Reason: strings.Repeat("r", i%2), Requeues: i % 2}
		if i%97 == 0 {
			rec.Steps = []sim.GrowStep{{At: 1, Procs: 2, Alloc: alloc}, {At: 5, Procs: 4, Alloc: []cluster.Range{{Lo: 1, Hi: 3}}}}
		}
		giveRecord(obs, &rec)
		if i%3 == 0 {
			smp = sim.Sample{Time: workload.Time(i), Busy: i, Running: i % 11, Queued: i % 13}
			giveSample(obs, &smp)
		}
		if i%7 == 0 { // samples in a row, with no record between them
			smp = sim.Sample{Time: workload.Time(i), Busy: i + 1, Running: i % 5}
			giveSample(obs, &smp)
		}
		if mid != nil {
			mid(i)
		}
		// The engine reuses its memory: scribble over it.
		job, rec, smp = workload.Job{ID: -1}, sim.Record{}, sim.Sample{Time: -1}
		for k := range alloc {
			alloc[k] = cluster.Range{Lo: -1, Hi: -1}
		}
	}
}

// TestAsyncSameCalls checks that an observer behind Async sees the calls
// it sees directly, in the same order, for runs shorter and longer than a
// batch, and that Sync lets a caller read the observer mid-run.
func TestAsyncSameCalls(t *testing.T) {
	for _, n := range []int{0, 1, asyncBatch - 1, asyncBatch, 3*asyncBatch*asyncDepth + 7} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			direct := &callLog{}
			feedAsync(direct, n, nil)
			behind := &callLog{}
			a := NewAsync(behind)
			feedAsync(a, n, func(i int) {
				if i%1000 == 999 {
					a.Sync()
					if len(behind.calls) == 0 || behind.calls[len(behind.calls)-1] == "" {
						t.Fatal("nothing seen after Sync")
					}
					if want := direct.upTo(i); len(behind.calls) != want {
						t.Fatalf("after Sync at record %d the observer saw %d calls, want %d", i, len(behind.calls), want)
					}
				}
			})
			a.Close()
			a.Close() // a second Close does nothing
			if !reflect.DeepEqual(behind.calls, direct.calls) {
				for i := range min(len(behind.calls), len(direct.calls)) {
					if behind.calls[i] != direct.calls[i] {
						t.Fatalf("call %d:\n got %s\nwant %s", i, behind.calls[i], direct.calls[i])
					}
				}
				t.Fatalf("%d calls, want %d", len(behind.calls), len(direct.calls))
			}
		})
	}
}

// upTo returns how many calls feed makes up to and including record i.
func (l *callLog) upTo(i int) int { return i + 1 + i/3 + 1 + i/7 + 1 }

// TestAsyncNoSampler checks that samples are dropped for an observer that
// does not take them, and that records still come in order.
func TestAsyncNoSampler(t *testing.T) {
	var got []int64
	a := NewAsync(observerFunc(func(r *sim.Record) { got = append(got, r.Job.ID) }))
	feedAsync(a, 2000, nil)
	a.Close()
	if len(got) != 2000 {
		t.Fatalf("%d records, want 2000", len(got))
	}
	for i, id := range got {
		if id != int64(i+1) {
			t.Fatalf("record %d has job %d", i, id)
		}
	}
}

type observerFunc = sim.RecordFunc

// TestAsyncPanic checks that an observer's panic reaches the caller, from
// Sync or from Close, with the observer's message and stack, and that the
// caller never blocks on a broken observer.
func TestAsyncPanic(t *testing.T) {
	for _, tc := range []struct {
		name  string
		at    int
		sync  bool
		calls int
	}{
		{"close", 5, false, 4000},
		{"sync", 3 * asyncBatch, true, 4000},
		{"late", 5000, false, 4000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &callLog{panicAt: tc.at}
			a := NewAsync(l)
			got := func() (v any) {
				defer func() { v = recover() }()
				feedAsync(a, tc.calls, func(i int) {
					if tc.sync && i%500 == 499 {
						a.Sync()
					}
				})
				a.Close()
				return nil
			}()
			if tc.at > tc.calls*4/3+1 {
				if got != nil {
					t.Fatalf("panic %v without a broken observer", got)
				}
				return
			}
			s, _ := got.(string)
			if !strings.Contains(s, "observer broke on") || !strings.Contains(s, "observer goroutine") {
				t.Fatalf("recovered %v, want the observer's panic", got)
			}
			if len(l.calls) != tc.at {
				t.Fatalf("the observer saw %d calls after breaking on call %d", len(l.calls), tc.at)
			}
			func() {
				defer func() { recover() }()
				a.Close() // does not block
			}()
		})
	}
}

// TestAsyncObservers checks that an Observers behind Async gets every
// record in member order and every sample only at its samplers, as
// Observers does directly.
func TestAsyncObservers(t *testing.T) {
	var direct, behind []string
	mk := func(out *[]string) Observers {
		la, lb := &callLog{}, &callLog{}
		plain := observerFunc(func(r *sim.Record) { *out = append(*out, fmt.Sprint("plain ", r.Job.ID)) })
		tail := observerFunc(func(r *sim.Record) {
			*out = append(*out, la.calls...)
			*out = append(*out, lb.calls...)
			la.calls, lb.calls = la.calls[:0], lb.calls[:0]
		})
		return Observers{la, plain, lb, tail}
	}
	feedAsync(mk(&direct), 3*asyncBatch+5, nil)
	a := NewAsync(mk(&behind))
	feedAsync(a, 3*asyncBatch+5, nil)
	a.Close()
	if !reflect.DeepEqual(direct, behind) {
		t.Fatalf("%d calls behind Async, %d directly, or in another order", len(behind), len(direct))
	}
}

// BenchmarkAsync measures what handing a record and a sample to an
// observer on another goroutine costs the engine's goroutine: the copies
// and the hand-over, with an observer that does nothing.
func BenchmarkAsync(b *testing.B) {
	job := workload.Job{ID: 1, Submit: 10, Procs: 4, Run: 100, Estimate: 200}
	rec := sim.Record{Job: &job, State: sim.Completed, Start: 20, End: 120, Alloc: []cluster.Range{{Lo: 0, Hi: 4}}}
	smp := sim.Sample{Time: 20, Busy: 4, Running: 1}
	b.ReportAllocs()
	a := NewAsync(observerFunc(func(*sim.Record) {}))
	var re, se sim.Event
	for i := range b.N {
		job.ID = int64(i)
		sim.RecordEvent(&re, &rec)
		a.Observe(&re)
		se = sim.Event{Kind: sim.EventSampled, Time: smp.Time, Sample: &smp}
		a.Observe(&se)
	}
	a.Close()
}

// startLog is a callLog that also takes starts.
type startLog struct{ callLog }

func (l *startLog) Wants() sim.Wants {
	w := l.callLog.Wants()
	w.Kinds |= sim.KindsOf(sim.EventStarted)
	return w
}

// TestAsyncStarts checks that starts reach an observer of starts behind
// Async in order with the records: before the records that followed them,
// after those that came before, across batches (runs of starts longer than
// a batch included), and that an observer that does not want them sees
// none.
func TestAsyncStarts(t *testing.T) {
	feed := func(obs sim.Observer) {
		var job workload.Job
		var rec sim.Record
		var smp sim.Sample
		for i := range 5 * asyncBatch {
			job = workload.Job{ID: int64(i + 1), Procs: i%4 + 1}
			rec = sim.Record{Job: &job, State: sim.Completed, Start: workload.Time(i), End: workload.Time(i + 3)}
			switch {
			case i%5 == 0:
				giveRecord(obs, &rec)
				giveStart(obs, int32(i%9), i%4+1)
			case i%5 == 1:
				giveStart(obs, int32(i%9), 2)
				giveStart(obs, int32(i%9+1), 3)
				smp = sim.Sample{Time: workload.Time(i), Busy: i}
				giveSample(obs, &smp)
			case i >= 2*asyncBatch && i < 3*asyncBatch+9:
				giveStart(obs, int32(i), 1) // a run of starts alone, longer than a batch
			default:
				giveRecord(obs, &rec)
			}
		}
	}
	direct := &startLog{}
	feed(direct)
	behind := &startLog{}
	a := NewAsync(behind)
	feed(a)
	a.Close()
	if !reflect.DeepEqual(behind.calls, direct.calls) {
		for i := range min(len(behind.calls), len(direct.calls)) {
			if behind.calls[i] != direct.calls[i] {
				t.Fatalf("call %d:\n got %s\nwant %s", i, behind.calls[i], direct.calls[i])
			}
		}
		t.Fatalf("%d calls, want %d", len(behind.calls), len(direct.calls))
	}
	plain := &callLog{}
	a = NewAsync(plain)
	feed(a)
	a.Close()
	for _, c := range plain.calls {
		if strings.HasPrefix(c, "start") {
			t.Fatalf("an observer that wants no starts saw %q", c)
		}
	}
}

// TestAsyncJobHeads checks that the report's observers behind Async (a
// Placer over Metrics, TimeSeries, JobsCSV, Breakdown and Gantt, as
// `schedsim run` has them), to which Async copies only the head of each
// job (jobHead), give the jobs.csv, summary, series and Gantt they give
// called directly, for jobs
// whose every other field is set: none of them reads another field.
func TestAsyncJobHeads(t *testing.T) {
	const procs = 64
	jobs := syntheticJobs(7, 3000, procs)
	head := map[string]bool{"Seq": true, "ID": true, "Submit": true, "Procs": true, "Run": true, "Estimate": true,
		"User": true, "Group": true, "Queue": true, "Partition": true}
	for i := range jobs {
		v := reflect.ValueOf(&jobs[i]).Elem()
		for f := range v.NumField() {
			if head[v.Type().Field(f).Name] {
				continue
			}
			switch x := v.Field(f); x.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int64:
				x.SetInt(int64(1 + i%3))
			case reflect.Float64:
				x.SetFloat(float64(i) + 0.5)
			case reflect.String:
				x.SetString(fmt.Sprint("x,", i))
			default:
				t.Fatalf("workload.Job.%s: a %v, which the test cannot set", v.Type().Field(f).Name, x.Kind())
			}
		}
	}
	for i := range jobs {
		jobs[i].User, jobs[i].Group, jobs[i].Queue, jobs[i].Partition = i%7, i%5, i%3, i%2
	}
	run := func(async bool) (string, Summary, []Point, []GanttJob) {
		m, ts := NewMetrics(), NewTimeSeries(procs, 64)
		var buf strings.Builder
		c := NewJobsCSV(&buf, "heads")
		bd := NewBreakdown(nil)
		g := NewGantt(len(jobs))
		p := sim.NewPlacer(procs, m, ts, c, bd, g)
		eng, err := sim.New(sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: 10}, DeferPlacement: true})
		if err != nil {
			t.Fatal(err)
		}
		var obs sim.Observer = p
		var a *Async
		if async {
			a = NewAsync(p)
			if !a.heads {
				t.Fatal("Async copies whole jobs for the report's observers")
			}
			obs = a
		}
		st, err := eng.Run(&simtest.Source{Jobs: jobs}, obs)
		if err != nil {
			t.Fatal(err)
		}
		if a != nil {
			a.Close()
		}
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		s := m.Summary("heads", "easy", procs, st, workload.CleanStats{})
		s.Breakdowns = bd.Breakdowns()
		return buf.String(), s, ts.Points(nil), g.Jobs()
	}
	csv, sum, pts, gantt := run(false)
	csvA, sumA, ptsA, ganttA := run(true)
	if csvA != csv {
		t.Error("jobs.csv differs behind Async")
	}
	if !reflect.DeepEqual(sumA, sum) {
		t.Errorf("summary behind Async:\n%+v\nwant\n%+v", sumA, sum)
	}
	if !reflect.DeepEqual(ptsA, pts) {
		t.Error("time series differs behind Async")
	}
	if len(gantt) == 0 || !reflect.DeepEqual(ganttA, gantt) {
		t.Errorf("Gantt of %d jobs behind Async, want the %d jobs of a direct run", len(ganttA), len(gantt))
	}
}

// headObserver is an observer of someone else's that reads only job heads
// and takes samples in batches: Async treats it as it treats the report's.
type headObserver struct {
	ids     []int64
	samples int
}

func (o *headObserver) Wants() sim.Wants {
	return sim.Wants{Kinds: sim.RecordKinds | sim.KindsOf(sim.EventSampled), JobHead: true, SampleBatches: true}
}

func (o *headObserver) Observe(e *sim.Event) {
	if e.Kind == sim.EventSampled {
		o.samples += len(e.Samples)
		return
	}
	o.ids = append(o.ids, e.Record.Job.ID)
}

// wholeObserver reads a field beyond the head and takes samples one at a
// time.
type wholeObserver struct {
	mem     []float64
	samples []workload.Time
}

func (o *wholeObserver) Wants() sim.Wants {
	return sim.Wants{Kinds: sim.RecordKinds | sim.KindsOf(sim.EventSampled)}
}

func (o *wholeObserver) Observe(e *sim.Event) {
	if e.Kind == sim.EventSampled {
		if len(e.Samples) != 1 {
			panic("a batch of samples for an observer that takes them one at a time")
		}
		o.samples = append(o.samples, e.Sample.Time)
		return
	}
	o.mem = append(o.mem, e.Record.Job.ReqMemKB)
}

// TestAsyncOthersObservers checks that Async knows observers only by what
// they want (Wants.JobHead, Wants.SampleBatches): one of someone else's that wants them
// takes the path of the report's own, one that does not sees whole jobs
// and every sample in order, and both see what they would see called
// directly.
func TestAsyncOthersObservers(t *testing.T) {
	const procs = 16
	jobs := syntheticJobs(3, 700, procs)
	for i := range jobs {
		jobs[i].ReqMemKB = float64(i) + 0.25
	}
	run := func(async bool, obs ...sim.Observer) *Async {
		eng, err := sim.New(sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: 10}})
		if err != nil {
			t.Fatal(err)
		}
		var o sim.Observer = Observers(obs)
		var a *Async
		if async {
			a = NewAsync(o)
			o = a
		}
		if _, err := eng.Run(simtest.NewSource(jobs), o); err != nil {
			t.Fatal(err)
		}
		if a != nil {
			a.Close()
		}
		return a
	}
	direct := &headObserver{}
	directWhole := &wholeObserver{}
	run(false, direct, directWhole)

	h := &headObserver{}
	if a := run(true, NewMetrics(), h); !a.heads || len(a.batchers) != 1 || a.inOrder {
		t.Errorf("with an observer of job heads and sample batches: heads %v, %d batchers, in order %v; want true, 1, false", a.heads, len(a.batchers), a.inOrder)
	}
	if !reflect.DeepEqual(h.ids, direct.ids) || h.samples != direct.samples {
		t.Errorf("the head observer saw %d jobs and %d samples, %d and %d called directly", len(h.ids), h.samples, len(direct.ids), direct.samples)
	}
	h2, w := &headObserver{}, &wholeObserver{}
	if a := run(true, h2, w); a.heads || !a.inOrder {
		t.Errorf("with an observer of whole jobs: heads %v, in order %v; want false, true", a.heads, a.inOrder)
	}
	if !reflect.DeepEqual(w.mem, directWhole.mem) || !reflect.DeepEqual(w.samples, directWhole.samples) {
		t.Errorf("the whole-job observer saw other jobs or samples than called directly")
	}
	if !reflect.DeepEqual(h2.ids, direct.ids) || h2.samples != direct.samples {
		t.Errorf("beside it, the head observer saw %d jobs and %d samples, want %d and %d", len(h2.ids), h2.samples, len(direct.ids), direct.samples)
	}
}

// fullLog writes down every field of every record, start and sample it
// is handed, but the job's pointer (its job is written out instead).
type fullLog struct{ calls []string }

func (l *fullLog) Wants() sim.Wants {
	return sim.Wants{Kinds: sim.RecordKinds | sim.KindsOf(sim.EventSampled, sim.EventStarted)}
}

func (l *fullLog) Observe(e *sim.Event) {
	switch e.Kind {
	case sim.EventSampled:
		for _, s := range e.Samples {
			l.calls = append(l.calls, fmt.Sprintf("sample %+v", s))
		}
	case sim.EventStarted:
		l.calls = append(l.calls, fmt.Sprintf("start t=%d job=%+v procs=%d slot=%d deferred=%v", e.Time, *e.Job, e.Procs, e.Slot, e.Deferred))
	default:
		r := *e.Record
		r.Job = nil
		l.calls = append(l.calls, fmt.Sprintf("%v t=%d procs=%d job=%+v record=%+v", e.Kind, e.Time, e.Procs, *e.Record.Job, r))
	}
}

// TestAsyncCopierRecords checks that the events the engine hands Async
// as a few words (fastpath.Copier: plain ends, starts, samples) reach an
// observer behind it, through a Placer, with every field of each record
// as the engine's own Record gives it to the same observer directly:
// killed jobs, pending reasons, limits (Record.Who) and refused jobs
// included.
func TestAsyncCopierRecords(t *testing.T) {
	const procs = 32
	jobs := syntheticJobs(11, 2500, procs)
	for i := range jobs {
		jobs[i].User = i % 4
		if i%13 == 0 {
			jobs[i].Run = jobs[i].Estimate + 5 // killed at its limit
		}
		if i%251 == 0 {
			jobs[i].Procs = procs + 1 // refused
		}
	}
	for _, limits := range []bool{false, true} {
		t.Run(fmt.Sprint("limits=", limits), func(t *testing.T) {
			run := func(async bool) []string {
				l := &fullLog{}
				cfg := sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: 10}, DeferPlacement: true}
				if limits {
					cfg.Constraints = &sim.Constraints{Limits: []sim.Limit{{AllUsers: true, MaxJobsPerUser: 3}}}
				}
				eng, err := sim.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				var obs sim.Observer = sim.NewPlacer(procs, l)
				var a *Async
				if async {
					a = NewAsync(obs)
					obs = a
				}
				if _, err := eng.Run(&simtest.Source{Jobs: jobs}, obs); err != nil {
					t.Fatal(err)
				}
				if a != nil {
					a.Close()
				}
				return l.calls
			}
			direct, behind := run(false), run(true)
			for _, want := range []string{"State:killed", "State:rejected", "Pending:resources", fmt.Sprintf("Who:%v", limits)} {
				if !strings.Contains(strings.Join(direct, "\n"), want) {
					t.Errorf("no record shows %s: the test does not cover it", want)
				}
			}
			for i := range min(len(behind), len(direct)) {
				if behind[i] != direct[i] {
					t.Fatalf("call %d behind Async:\n got %s\nwant %s", i, behind[i], direct[i])
				}
			}
			if len(behind) != len(direct) {
				t.Fatalf("%d calls behind Async, want %d", len(behind), len(direct))
			}
		})
	}
}
