package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

// TestActivationWithCalendar works a schedule out by hand: EASY on 4
// processors with the built-in quota activation filter (150
// processor-seconds per user per 1000 s) and a maintenance reservation of
// the whole machine over [100, 200).
//
//   - Job 1 (user 1, 4 processors, 50 s) starts at 0; user 1 has then used
//     200 processor-seconds of the window.
//   - Job 2 (user 2, 4 × 80 s) would end at 130, inside the reservation:
//     it may not start before 200, and ends at 280. Its activation filter
//     is asked only when the calendar lets it start.
//   - Job 3 (user 1, 2 × 30 s, asking 40) could backfill at 50 (it would
//     end by 90), but its user is over quota: result 3, held until the next
//     window, 1000, where it runs to 1030.
//   - Job 4 (user 3, 1 × 20 s) backfills at 50 in the round after job 3's
//     refusal, to 70.
func TestActivationWithCalendar(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "cal.swf", `; MaxProcs: 4
1 0 -1 50 4 -1 -1 4 50 -1 1 1 1 -1 -1 -1 -1 -1
2 10 -1 80 4 -1 -1 4 80 -1 1 2 1 -1 -1 -1 -1 -1
3 20 -1 30 2 -1 -1 2 40 -1 1 1 1 -1 -1 -1 -1 -1
4 30 -1 20 1 -1 -1 1 30 -1 1 3 1 -1 -1 -1 -1 -1
`)
	cfg := writeFile(t, dir, "cal.toml", `
[filters]
activation = ["quota"]
[quota]
proc_seconds = 150
window = "1000s"

[[reservation]]
name = "maintenance"
start = "100"
duration = "100s"
`)
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, "run", "--trace", trace, "--config", cfg, "--out", out, "-q", "--plots=false"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := map[string][2]string{"1": {"0", "50"}, "2": {"200", "280"}, "3": {"1000", "1030"}, "4": {"50", "70"}}
	rows := simtest.ReadCSV(t, filepath.Join(out, "jobs.csv"))
	if len(rows)-1 != len(want) {
		t.Fatalf("%d jobs, want %d", len(rows)-1, len(want))
	}
	for _, r := range rows[1:] {
		if got := [2]string{r[8], r[10]}; got != want[r[0]] {
			t.Errorf("job %s: start, end %v, want %v", r[0], got, want[r[0]])
		}
	}
	for _, r := range rows[1:] {
		if held := strings.Contains(r[16], "held_sec="); held != (r[0] == "3") {
			t.Errorf("job %s's note %q: held %v, want only job 3 held", r[0], r[16], held)
		}
	}
	if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
		t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestActivationWithCalendarRealTrace runs HPC2N-2002's first 3,170 jobs
// under EASY with the quota activation filter and a daily two-hour drain
// of half the machine plus a weekday start window: verify accepts the run,
// and no job ran inside the drain beyond what it leaves.
func TestActivationWithCalendarRealTrace(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", src)
	}
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cal.toml", `
[filters]
activation = ["quota"]
[quota]
proc_seconds = 2e6
window = "1d"

[[reservation]]
name = "nightly-drain"
start = "1d2h"
duration = "2h"
recur = "daily"
procs = 120

[[start_window]]
days = "Mon-Fri"
hours = "08:00-17:00"
max_wall = "12h"
`)
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, "run", "--trace", src, "--config", cfg, "--out", out, "-q", "--plots=false"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s := readSummary(t, out)
	if s.Jobs == 0 || s.Started == 0 {
		t.Fatalf("summary: %d jobs, %d started", s.Jobs, s.Started)
	}
	b, err := os.ReadFile(filepath.Join(out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if held := strings.Count(string(b), "held_sec="); held == 0 {
		t.Errorf("the quota held no job: the filter did not act")
	}
	if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
		t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Logf("%d jobs, %d started, mean wait %.0f s, %d held by the quota", s.Jobs, s.Started, s.Wait.Mean, strings.Count(string(b), "held_sec="))
}
