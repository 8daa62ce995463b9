package schedsim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/workload"
)

// unitTrace is the real trace the time unit's tests replay, as a Batsim
// workload: its times are whole seconds, so a run in ms must give the
// schedule of the run in seconds, times ×1000.
var unitTrace = filepath.Join("..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")

// batsimOf writes the jobs of the SWF trace at path (at most maxJobs;
// 0: all) as a Batsim workload in dir, its SWF header kept, and returns
// its path. It skips the test when the trace is absent.
func batsimOf(t *testing.T, path, dir string, maxJobs int64) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipped: %s not found (%v); the shared data sit beside the repository, at ../shared", path, err)
	}
	rd, err := workload.Open(path, workload.Rules{MaxJobs: maxJobs}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var b bytes.Buffer
	bw, err := workload.NewBatsimWriter(&b, rd.Header())
	if err != nil {
		t.Fatal(err)
	}
	var j workload.Job
	for {
		if err := rd.Next(&j); err != nil {
			break
		}
		if err := bw.Write(&j); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Close(); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, strings.TrimSuffix(filepath.Base(path), ".swf.gz")+".json", b.String())
}

// unitRun is one run of unitRuns: its directory and its table's rows.
type unitRun struct {
	out  string
	rows []report.JobRow
}

// unitRuns runs the scenario setup makes (given the Batsim workload of
// unitTrace in sc.Trace and a directory for its inputs) in seconds and
// in ms; each run must pass verify with no violation. If same, the run in
// ms must give every job the run in seconds gave it, its times ×1000. It
// returns the two runs.
func unitRuns(t *testing.T, same bool, setup func(t *testing.T, sc *Scenario, unit, dir string)) [2]unitRun {
	t.Helper()
	dir := t.TempDir()
	trace := batsimOf(t, unitTrace, dir, 0)
	var runs [2]unitRun
	for i, unit := range []string{"s", "ms"} {
		sc := Default()
		sc.Trace, sc.TimeUnit, sc.Plots = trace, unit, false
		sc.Out = filepath.Join(dir, "out-"+unit)
		setup(t, &sc, unit, dir)
		res, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}})
		if err != nil {
			t.Fatalf("%s: %v", unit, err)
		}
		if unit == "ms" && res.Summary.TimeUnit != "ms" {
			t.Errorf("summary's time_unit %q, want ms", res.Summary.TimeUnit)
		}
		var vout bytes.Buffer
		rs, err := VerifyDir(sc.Out, 20, &vout)
		if err != nil {
			t.Fatalf("verify %s: %v", unit, err)
		}
		for _, r := range rs {
			if r.Violations != 0 || r.Jobs == 0 {
				t.Fatalf("verify %s: %d jobs, %d violations:\n%s", unit, r.Jobs, r.Violations, vout.String())
			}
		}
		table, err := report.FindJobTable(sc.Out)
		if err != nil {
			t.Fatal(err)
		}
		tick, _ := TimeUnitTicks(unit)
		runs[i].out = sc.Out
		if err := report.ReadJobTableIn(table, tick, func(_ string, r *report.JobRow) error {
			runs[i].rows = append(runs[i].rows, *r)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if same {
		sameSchedule(t, runs[0].rows, runs[1].rows, 1000)
	}
	return runs
}

// sameSchedule checks that b, a run in ticks of 1/tick second, gave every
// job what a, a run in seconds, gave it, its times ×tick.
func sameSchedule(t *testing.T, a, b []report.JobRow, tick workload.Time) {
	t.Helper()
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d and %d jobs", len(a), len(b))
	}
	differ := 0
	for i := range a {
		x, y := a[i], b[i]
		x.Submit, x.Start, x.Exec, x.End = x.Submit*tick, x.Start*tick, x.Exec*tick, x.End*tick
		if x.Estimate > 0 {
			x.Estimate *= tick
		}
		if x != y {
			if differ++; differ <= 5 {
				t.Errorf("job %d: in seconds %+v, in 1/%d s %+v", x.ID, a[i], tick, y)
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d jobs differ", differ, len(a))
	}
}

// TestTimeUnitSameSchedule: the Batsim workload of a real trace in whole
// seconds, replayed in ms, gives the schedule in seconds ×1000 under
// FCFS, EASY and conservative backfilling, and both runs pass verify.
func TestTimeUnitSameSchedule(t *testing.T) {
	for _, bf := range []string{"off", "easy", "conservative"} {
		t.Run(bf, func(t *testing.T) {
			unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) { sc.Backfill = bf })
		})
	}
}
