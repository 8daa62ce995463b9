package schedsim

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSharedQueues: a time-shared queue's jobs start at their arrival
// whatever processors are idle, under every policy that shares, and the
// others start only where they fit beside them; summary.json records the
// queues and verify accepts the run.
//
// The machine has 4 processors; queue 3 is time-shared. Job 1 (4
// processors, 100 s) runs 0-100. Job 2 (queue 3, 2 processors, 50 s) starts
// at its submission, 10, on the full machine. Job 3 (2 processors, 30 s),
// submitted at 20, waits for job 1, and then for job 4 (queue 3, 3
// processors, 40 s), which started at its submission, 90, and holds 3 of
// the 4 processors until 130. Job 5 (1 processor, 10 s), submitted at 105,
// backfills on the idle processor at once (it ends before job 3's start
// at 130) under EASY, its kin and conservative backfilling, waits behind job 3 under FCFS (130), and
// starts at Slurm's next backfill cycle (120, every 30 s). With a
// submission latency of 5 s every job arrives 5 s later: the time-shared
// jobs start at 15 and 95, job 3 still at 135 and job 5 at 110. Without
// the time-shared queue, job 2 waits for job 1 (100), job 3 starts with it,
// job 4 waits for job 2's end (150), and job 5, which finds no processor
// idle at 105, backfills at 130 (it ends before 150).
func TestSharedQueues(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "t.swf", "; MaxProcs: 4\n; Queue: 3 devel\n"+
		"1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n"+
		"2 10 -1 50 2 -1 -1 2 50 -1 1 2 1 -1 3 -1 -1 -1\n"+
		"3 20 -1 30 2 -1 -1 2 30 -1 1 3 1 -1 1 -1 -1 -1\n"+
		"4 90 -1 40 3 -1 -1 3 40 -1 1 4 1 -1 3 -1 -1 -1\n"+
		"5 105 -1 10 1 -1 -1 1 10 -1 1 5 1 -1 1 -1 -1 -1\n")
	calendar := writeFile(t, dir, "cal.toml", "[[reservation]]\nname = \"later\"\nstart = \"100000\"\nduration = \"1h\"\n")
	easy := [5]int{0, 10, 130, 90, 105}
	for _, tc := range []struct {
		name   string
		set    func(sc *Scenario)
		shared string
		want   [5]int
	}{
		{"fcfs", func(sc *Scenario) { sc.Backfill = "off" }, "3", [5]int{0, 10, 130, 90, 130}},
		{"easy", func(sc *Scenario) { sc.Backfill = "easy" }, "3", easy},
		{"easy by name", func(sc *Scenario) { sc.Backfill = "easy" }, "devel", easy},
		{"easy sjbf", func(sc *Scenario) { sc.Backfill, sc.SJBF = "easy", true }, "3", easy},
		{"depth 2", func(sc *Scenario) { sc.Backfill, sc.ReservationDepth = "easy", "2" }, "3", easy},
		{"conservative", func(sc *Scenario) { sc.Backfill = "conservative" }, "3", easy},
		{"conservative calendar", func(sc *Scenario) { sc.Backfill, sc.Config = "conservative", calendar }, "3", easy},
		{"hpcpack", func(sc *Scenario) { sc.Backfill = "hpcpack" }, "3", easy},
		{"sjf order", func(sc *Scenario) { sc.Backfill, sc.Order = "easy", "sjf" }, "3", easy},
		{"slurm", func(sc *Scenario) { sc.Backfill = "slurm" }, "3", [5]int{0, 10, 130, 90, 120}},
		{"calendar", func(sc *Scenario) { sc.Backfill, sc.Config = "easy", calendar }, "3", easy},
		{"latency", func(sc *Scenario) { sc.Backfill, sc.SubmitLatency = "easy", "5s" }, "3", [5]int{5, 15, 135, 95, 110}},
		{"none", func(sc *Scenario) { sc.Backfill = "easy" }, "", [5]int{0, 100, 100, 150, 130}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.SharedQueues, sc.Plots = trace, tc.shared, false
			sc.Out = filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			tc.set(&sc)
			if _, err := Run(context.Background(), &sc, Options{Warn: &strings.Builder{}}); err != nil {
				t.Fatal(err)
			}
			rows := readJobsCSV(t, filepath.Join(sc.Out, "jobs.csv"))
			for i := range 5 {
				if g := rows[i+1].start; g != tc.want[i] {
					t.Errorf("job %d started at %d, want %d", i+1, g, tc.want[i])
				}
			}
			var out strings.Builder
			res, err := VerifyDir(sc.Out, 0, &out)
			if err != nil || len(res) != 1 || res[0].Violations != 0 {
				t.Errorf("verify: %v, %+v\n%s", err, res, out.String())
			}
			sum, err := os.ReadFile(filepath.Join(sc.Out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(string(sum), "\"shared_queues\": [\n    3\n  ]"); has != (tc.shared != "") {
				t.Errorf("summary.json records the shared queues: %v, want %v\n%s", has, tc.shared != "", sum)
			}
		})
	}
	for _, tc := range []struct {
		set func(sc *Scenario)
		err string
	}{
		{func(sc *Scenario) { sc.SharedQueues = "batch" }, `"batch"`},
		{func(sc *Scenario) { sc.SharedQueues, sc.ImmediateQueues = "3", "1,3" }, "queue 3 is both an immediate queue"},
		{func(sc *Scenario) { sc.SharedQueues, sc.Mode = "3", "gang" }, "SCore-D's gang scheduling time-shares"},
	} {
		sc := Default()
		sc.Trace = trace
		tc.set(&sc)
		_, err := Run(context.Background(), &sc, Options{Warn: &strings.Builder{}})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: %v, want an input error with %q", sc.SharedQueues, err, tc.err)
		}
	}
}

