package sim_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// formatJob is one job of TestFormatsSameSchedule, as each form writes it.
type formatJob struct {
	id        int64
	submit    int64 // whole seconds from the first submission
	frac      bool  // SWF and Batsim write submit and run with a quarter second more
	wait      int64 // the recorded wait (SWF field 3, sacct Start − Submit)
	run       int64
	procs     int
	limit     int64 // requested time; 0 for none
	cancelled bool  // cancelled before it started: no run
	hetSplit  int   // > 0: a heterogeneous job, its first component this many processors
	arrayTask int   // > 0: an array task, JobID 900_arrayTask
	user      int
}

// formatJobs draws a workload on 64 processors: a queue that builds up,
// jobs with and without requested times, some killed at their limit, ties
// in submit time, fractional times, and in the sacct form steps, array
// tasks and heterogeneous jobs.
func formatJobs() []formatJob {
	rng := rand.New(rand.NewPCG(23, 1))
	var jobs []formatJob
	submit := int64(0)
	for i := range 400 {
		if rng.IntN(4) > 0 {
			submit += int64(rng.IntN(240))
		}
		j := formatJob{id: int64(1000 + i), submit: submit, run: 1 + int64(rng.IntN(3000)), procs: 1 + rng.IntN(64), user: 1 + rng.IntN(9)}
		j.frac = rng.IntN(5) == 0
		j.wait = int64(rng.IntN(5000))
		switch rng.IntN(8) {
		case 0: // no requested time
		case 1: // killed at its limit
			j.limit = max(1, j.run-int64(rng.IntN(600)))
		default:
			j.limit = j.run + int64(rng.IntN(7200))
		}
		switch {
		case rng.IntN(40) == 0:
			j.cancelled = true
		case rng.IntN(25) == 0 && j.procs > 1:
			j.hetSplit = 1 + rng.IntN(j.procs-1)
		case rng.IntN(10) == 0:
			j.arrayTask = i
		}
		jobs = append(jobs, j)
	}
	// A fraction only where no other job is submitted in the same second:
	// Batsim's jobs are replayed in the order of their exact submit times,
	// SWF's in file order.
	for i := range jobs {
		if (i > 0 && jobs[i-1].submit == jobs[i].submit) || (i+1 < len(jobs) && jobs[i+1].submit == jobs[i].submit) {
			jobs[i].frac = false
		}
	}
	return jobs
}

// quarter returns v seconds as the SWF and Batsim forms write it: with a
// quarter second more for fractional jobs, which rounding takes off.
func (j *formatJob) quarter(v int64) string {
	if j.frac {
		return fmt.Sprintf("%d.25", v)
	}
	return fmt.Sprint(v)
}

// swfForm writes the jobs as SWF.
func swfForm(jobs []formatJob) string {
	var b strings.Builder
	b.WriteString("; Version: 2.2\n; MaxProcs: 64\n")
	for _, j := range jobs {
		run, status := j.quarter(j.run), 1
		if j.cancelled {
			run, status = "-1", 5
		}
		limit := "-1"
		if j.limit > 0 {
			limit = fmt.Sprint(j.limit)
		}
		fmt.Fprintf(&b, "%d %s %d %s %d -1 -1 %d %s -1 %d %d -1 -1 -1 -1 -1 -1\n",
			j.id, j.quarter(j.submit), j.wait, run, j.procs, j.procs, limit, status, j.user)
	}
	return b.String()
}

// sacctForm writes the jobs as "sacct --allusers --parsable2" prints them
// (its manual's formats: times YYYY-MM-DDTHH:MM:SS, durations
// [DD-[HH:]]MM:SS), each job followed by its batch and extern steps.
func sacctForm(jobs []formatJob) string {
	origin := time.Date(2024, 3, 1, 8, 0, 0, 0, time.UTC)
	at := func(s int64) string { return origin.Add(time.Duration(s) * time.Second).Format("2006-01-02T15:04:05") }
	dur := func(s int64) string {
		if s >= 86400 {
			return fmt.Sprintf("%d-%02d:%02d:%02d", s/86400, s%86400/3600, s%3600/60, s%60)
		}
		return fmt.Sprintf("%02d:%02d:%02d", s/3600, s%3600/60, s%60)
	}
	var b strings.Builder
	b.WriteString("JobID|JobIDRaw|User|UID|Partition|Submit|Eligible|Start|End|Elapsed|Timelimit|State|ExitCode|NCPUS|ReqCPUS|NNodes|ReqMem|ReqTRES\n")
	line := func(id, raw string, uid int, submit, start, end, elapsed, limit, state, exit string, cpus int) {
		fmt.Fprintf(&b, "%s|%s|u%d|%d|batch|%s|%s|%s|%s|%s|%s|%s|%s|%d|%d|1|1000Mc|billing=%d,cpu=%d,mem=%dM,node=1\n",
			id, raw, uid, uid, submit, submit, start, end, elapsed, limit, state, exit, cpus, cpus, cpus, cpus, 1000*cpus)
	}
	for _, j := range jobs {
		limit := "UNLIMITED"
		if j.limit > 0 {
			limit = dur(j.limit)
		}
		start, end, state, exit := at(j.submit+j.wait), at(j.submit+j.wait+j.run), "COMPLETED", "0:0"
		if j.limit > 0 && j.run > j.limit {
			state = "TIMEOUT"
		}
		elapsed := dur(j.run)
		if j.cancelled {
			start, end, state, elapsed = "None", at(j.submit+60), "CANCELLED by 0", "00:00:00"
		}
		id := fmt.Sprint(j.id)
		switch {
		case j.arrayTask > 0:
			id = fmt.Sprintf("900_%d", j.arrayTask)
		case j.hetSplit > 0:
			// Two components; the second's raw number is the next one (no
			// job of the workload has it).
			line(id+"+0", id, j.user, at(j.submit), start, end, elapsed, limit, state, exit, j.hetSplit)
			line(id+"+0.batch", id+".batch", j.user, at(j.submit), start, end, elapsed, "", state, exit, j.hetSplit)
			line(id+"+1", fmt.Sprint(j.id+100000), j.user, at(j.submit), start, end, elapsed, limit, state, exit, j.procs-j.hetSplit)
			continue
		}
		raw := fmt.Sprint(j.id)
		line(id, raw, j.user, at(j.submit), start, end, elapsed, limit, state, exit, j.procs)
		if !j.cancelled {
			line(id+".batch", raw+".batch", j.user, at(j.submit+j.wait), start, end, elapsed, "", state, exit, j.procs)
			line(id+".extern", raw+".extern", j.user, at(j.submit+j.wait), start, end, elapsed, "", "COMPLETED", "0:0", j.procs)
		}
	}
	return b.String()
}

