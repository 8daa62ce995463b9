package simtest_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

func TestCases(t *testing.T) {
	for _, c := range []struct {
		name, ci string
		want     int
	}{
		{"CI=true runs the full count", "true", 1000},
		{"CI=1 runs the full count", "1", 1000},
		{"no CI runs the quick count", "", 10},
		{"CI=false runs the quick count", "false", 10},
		{"CI=yes is no boolean: quick", "yes", 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("CI", c.ci)
			want := c.want
			if testing.Short() {
				want = 10 // -short always runs the quick count
			}
			if got := simtest.Cases(1000, 10); got != want {
				t.Errorf("Cases(1000, 10) = %d with CI=%q, want %d", got, c.ci, want)
			}
			if simtest.Full() != (want == 1000) {
				t.Errorf("Full() = %v with CI=%q", simtest.Full(), c.ci)
			}
		})
	}
}

// TestSimulate runs a hand-worked EASY case through the harness: the
// records, their copies and ByID.
func TestSimulate(t *testing.T) {
	// 1 runs 0–10 on 2 of 4; head 2 needs 4 (reserved at 10); 3 ends by
	// 10 and backfills at 0 on the other 2.
	jobs := []workload.Job{simtest.Job(1, 0, 2, 10, 10), simtest.Job(2, 0, 4, 10, 10), simtest.Job(3, 0, 2, 10, 10)}
	spy := &simtest.Spy{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}}
	rec, st := simtest.Simulate(t, 4, spy, jobs)
	if st.Jobs != 3 || st.Started != 3 {
		t.Errorf("stats %+v: want 3 jobs, 3 started", st)
	}
	for _, w := range []struct {
		id         int64
		start, end workload.Time
		alloc      string
	}{{1, 0, 10, "0-1"}, {2, 10, 20, "0-3"}, {3, 0, 10, "2-3"}} {
		r := rec.ByID(t, w.id)
		if r.Start != w.start || r.End != w.end || string(cluster.FormatRanges(nil, r.Alloc)) != w.alloc {
			t.Errorf("job %d: %d–%d on %s, want %d–%d on %s", w.id, r.Start, r.End, cluster.FormatRanges(nil, r.Alloc), w.start, w.end, w.alloc)
		}
	}
	for i, r := range rec.Records {
		if r.Job.Seq != r.Job.ID-1 {
			t.Errorf("record %d: job %d numbered %d, want %d", i, r.Job.ID, r.Job.Seq, r.Job.ID-1)
		}
	}
	var log []string
	for _, d := range spy.Log {
		log = append(log, d.String())
	}
	want := []string{"0: start job 1", "0: reserve job 2 at 10", "0: start job 3", "10: start job 2"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("decisions %q, want %q", log, want)
	}
	if err := spy.CheckPromises(rec.Records); err != nil {
		t.Error(err)
	}
	late := slicesClone(rec.Records)
	for i := range late {
		if late[i].Job.ID == 2 {
			late[i].Start = 11
		}
	}
	if err := spy.CheckPromises(late); err == nil {
		t.Error("CheckPromises passes job 2 started at 11 though it was promised 10")
	}
}

func slicesClone(recs []sim.Record) []sim.Record { return append([]sim.Record(nil), recs...) }

