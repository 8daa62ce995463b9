//go:build unix

package sim_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// program writes an executable shell script into dir and returns its path.
func program(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// jobIDOf is shell that sets $id to the job's Id from the job file $1.
const jobIDOf = `id=$(sed -n 's/.*<Job [^>]* Id="\([0-9]*\)".*/\1/p' "$1" | head -n 1)` + "\n"

// TestFilterProgramsRevertAlways (item 5): when a chain stops, every filter
// program that already answered is called again to undo, by default, as
// HPC Pack calls every filter that ran. Program "one" lets one job through
// (it keeps the holder's Id in a file) and lets it go on a revert; program
// "no" refuses job 1. Machine of 4; jobs 1 and 2 (1 proc, 10 s) at 0.
//
//   - activation chain [one, no]: job 1 passes "one" (it holds it), "no"
//     answers 2: "one" is reverted and lets job 1 go, job 1 keeps 1
//     processor. Job 2 passes both and runs 0–10. Job 1 is asked again at
//     60: "one" is held by job 2 (programs hear of no job end) and answers
//     2; nothing else can happen: job 1 is reported never started at 60.
//     Without the revert, "one" would hold job 1 and refuse job 2: both
//     would wait to the end.
//   - submission chain [one, no]: job 1 passes "one", "no" fails it (3):
//     "one" is reverted, job 1 fails at 0, job 2 passes both and runs 0–10.
//     Without the revert job 2 would fail at "one".
func TestFilterProgramsRevertAlways(t *testing.T) {
	for _, kind := range []string{"activation", "submission"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			holder := filepath.Join(dir, "holder")
			one := program(t, dir, "one", jobIDOf+`h=$(cat `+holder+` 2>/dev/null)
if [ "$SCHEDSIM_FILTER_REVERT" = 1 ]; then
	[ "$h" = "$id" ] && rm -f `+holder+`
	exit 0
fi
if [ -z "$h" ] || [ "$h" = "$id" ]; then echo "$id" > `+holder+`; exit 0; fi
exit 2`)
			no := program(t, dir, "no", jobIDOf+`[ "$SCHEDSIM_FILTER_REVERT" = 1 ] && exit 0
[ "$id" = 1 ] && exit `+map[string]string{"activation": "2", "submission": "3"}[kind]+`
exit 0`)
			xOne := &hpcpack.ExecFilter{FilterName: "one", Program: one}
			xNo := &hpcpack.ExecFilter{FilterName: "no", Program: no}
			defer xOne.Close()
			defer xNo.Close()
			h := &hpcpack.Model{Reevaluate: 60}
			var want []sched
			if kind == "activation" {
				h.Activation = []hpcpack.ActivationFilter{xOne, xNo}
				want = []sched{{1, sim.Pending, 60, 60}, {2, sim.Completed, 0, 10}}
			} else {
				h.Submission = []hpcpack.SubmissionFilter{xOne, xNo}
				want = []sched{{1, sim.Failed, 0, 0}, {2, sim.Completed, 0, 10}}
			}
			rec := runRules(t, 4, policy.FCFS{}, h, []workload.Job{job(1, 0, 1, 10, 10), job(2, 0, 1, 10, 10)})
			checkSched(t, rec, want)
			if kind == "activation" {
				if r := rec.ByID(t, 1); r.Note != "activate=2x2 reserving_sec=60" {
					t.Errorf("job 1 note %q", r.Note)
				}
			}
		})
	}
}
