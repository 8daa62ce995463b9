package schedsim

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// tiersSWF: a 4-processor machine. Job 1 (queue 2) fills it until 10;
// then 2 (queue 2, 2 processors, asks 12 s, runs 10), 3 (queue 1, 2
// processors), 4 (queue 1, the whole machine, 5 s) and 5 (queue 2, 2
// processors, 10 s) wait, submitted in that order.
const tiersSWF = `; MaxProcs: 4
1 0 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 2 -1 -1 -1
2 1 -1 10 2 -1 -1 2 12 -1 1 2 1 -1 2 -1 -1 -1
3 2 -1 10 2 -1 -1 2 10 -1 1 3 1 -1 1 -1 -1 -1
4 3 -1 5 4 -1 -1 4 5 -1 1 4 1 -1 1 -1 -1 -1
5 4 -1 10 2 -1 -1 2 10 -1 1 5 1 -1 2 -1 -1 -1
`

// TestPriorityTiers: [[priority_tier]] ranks queue 1's jobs above queue
// 2's under every policy that plans from its queue, with backfilling
// behind them; the schedules were worked out by hand.
//
// Without tiers, 2 and 3 start at 10 in submission order, 4 at 20 and 5
// at 25 (EASY finds nothing to backfill: the machine is full).
//
// With tiers the queue is 3, 4, 2, 5. At 10, 3 starts and 4 (the whole
// machine) waits for 20, when 3 ends. FCFS starts nothing else: 4 at 20,
// 2 and 5 at 25. EASY (and HPC Pack's window, a reservation depth) may
// backfill a job that ends by 20 on the 2 idle processors: 2 asks 12 s
// and would end at 22, 5 asks 10 and ends at 20, so 5 starts at 10 and 2
// at 25, after 4. Slurm's backfill runs at its first cycle (30 s) and
// finds the machine busy: as FCFS.
func TestPriorityTiers(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "tiers.swf", tiersSWF)
	tiers := "[[priority_tier]]\nqueue = 1\ntier = 2\n\n[[priority_tier]]\nqueue = 2\ntier = 1\n"
	fcfs := "1:0 2:25 3:10 4:20 5:25"
	easy := "1:0 2:25 3:10 4:20 5:10"
	plain := "1:0 2:10 3:10 4:20 5:25"
	tests := []struct {
		name, opts string
		tiers      bool
		want       string
	}{
		{"fcfs", `backfill = "off"`, true, fcfs},
		{"easy", `backfill = "easy"`, true, easy},
		{"easy-lookahead-1", "backfill = \"easy\"\nlookahead = \"1\"", true, fcfs},
		{"easy-lookahead-2", "backfill = \"easy\"\nlookahead = \"2\"", true, easy},
		{"hpcpack", `backfill = "hpcpack"`, true, easy},
		{"depth-2", "backfill = \"easy\"\nreservation_depth = \"2\"", true, easy},
		{"slurm", `backfill = "slurm"`, true, fcfs},
		// Under SJF within a tier, 4 (5 s) goes before 3: the whole
		// machine is free at 10, so 4 runs 10-15; then 3 and 5 (10 s,
		// shorter than 2's 12) start at 15, and 2 at 25.
		{"easy-sjf", "backfill = \"easy\"\norder = \"sjf\"", true, "1:0 2:25 3:15 4:10 5:15"},
		{"easy-limits", "backfill = \"easy\"\n[[limit]]\nusers = [\"*\"]\nmax_jobs_per_user = 1", true, easy},
		{"fcfs-no-tiers", `backfill = "off"`, false, plain},
		{"easy-no-tiers", `backfill = "easy"`, false, plain},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := fmt.Sprintf("trace = %q\n%s\n", trace, tc.opts)
			if tc.tiers {
				text += "\n" + tiers
			}
			d := t.TempDir()
			sc, err := LoadScenario(writeFile(t, d, "sc.toml", text), Default())
			if err != nil {
				t.Fatal(err)
			}
			sc.Out = filepath.Join(d, "out")
			sc.Plots = false
			res, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}})
			if err != nil {
				t.Fatal(err)
			}
			if got := startsOf(t, filepath.Join(sc.Out, "jobs.csv")); got != tc.want {
				t.Errorf("starts %s, want %s", got, tc.want)
			}
			if tc.tiers != strings.Contains(res.Summary.Policy, "priority-tier") {
				t.Errorf("policy %q: want it to say priority-tier only with tiers", res.Summary.Policy)
			}
			var out bytes.Buffer
			if rs, err := VerifyDir(sc.Out, 0, &out); err != nil || rs[0].Violations != 0 {
				t.Errorf("verify: %v\n%s", err, out.String())
			}
		})
	}
}