// batsimForm writes the jobs as a Batsim workload (Batsim's documented
// shape: jobs with id, subtime, res, profile and walltime; delay
// profiles), the latest submitted first: Batsim's jobs need no order (the
// jobs submitted at the same time keep theirs, which decides between
// them). A job cancelled before it started has no place in it.
func batsimForm(jobs []formatJob) string {
	var b strings.Builder
	b.WriteString("{\n  \"nb_res\": 64,\n  \"jobs\": [\n")
	var order []formatJob
	for end := len(jobs); end > 0; {
		start := end - 1
		for start > 0 && jobs[start-1].submit == jobs[end-1].submit {
			start--
		}
		order = append(order, jobs[start:end]...)
		end = start
	}
	var profiles []string
	first := true
	for _, j := range order {
		if j.cancelled {
			continue
		}
		if !first {
			b.WriteString(",\n")
		}
		first = false
		wall := ""
		if j.limit > 0 {
			wall = fmt.Sprintf(", \"walltime\": %d", j.limit)
		}
		fmt.Fprintf(&b, "    {\"id\": \"%d\", \"subtime\": %s, \"res\": %d, \"profile\": \"p%d\"%s}", j.id, j.quarter(j.submit), j.procs, j.id, wall)
		profiles = append(profiles, fmt.Sprintf("    \"p%d\": {\"type\": \"delay\", \"delay\": %s}", j.id, j.quarter(j.run)))
	}
	b.WriteString("\n  ],\n  \"profiles\": {\n")
	b.WriteString(strings.Join(profiles, ",\n"))
	b.WriteString("\n  }\n}\n")
	return b.String()
}

// TestFormatsSameSchedule checks that the same jobs as SWF, as Slurm
// accounting output and as a Batsim workload give the same schedule, job
// by job, under FCFS, EASY and conservative backfilling.
func TestFormatsSameSchedule(t *testing.T) {
	jobs := formatJobs()
	forms := []struct{ name, text string }{
		{"trace.swf", swfForm(jobs)},
		{"trace.sacct", sacctForm(jobs)},
		{"trace.json", batsimForm(jobs)},
	}
	type outcome struct {
		start, end workload.Time
		procs      int
		state      sim.State
	}
	for _, pol := range []string{"fcfs", "easy", "cons"} {
		t.Run(pol, func(t *testing.T) {
			var want map[int64]outcome
			var wantKept int64
			for _, f := range forms {
				var p policy.Policy = policy.FCFS{}
				switch pol {
				case "easy":
					p = &policy.EASY{Lookahead: policy.LookaheadAll}
				case "cons":
					p = &policy.Conservative{}
				}
				rd, err := workload.NewReader(strings.NewReader(f.text), f.name, workload.Rules{})
				if err != nil {
					t.Fatal(err)
				}
				eng, err := sim.New(sim.Config{Procs: 64, Policy: p})
				if err != nil {
					t.Fatal(err)
				}
				col := &sim.Collector{}
				if _, err := eng.Run(rd, col); err != nil {
					t.Fatalf("%s: %v", f.name, err)
				}
				rd.Close()
				if vs := sim.Verify(64, col.Outcomes, verifyOpts(p)); len(vs) > 0 {
					t.Errorf("%s: %d invariant violations, first: %v", f.name, len(vs), vs[0])
				}
				got := map[int64]outcome{}
				for _, o := range col.Outcomes {
					got[o.Job.ID] = outcome{o.Start, o.End, o.Job.Procs, o.State}
				}
				if want == nil {
					want, wantKept = got, rd.Stats().Kept
					if len(want) < 350 {
						t.Fatalf("%s: only %d jobs ran", f.name, len(want))
					}
					continue
				}
				if k := rd.Stats().Kept; k != wantKept {
					t.Errorf("%s: %d jobs kept, SWF %d", f.name, k, wantKept)
				}
				mism := 0
				for id, w := range want {
					if g, ok := got[id]; !ok || g != w {
						if mism < 5 {
							t.Errorf("%s: job %d: %+v (present %v), SWF form %+v", f.name, id, g, ok, w)
						}
						mism++
					}
				}
				if len(got) != len(want) || mism > 0 {
					t.Errorf("%s: %d jobs, %d differ from the SWF form's %d", f.name, len(got), mism, len(want))
				}
			}
		})
	}
}