// TestCheckSchedule breaks a valid schedule in each way CheckSchedule
// knows: each must be caught.
func TestCheckSchedule(t *testing.T) {
	jobs := []workload.Job{simtest.Job(1, 0, 2, 10, 10), simtest.Job(2, 0, 4, 10, 10), simtest.Job(3, 0, 2, 10, 10), simtest.Job(4, 5, 9, 1, 1), simtest.Job(5, 6, 1, 50, 5)}
	rec, _ := simtest.Simulate(t, 4, &policy.EASY{Lookahead: policy.LookaheadAll}, jobs)
	if err := simtest.CheckSchedule(4, jobs, rec.Records); err != nil {
		t.Fatalf("valid schedule: %v", err)
	}
	idx := func(recs []sim.Record, id int64) int {
		for i := range recs {
			if recs[i].Job.ID == id {
				return i
			}
		}
		t.Fatalf("no record of job %d", id)
		return -1
	}
	for _, c := range []struct {
		name  string
		spoil func(recs []sim.Record) []sim.Record
		want  string
	}{
		{"a record missing", func(r []sim.Record) []sim.Record { return r[1:] }, "4 records for 5 jobs"},
		{"a job recorded twice", func(r []sim.Record) []sim.Record { r[1] = r[0]; return r }, "recorded twice"},
		{"a start before the submission", func(r []sim.Record) []sim.Record {
			i := idx(r, 3)
			r[i].Job.Submit = r[i].Start + 1
			return r
		}, "before its submission"},
		{"an end not start + run", func(r []sim.Record) []sim.Record { r[idx(r, 1)].End = 9; return r }, "want 10"},
		{"a killed job recorded completed", func(r []sim.Record) []sim.Record { r[idx(r, 5)].State = sim.Completed; return r }, "killed"},
		{"too few processors", func(r []sim.Record) []sim.Record {
			r[idx(r, 1)].Alloc = []cluster.Range{{Lo: 0, Hi: 1}}
			return r
		}, "allocated"},
		{"a processor beyond the machine", func(r []sim.Record) []sim.Record {
			r[idx(r, 1)].Alloc = []cluster.Range{{Lo: 3, Hi: 5}}
			return r
		}, "bad range"},
		{"one processor in two jobs", func(r []sim.Record) []sim.Record {
			r[idx(r, 3)].Alloc = []cluster.Range{{Lo: 1, Hi: 3}}
			return r
		}, "while job"},
		{"an oversized job not rejected", func(r []sim.Record) []sim.Record { r[idx(r, 4)].State = sim.Completed; return r }, "state completed"},
		{"records out of end order", func(r []sim.Record) []sim.Record {
			r[0], r[len(r)-1] = r[len(r)-1], r[0]
			return r
		}, "after one ending"},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs := make([]sim.Record, len(rec.Records))
			for i := range rec.Records {
				recs[i] = simtest.CopyRecord(&rec.Records[i])
			}
			err := simtest.CheckSchedule(4, jobs, c.spoil(recs))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

const easyScenario = `# EASY: job 3 ends by the head's reservation and backfills.
procs 4
policy backfill=easy lookahead=all   # every queued job is examined

#    id  submit  procs  run  estimate
job  1   0       2      10   10
job  2   0       4      10   10
job  3   0       2      10   10
job  4   1       9      1    -
`

func TestParseScenario(t *testing.T) {
	s, err := simtest.ParseScenario("easy.txt", []byte(easyScenario))
	if err != nil {
		t.Fatal(err)
	}
	if s.Procs != 4 || s.Policy != (policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.LookaheadAll, Depth: 1}) || s.HasSchedule {
		t.Errorf("parsed procs %d, policy %+v, has schedule %v", s.Procs, s.Policy, s.HasSchedule)
	}
	if len(s.Jobs) != 4 || s.Jobs[3] != withSeq(simtest.Job(4, 1, 9, 1, workload.Unknown), 3) {
		t.Errorf("jobs %+v", s.Jobs)
	}
	got := s.Run(t)
	want := `# job  start  end  state      processors
1      0      10   completed  0-1
2      10     20   completed  0-3
3      0      10   completed  2-3
4      1      1    rejected   -  needs 9 processors, machine has 4
`
	if got != want {
		t.Errorf("schedule:\n%s\nwant:\n%s", got, want)
	}
	// The file with its schedule reads back the same, schedule included.
	file := s.WithSchedule(got)
	again, err := simtest.ParseScenario("easy.txt", file)
	if err != nil {
		t.Fatal(err)
	}
	if !again.HasSchedule || again.Want != got || !reflect.DeepEqual(again.Jobs, s.Jobs) || again.Procs != s.Procs || again.Policy != s.Policy {
		t.Errorf("read back:\n%s\nas %+v", file, again)
	}
	if !strings.HasPrefix(string(file), easyScenario) {
		t.Errorf("WithSchedule changed the scenario:\n%s", file)
	}
	// Rewriting a schedule keeps one marker.
	if twice := again.WithSchedule("x\n"); strings.Count(string(twice), simtest.ScheduleMarker) != 1 || !strings.HasSuffix(string(twice), "--\nx\n") {
		t.Errorf("rewritten:\n%s", twice)
	}
}

func withSeq(j workload.Job, seq int64) workload.Job { j.Seq = seq; return j }

func TestParseScenarioSettings(t *testing.T) {
	for _, c := range []struct {
		name, line string
		want       policy.Config
		est        string
	}{
		{"defaults are schedsim run's", "policy", policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.DefaultLookahead, Depth: 1}, ""},
		{"no policy line: the same", "", policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.DefaultLookahead, Depth: 1}, ""},
		{"fcfs", "policy backfill=off", policy.Config{Backfill: policy.BackfillOff, Lookahead: policy.DefaultLookahead, Depth: 1}, ""},
		{"depth", "policy reservation-depth=3 lookahead=5", policy.Config{Backfill: policy.BackfillEASY, Lookahead: 5, Depth: 3}, ""},
		{"conservative as depth all", "policy reservation-depth=all", policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.DefaultLookahead, Depth: policy.DepthAll}, ""},
		{"order, sjbf, estimates", "policy order=sjf sjbf estimates=factor:0.5", policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.DefaultLookahead, Depth: 1, Order: "sjf", SJBF: true}, "factor:0.5"},
		{"sjbf=false", "policy sjbf=false", policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.DefaultLookahead, Depth: 1}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := simtest.ParseScenario("p.txt", []byte("procs 2\n"+c.line+"\njob 1 0 1 1 1\n"))
			if err != nil {
				t.Fatal(err)
			}
			if s.Policy != c.want || s.Estimates != c.est {
				t.Errorf("policy %+v estimates %q, want %+v %q", s.Policy, s.Estimates, c.want, c.est)
			}
		})
	}
}

func TestParseScenarioErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		line       int64
		field      string
		want       string
	}{
		{"no procs", "job 1 0 1 1 1\n", 0, "procs", "no procs line"},
		{"procs twice", "procs 2\nprocs 3\n", 2, "procs", "second procs"},
		{"procs not a number", "procs x\n", 1, "procs", `"x"`},
		{"procs zero", "procs 0\n", 1, "procs", "from 1"},
		{"procs too large", "procs 99999999999\n", 1, "procs", "from 1 to 65536"},
		{"procs without value", "procs\n", 1, "procs", "want procs N"},
		{"unknown statement", "procs 2\nmachine 4\n", 2, "", `unknown statement "machine"`},
		{"policy twice", "procs 2\npolicy\npolicy\n", 3, "policy", "line 2"},
		{"unknown setting", "procs 2\npolicy speed=2\n", 2, "policy", `unknown setting "speed"`},
		{"setting without value", "procs 2\npolicy lookahead\n", 2, "policy", "NAME=VALUE"},
		{"bad lookahead", "procs 2\npolicy lookahead=-1\n", 2, "policy", "lookahead"},
		{"depth 0", "procs 2\npolicy reservation-depth=0\n", 2, "policy", "reservation-depth"},
		{"bad sjbf", "procs 2\npolicy sjbf=maybe\n", 2, "policy", "sjbf"},
		{"bad estimates", "procs 2\npolicy estimates=guess\n", 2, "policy", "guess"},
		{"bad backfill, found at the end", "procs 2\npolicy backfill=sometimes\njob 1 0 1 1 1\n", 2, "policy", "sometimes"},
		{"conservative with an order", "procs 2\npolicy backfill=conservative order=sjf\n", 2, "policy", "order"},
		{"job with too few values", "procs 2\njob 1 0 1 1\n", 2, "job", "got 4 values"},
		{"job id not a number", "procs 2\njob a 0 1 1 1\n", 2, "id", `"a"`},
		{"job id negative", "procs 2\njob -1 0 1 1 1\n", 2, "id", "negative"},
		{"job submit negative", "procs 2\njob 1 -5 1 1 1\n", 2, "submit", "-5"},
		{"job procs 0", "procs 2\njob 1 0 0 1 1\n", 2, "procs", "want 1 to"},
		{"job run 0", "procs 2\njob 1 0 1 0 1\n", 2, "run", "want 1 to"},
		{"job run huge", "procs 2\njob 1 0 1 9999999999999 1\n", 2, "run", "seconds"},
		{"job estimate fraction", "procs 2\njob 1 0 1 1 1.5\n", 2, "estimate", `"1.5"`},
		{"duplicate id", "procs 2\njob 1 0 1 1 1\n\njob 1 0 1 1 1\n", 4, "id", "line 2"},
		{"out of order", "procs 2\njob 1 5 1 1 1\njob 2 4 1 1 1\n", 3, "submit", "submission order"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := simtest.ParseScenario("bad.txt", []byte(c.text))
			var pe *workload.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want a *workload.ParseError", err, err)
			}
			if pe.Path != "bad.txt" || pe.Line != c.line || pe.Column != c.field || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q (line %d, field %q), want line %d, field %q, containing %q", err, pe.Line, pe.Column, c.line, c.field, c.want)
			}
		})
	}
}

// FuzzParseScenario: whatever the text, ParseScenario returns a scenario
// or a *workload.ParseError, never panics; a scenario it returns reads
// back the same from WithSchedule's text.
func FuzzParseScenario(f *testing.F) {
	f.Add([]byte(easyScenario))
	f.Add([]byte("procs 4\npolicy backfill=conservative\njob 1 0 4 10 -\n-- schedule --\n# job start\n1 0\n"))
	f.Add([]byte("procs 1\npolicy reservation-depth=all lookahead=3 sjbf=true estimates=predict:double order=fcfs\n"))
	f.Add([]byte("procs 2\r\njob 1 0 1 1 1 # comment\r\n-- schedule"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := simtest.ParseScenario("f.txt", b)
		if err != nil {
			var pe *workload.ParseError
			if !errors.As(err, &pe) || pe.Path != "f.txt" {
				t.Fatalf("error %v (%T), want a *workload.ParseError naming the file", err, err)
			}
			return
		}
		again, err := simtest.ParseScenario("f.txt", s.WithSchedule(s.Want))
		if err != nil {
			t.Fatalf("WithSchedule's text does not read back: %v", err)
		}
		if again.Procs != s.Procs || again.Policy != s.Policy || again.Estimates != s.Estimates || !reflect.DeepEqual(again.Jobs, s.Jobs) || again.Want != s.Want {
			t.Fatalf("read back %+v, want %+v", again, s)
		}
	})
}