// TestVerifyPriorityTiers: verify checks the order of the tiers from
// jobs.csv (each job's priority_tier word) as the policy promises it: a
// run of tiersSWF under FCFS whose jobs.csv is changed to start job 2
// (queue 2, tier 1) at 10 beside job 3, while job 4 (tier 2) waits, is
// rejected; so is a run under EASY changed to start 2 at 20 and delay 4,
// the head since 10 with a reservation at 20, to 30. Under EASY the first
// change (2 backfilled, 4 still at 20) is accepted; Slurm's backfill,
// whose promises the engine checks, is not checked.
func TestVerifyPriorityTiers(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "tiers.swf", tiersSWF)
	tiers := "[[priority_tier]]\nqueue = 1\ntier = 2\n\n[[priority_tier]]\nqueue = 2\ntier = 1\n"
	tests := []struct {
		name, backfill, starts, want string
	}{
		{"fcfs: a lower tier first", "off", "1:0 2:10 3:10 4:20 5:25", "job 2: tier-order: started at 10 while job 4 of tier 2"},
		{"easy: a lower tier backfilled", "easy", "1:0 2:10 3:10 4:20 5:25", ""},
		{"easy: the head delayed", "easy", "1:0 2:20 3:10 4:30 5:10", "job 4: tier-head-reservation"},
		{"slurm: not checked", "slurm", "1:0 2:10 3:10 4:20 5:25", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			sc, err := LoadScenario(writeFile(t, d, "sc.toml", fmt.Sprintf("trace = %q\nbackfill = %q\n%s", trace, tc.backfill, tiers)), Default())
			if err != nil {
				t.Fatal(err)
			}
			sc.Out, sc.Plots = filepath.Join(d, "out"), false
			if _, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}}); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(sc.Out, "jobs.csv")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			col := map[string]int{}
			for i, h := range rows[0] {
				col[h] = i
			}
			start := map[string]int{}
			for _, f := range strings.Fields(tc.starts) {
				id, s, _ := strings.Cut(f, ":")
				start[id], _ = strconv.Atoi(s)
			}
			for _, r := range rows[1:] {
				if !strings.Contains(r[col["metadata"]], "priority_tier=") {
					t.Fatalf("job %s: metadata %q names no tier", r[col["job_id"]], r[col["metadata"]])
				}
				s, ok := start[r[col["job_id"]]]
				if !ok {
					t.Fatalf("no start for job %s", r[col["job_id"]])
				}
				sub, _ := strconv.Atoi(r[col["submission_time"]])
				run, _ := strconv.Atoi(r[col["execution_time"]])
				r[col["starting_time"]] = strconv.Itoa(s)
				r[col["finish_time"]] = strconv.Itoa(s + run)
				r[col["waiting_time"]] = strconv.Itoa(s - sub)
			}
			var w bytes.Buffer
			cw := csv.NewWriter(&w)
			cw.WriteAll(rows)
			if err := os.WriteFile(p, w.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if _, err := VerifyDir(sc.Out, 0, &out); err != nil {
				t.Fatal(err)
			}
			found := tc.want != "" && strings.Contains(out.String(), tc.want)
			any := strings.Contains(out.String(), ": tier")
			if tc.want != "" && !found || tc.want == "" && any {
				t.Errorf("verify said:\n%s\nwant a tier violation %q", out.String(), tc.want)
			}
		})
	}
}

// startsOf returns "id:start" of every job of jobs.csv, by job id.
func startsOf(t *testing.T, path string) string {
	t.Helper()
	col, rows := readCSVTable(t, path)
	var out []string
	for _, r := range rows {
		out = append(out, r[col["job_id"]]+":"+r[col["starting_time"]])
	}
	slices.Sort(out) // ids of one digit
	return strings.Join(out, " ")
}

