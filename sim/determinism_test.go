package sim_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// syntheticJobs draws a workload from one seed: bursts of submissions at one
// instant, killed jobs, jobs without an estimate and jobs too large for the
// machine, so that every tie-breaking rule is exercised.
func syntheticJobs(seed uint64, n, procs int) []workload.Job {
	r := rand.New(rand.NewPCG(seed, 0xde7))
	jobs := make([]workload.Job, 0, n)
	var t workload.Time
	for i := range n {
		if r.IntN(4) != 0 {
			t += workload.Time(r.ExpFloat64() * 60)
		}
		p := 1 + r.IntN(procs)
		if r.IntN(8) == 0 {
			p = min(1<<r.IntN(7), procs) // powers of two, as in real logs
		}
		if r.IntN(200) == 0 {
			p = procs + 1 + r.IntN(10)
		}
		run := workload.Time(1 + r.IntN(3600))
		est := run + workload.Time(r.IntN(7200))
		switch r.IntN(10) {
		case 0:
			est = max(1, run/2) // killed
		case 1:
			est = none
		}
		jobs = append(jobs, job(int64(i+1), t, p, run, est))
	}
	return jobs
}

// runOnce replays jobs and returns the records, the stats and jobs.csv.
func runOnce(t *testing.T, procs int, pol policy.Policy, jobs []workload.Job) ([]sim.Record, sim.Stats, []byte) {
	t.Helper()
	eng, err := sim.New(sim.Config{Procs: procs, Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	var csv bytes.Buffer
	w := report.NewJobsCSV(&csv, "determinism")
	st, err := eng.Run(&simtest.Source{Jobs: jobs}, simtest.Tee{rec, w})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return rec.Records, st, csv.Bytes()
}

// TestDeterminism runs the same workload three times under each policy,
// each time in a fresh engine with a fresh policy value, and requires the
// same records in the same order, the same statistics and byte-identical
// jobs.csv.
func TestDeterminism(t *testing.T) {
	type workloadCase struct {
		name  string
		procs int
		jobs  []workload.Job
	}
	cases := []workloadCase{{"synthetic", 64, syntheticJobs(42, 3000, 64)}}
	simtest.NewSource(cases[0].jobs) // number them
	if in := filepath.Join(sharedDir, "reference/inputs/norm/hpc2n.swf.gz"); fileExists(in) {
		jobs, procs := simtest.ReadTrace(t, in)
		cases = append(cases, workloadCase{"hpc2n", procs, jobs})
	}
	pols := []func() policy.Policy{
		func() policy.Policy { return policy.FCFS{} },
		func() policy.Policy { return &policy.EASY{Lookahead: 10} },
		func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} },
	}
	for _, c := range cases {
		for _, newPol := range pols {
			t.Run(c.name+"/"+newPol().Name(), func(t *testing.T) {
				recs0, st0, csv0 := runOnce(t, c.procs, newPol(), c.jobs)
				if err := simtest.CheckSchedule(c.procs, c.jobs, recs0); err != nil {
					t.Fatal(err)
				}
				if len(csv0) == 0 || bytes.Count(csv0, []byte("\n")) != len(c.jobs)+1 {
					t.Fatalf("jobs.csv has %d lines for %d jobs", bytes.Count(csv0, []byte("\n")), len(c.jobs))
				}
				for run := 1; run < 3; run++ {
					recs, st, csv := runOnce(t, c.procs, newPol(), c.jobs)
					if !bytes.Equal(csv, csv0) {
						t.Errorf("run %d: jobs.csv differs from run 0 (%d vs %d bytes)", run, len(csv), len(csv0))
					}
					if st != st0 {
						t.Errorf("run %d: stats %+v, run 0 %+v", run, st, st0)
					}
					if len(recs) != len(recs0) {
						t.Fatalf("run %d: %d records, run 0 %d", run, len(recs), len(recs0))
					}
					for i := range recs {
						if !reflect.DeepEqual(recs[i], recs0[i]) {
							t.Fatalf("run %d: record %d is\n%s  run 0 has\n%s", run, i,
								simtest.Format(recs[i:i+1]), simtest.Format(recs0[i:i+1]))
						}
					}
				}
			})
		}
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
