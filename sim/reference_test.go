package sim_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// sharedDir is ../shared beside the repository root.
const sharedDir = "../../shared"

func needShared(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(sharedDir, "reference")); err != nil {
		t.Skipf("skipping: %s/reference not found (it sits beside the repository in CI)", sharedDir)
	}
}

// referenceTraces names the inputs of ../shared/reference, smallest run
// first.
var referenceTraces = []string{"hpc2n", "NASA-iPSC-1993-3.1-cln", "log", "lublin_256", "LANL-CM5-1994-4.1-cln"}

// wholeTraces returns the reference traces that the whole-trace tests other
// than TestReferenceStartTimes replay: all of them in full runs
// (simtest.Full: CI), else the three that take about a second each
// (lublin_256's and LANL-CM5's long queues take ten times that).
// TestReferenceStartTimes, the proof of the engine's schedules, always
// replays every trace.
func wholeTraces() []string {
	if simtest.Full() {
		return referenceTraces
	}
	return referenceTraces[:3]
}

// referenceStarts reads a pyss output: job id → start time.
func referenceStarts(t testing.TB, path string) map[int64]int64 {
	t.Helper()
	starts, err := simtest.ReferenceStarts(path)
	if err != nil {
		t.Fatal(err)
	}
	return starts
}

// TestReferenceStartTimes replays every reference input under FCFS, EASY,
// conservative backfilling and reservation depth 1, and compares every
// job's start with pyss's: there must be no mismatch. It always runs in
// full. Each input is read once, for its four policies, which run in
// parallel.
func TestReferenceStartTimes(t *testing.T) {
	needShared(t)
	for _, kind := range []string{"norm", "exact"} {
		for _, tr := range referenceTraces {
			t.Run(kind+"/"+tr, func(t *testing.T) {
				jobs, procs := simtest.ReadTrace(t, filepath.Join(sharedDir, "reference/inputs", kind, tr+".swf.gz"))
				want := map[string]map[int64]int64{}
				for _, pol := range []string{"fcfs", "easy", "cons"} {
					want[pol] = referenceStarts(t, filepath.Join(sharedDir, "reference/outputs", fmt.Sprintf("pyss_%s_%s_%s.swf.gz", kind, tr, pol)))
				}
				// The profile-based reservation-depth policy at depth 1 must
				// give EASY's schedule.
				want["depth1"] = want["easy"]
				for _, pol := range []string{"fcfs", "easy", "cons", "depth1"} {
					t.Run(pol, func(t *testing.T) {
						t.Parallel()
						checkReferenceStarts(t, kind+"/"+tr+"/"+pol, jobs, procs, pol, want[pol])
					})
				}
			})
		}
	}
}

// checkReferenceStarts replays jobs (shared: it does not change them) on
// procs processors under pol and compares every start with want's.
func checkReferenceStarts(t *testing.T, name string, jobs []workload.Job, procs int, pol string, want map[int64]int64) {
	var p policy.Policy = policy.FCFS{}
	switch pol {
	case "easy":
		p = &policy.EASY{Lookahead: policy.LookaheadAll}
	case "cons":
		p = &policy.Conservative{}
	case "depth1":
		p = &policy.Depth{Depth: 1, Lookahead: policy.LookaheadAll}
	}
	eng, err := sim.New(sim.Config{Procs: procs, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	col := &sim.Collector{Outcomes: make([]sim.Outcome, 0, len(jobs))} // no copying as it grows
	if _, err := eng.Run(&simtest.Source{Jobs: jobs}, col); err != nil {
		t.Fatal(err)
	}
	got := make(map[int64]int64, len(col.Outcomes))
	for _, o := range col.Outcomes {
		got[o.Job.ID] = int64(o.Start)
	}
	if vs := sim.Verify(procs, col.Outcomes, verifyOpts(p)); len(vs) > 0 {
		t.Errorf("%d invariant violations, first: %v", len(vs), vs[0])
	}
	mism := 0
	for id, w := range want {
		if g, ok := got[id]; !ok || g != w {
			if mism < 5 {
				t.Errorf("job %d: start %d, reference %d (present %v)", id, g, w, ok)
			}
			mism++
		}
	}
	t.Logf("%s: %d jobs, %d mismatches against pyss", name, len(want), mism)
	if len(got) != len(want) {
		t.Errorf("simulated %d jobs, reference has %d", len(got), len(want))
	}
}