// readCSVTable reads a CSV table with a header line: the columns by name,
// and the rows after the header.
func readCSVTable(t *testing.T, path string) (map[string]int, [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no header", path)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	return col, rows[1:]
}

// TestPriorityTierErrors: each mistake in [[priority_tier]] is an input
// error naming the file, the table and the field.
func TestPriorityTierErrors(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "tiers.swf", tiersSWF)
	tests := []struct{ name, toml, want string }{
		// (the conservative case is refused with the pair of features,
		// before the file is read further)
		{"no tier", "[[priority_tier]]\nqueue = 1\n", "[[priority_tier]] 1: tier: required"},
		{"neither queue nor partition", "[[priority_tier]]\ntier = 1\n", "[[priority_tier]] 1: queue and partition: give one"},
		{"both", "[[priority_tier]]\nqueue = 1\npartition = \"2\"\ntier = 1\n", "queue and partition: give one"},
		{"negative queue", "[[priority_tier]]\nqueue = -2\ntier = 1\n", "queue -2"},
		{"unknown partition", "[[priority_tier]]\npartition = \"batch\"\ntier = 1\n", "partition \"batch\""},
		{"twice", "[[priority_tier]]\nqueue = 1\ntier = 1\n[[priority_tier]]\nqueue = 1\ntier = 3\n", "[[priority_tier]] 2: queue 1 has a tier already in [[priority_tier]] 1"},
		{"conservative", "backfill = \"conservative\"\n[[priority_tier]]\nqueue = 1\ntier = 1\n", "conservative backfilling"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			path := writeFile(t, d, "sc.toml", fmt.Sprintf("trace = %q\n%s", trace, tc.toml))
			sc, err := LoadScenario(path, Default())
			if err == nil {
				sc.Out = filepath.Join(d, "out")
				_, err = Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}})
			}
			if err == nil {
				t.Fatal("no error")
			}
			if _, ok := err.(*InputError); !ok {
				t.Errorf("error %T, want an input error: %v", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) || (tc.name != "conservative" && !strings.Contains(err.Error(), "sc.toml")) {
				t.Errorf("error %q: want it to name sc.toml and say %q", err, tc.want)
			}
			if _, statErr := os.Stat(filepath.Join(d, "out", "jobs.csv")); statErr == nil {
				t.Error("jobs.csv written")
			}
		})
	}
}

// TestTierOf: a job's tier is the first table's that names its queue or
// its partition (queue −1: the jobs whose queue is unknown), else 0.
func TestTierOf(t *testing.T) {
	path := writeFile(t, t.TempDir(), "c.toml", `
[[priority_tier]]
queue = -1
tier = 4

[[priority_tier]]
partition = "batch"
tier = 2

[[priority_tier]]
queue = 3
tier = 7
`)
	c, err := loadRunConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	tier, err := c.tiers(contractHeader()) // partition 2 is "batch"
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		queue, partition, want int
	}{
		{-1, 1, 4},
		{-1, 2, 4}, // the first table that names it
		{5, 2, 2},
		{3, 2, 2},
		{3, 1, 7},
		{1, 1, 0},
		{1, -1, 0},
	}
	for _, tc := range tests {
		j := workload.Job{Queue: tc.queue, Partition: tc.partition}
		if got := tier(&j); got != tc.want {
			t.Errorf("queue %d partition %d: tier %d, want %d", tc.queue, tc.partition, got, tc.want)
		}
	}
}

// FuzzTierOfMeta: reading a tier from a jobs.csv metadata field never
// panics, and reads back what tierNotes wrote after any note.
func FuzzTierOfMeta(f *testing.F) {
	f.Add("priority_tier=3", int64(3))
	f.Add("filters=0 priority_tier=-2", int64(-2))
	f.Add("user=1 account=2 partition=3 queue=4 priority_tier=x", int64(0))
	f.Fuzz(func(t *testing.T, meta string, tier int64) {
		tierOfMeta(meta)
		note := strings.Join(strings.Fields(strings.ReplaceAll(meta, priorityTierWord, "")), " ")
		b := tierNotes{inner: fixedNote(note), tier: func(*workload.Job) int { return int(tier) }}.AppendNote(nil, &workload.Job{})
		if got, ok := tierOfMeta(string(b)); !ok || int64(got) != int64(int(tier)) {
			t.Fatalf("%q: tier %d, %v; want %d", b, got, ok, tier)
		}
	})
}

// fixedNote is a policy.Annotator whose note is always itself.
type fixedNote string

// AppendNote implements policy.Annotator.
func (n fixedNote) AppendNote(dst []byte, _ *workload.Job) []byte { return append(dst, n...) }