// picky starts, in queue order, every job that fits but job 2, which it
// fails, and asks for a pass 5 s later while any job waits.
type picky struct{}

func (picky) Name() string { return "picky" }

func (picky) Schedule(v policy.View, d policy.Decisions) {
	waiting := false
	for i := range v.Len() {
		switch j := v.Job(i); {
		case j.ID == 2:
			d.(policy.Failer).Fail(i, "two is right out")
		case j.Procs <= v.Free():
			d.Start(i)
		default:
			waiting = true
		}
	}
	if waiting {
		d.WakeAt(v.Now() + 5)
	}
}

// TestSpyLogsEveryKind: the Spy logs wake-ups and failures as well as
// starts, and hands each on (the failed job is recorded failed).
func TestSpyLogsEveryKind(t *testing.T) {
	jobs := []workload.Job{simtest.Job(1, 0, 1, 10, 10), simtest.Job(2, 0, 1, 10, 10), simtest.Job(3, 0, 2, 10, 10)}
	spy := &simtest.Spy{Policy: picky{}}
	rec, _ := simtest.Run(t, sim.Config{Procs: 2, Policy: spy}, simtest.NewSource(jobs).Jobs)
	var log []string
	for _, d := range spy.Log {
		log = append(log, d.String())
	}
	want := []string{"0: start job 1", "0: fail job 2: two is right out", "0: wake at 5", "5: wake at 10", "10: start job 3"}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("decisions %q, want %q", log, want)
	}
	if r := rec.ByID(t, 2); r.State != sim.Failed || !strings.Contains(r.Reason, "two is right out") {
		t.Errorf("job 2: %v %q, want failed with the policy's reason", r.State, r.Reason)
	}
	if r := rec.ByID(t, 3); r.Start != 10 {
		t.Errorf("job 3 starts at %d, want 10", r.Start)
	}
}

func TestParseJobs(t *testing.T) {
	jobs := simtest.Jobs(t, `
		# id  submit  procs  run  estimate
		job 7  0  2  10  20   # the first
		job 3  5  1  4   -
	`)
	want := []workload.Job{withSeq(simtest.Job(7, 0, 2, 10, 20), 0), withSeq(simtest.Job(3, 5, 1, 4, workload.Unknown), 1)}
	if !reflect.DeepEqual(jobs, want) {
		t.Errorf("jobs %+v, want %+v", jobs, want)
	}
	for _, c := range []struct {
		name, text string
		line       int64
		field      string
	}{
		{"a scenario statement", "job 1 0 1 1 1\nprocs 4\n", 2, ""},
		{"a schedule marker is no job", "job 1 0 1 1 1\n-- schedule --\n", 2, ""},
		{"a bad field", "job 1 0 x 1 1\n", 1, "procs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := simtest.ParseJobs("j.txt", []byte(c.text))
			var pe *workload.ParseError
			if !errors.As(err, &pe) || pe.Line != c.line || pe.Column != c.field || pe.Path != "j.txt" {
				t.Errorf("error %v, want a *workload.ParseError at j.txt line %d, field %q", err, c.line, c.field)
			}
		})
	}
}

// FuzzParseJobs: whatever the text, ParseJobs returns jobs or a
// *workload.ParseError, never panics; the jobs it returns are numbered in
// order, in submission order, with distinct ids.
func FuzzParseJobs(f *testing.F) {
	f.Add([]byte("job 1 0 2 10 10\njob 2 0 4 10 -\n"))
	f.Add([]byte("# nothing\n\n"))
	f.Add([]byte("job 1 5 1 1 1\njob 2 4 1 1 1\n"))
	f.Add([]byte("job 9223372036854775807 1000000000000 65536 1 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		jobs, err := simtest.ParseJobs("f.txt", b)
		if err != nil {
			var pe *workload.ParseError
			if !errors.As(err, &pe) || pe.Path != "f.txt" || pe.Line < 1 {
				t.Fatalf("error %v (%T), want a *workload.ParseError naming the file and line", err, err)
			}
			return
		}
		ids := map[int64]bool{}
		for i, j := range jobs {
			if j.Seq != int64(i) || ids[j.ID] || (i > 0 && j.Submit < jobs[i-1].Submit) {
				t.Fatalf("job %d of %d: %+v", i, len(jobs), j)
			}
			ids[j.ID] = true
		}
	})
}