// TestSharedQueuesSubmissionFilters: HPC Pack's submission filters judge
// a time-shared queue's jobs at their submission as any other's. Machine
// of 4 processors, queue 3 time-shared, the built-in filter max-size at 2
// processors. Job 1 (2 processors, 100 s) runs 0-100 and job 5 (2
// processors, 100 s) 15-115. Job 2 (queue 3, 3 processors), submitted at
// 10, fails at submission. Job 3 (queue 3, 2 processors, 50 s), submitted
// at 20 onto the full machine, starts at once, sharing, and runs 20-70. Job
// 4 (1 processor, 30 s), submitted at 30, waits for job 1's end at 100.
func TestSharedQueuesSubmissionFilters(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "t.swf", "; MaxProcs: 4\n"+
		"1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n"+
		"2 10 -1 50 3 -1 -1 3 50 -1 1 2 1 -1 3 -1 -1 -1\n"+
		"5 15 -1 100 2 -1 -1 2 100 -1 1 5 1 -1 1 -1 -1 -1\n"+
		"3 20 -1 50 2 -1 -1 2 50 -1 1 3 1 -1 3 -1 -1 -1\n"+
		"4 30 -1 30 1 -1 -1 1 30 -1 1 4 1 -1 1 -1 -1 -1\n")
	config := writeFile(t, dir, "f.toml", "[filters]\nsubmission = [\"max-size\"]\n[max_size]\nprocs = 2\n")
	for _, backfill := range []string{"off", "easy", "conservative", "hpcpack", "slurm"} {
		t.Run(backfill, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.Config, sc.SharedQueues, sc.Backfill = trace, config, "3", backfill
			runVerified(t, sc, dir, backfill)
			col, recs := readCSVTable(t, filepath.Join(dir, backfill, "jobs.csv"))
			got := map[string]string{}
			for _, r := range recs {
				got[r[col["job_id"]]] = r[col["final_state"]] + "@" + r[col["starting_time"]]
			}
			want := map[string]string{"1": "COMPLETED_SUCCESSFULLY@0", "2": "COMPLETED_FAILED@", "3": "COMPLETED_SUCCESSFULLY@20", "4": "COMPLETED_SUCCESSFULLY@100", "5": "COMPLETED_SUCCESSFULLY@15"}
			for id, w := range want {
				if got[id] != w {
					t.Errorf("job %s: %s, want %s", id, got[id], w)
				}
			}
		})
	}
}
