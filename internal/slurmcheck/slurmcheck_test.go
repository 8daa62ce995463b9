package slurmcheck

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

const scontrolLine = "JobId=7 JobName=wrap UserId=root(0) JobState=COMPLETED Reason=None TimeLimit=00:02:00 " +
	"SubmitTime=2026-11-26T19:45:25 StartTime=2026-11-26T19:46:00 EndTime=2026-11-26T19:46:54 " +
	"Scheduler=Main Partition=debug NodeList=n[06-16,21-28] NumNodes=19 NumCPUs=19 Comment=two words"

func TestParseScontrol(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Record // nil: an error
		errHas   string
	}{
		{"one job", scontrolLine + "\n", []Record{{JobID: 7, State: "COMPLETED", Submit: 1795722325, Start: 1795722360, End: 1795722414,
			CPUs: 19, LimitMin: 2, Nodes: "n[06-16,21-28]", Scheduler: "Main", SourceLine: 1}}, ""},
		{"sorted by job id, blank lines skipped", strings.Replace(scontrolLine, "JobId=7", "JobId=9", 1) + "\n\n" + scontrolLine + "\n", nil, ""},
		{"no job", "No jobs in the system\n", nil, "x.txt: no job"},
		{"missing field", strings.Replace(scontrolLine, "NumCPUs=19", "", 1), nil, "x.txt:1: NumCPUs: missing"},
		{"bad time", strings.Replace(scontrolLine, "StartTime=2026-11-26T19:46:00", "StartTime=Unknown", 1), nil, "x.txt:1: StartTime: \"Unknown\""},
		{"not completed", strings.Replace(scontrolLine, "COMPLETED", "TIMEOUT", 1), nil, "x.txt:1: JobState: job 7 is TIMEOUT"},
		{"array job", scontrolLine + " ArrayJobId=7 ArrayTaskId=1", nil, "x.txt:1: ArrayJobId"},
		{"limit not whole minutes", strings.Replace(scontrolLine, "TimeLimit=00:02:00", "TimeLimit=00:02:30", 1), nil, "x.txt:1: TimeLimit"},
		{"days in the limit", strings.Replace(scontrolLine, "TimeLimit=00:02:00", "TimeLimit=1-00:02:00", 1), nil, ""},
		{"start before submit", strings.Replace(scontrolLine, "SubmitTime=2026-11-26T19:45:25", "SubmitTime=2026-11-26T19:47:25", 1), nil, "x.txt:1: StartTime: job 7"},
		{"twice", scontrolLine + "\n" + scontrolLine + "\n", nil, "x.txt:2: JobId: job 7 appears twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseScontrol(strings.NewReader(tc.in), "x.txt", time.UTC)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want one with %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil && !slices.Equal(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
			for i := 1; i < len(got); i++ {
				if got[i].JobID <= got[i-1].JobID {
					t.Errorf("not sorted by job id: %+v", got)
				}
			}
		})
	}
}

func FuzzParseScontrol(f *testing.F) {
	f.Add(scontrolLine)
	f.Add(scontrolLine + "\n" + strings.Replace(scontrolLine, "JobId=7", "JobId=8", 1))
	f.Add("JobId=1 JobState=COMPLETED TimeLimit=1-00:00:00")
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := ParseScontrol(strings.NewReader(in), "f", time.UTC)
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.Start < r.Submit || r.End < r.Start || r.CPUs < 1 || r.LimitMin < 1 {
				t.Fatalf("accepted a bad record %+v", r)
			}
		}
		var b bytes.Buffer
		if err := WriteSWF(&b, recs, recs[0].Submit, 32, ""); err != nil && !strings.Contains(err.Error(), "before t0") {
			t.Fatal(err)
		}
	})
}

func TestWorkload(t *testing.T) {
	a, b := Workload(28, 40, 150, 32), Workload(28, 40, 150, 32)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave two workloads")
	}
	if slices.Equal(a, Workload(29, 40, 150, 32)) {
		t.Fatal("seeds 28 and 29 gave the same workload")
	}
	if a[0].Offset != 0 {
		t.Errorf("first offset %d, want 0", a[0].Offset)
	}
	for i, j := range a {
		if j.CPUs < 1 || j.CPUs > 32 || j.Sleep < 10 || j.Sleep > 120 || j.Offset < 0 || j.Offset >= 150 ||
			j.LimitMin < 1 || int64(j.LimitMin)*60 < j.Sleep || (i > 0 && j.Offset < a[i-1].Offset) {
			t.Errorf("job %d: %+v out of range", i, j)
		}
	}
	// The script's workload (seed 28) is the one testdata/run2 submitted.
	want, err := os.ReadFile("testdata/run2/workload.txt")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteWorkload(&got, a); err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("workload of seed 28:\n%s\nwant testdata/run2/workload.txt:\n%s", got.String(), want)
	}
}

func TestCompareAndGate(t *testing.T) {
	ref := Side{1: {0, 0, 10, 1}, 2: {0, 10, 20, 1}, 3: {5, 20, 40, 2}}
	run := Side{1: {0, 0, 10, 1}, 2: {0, 12, 22, 1}, 3: {5, 26, 46, 2}}
	c, err := Compare(ref, run)
	if err != nil {
		t.Fatal(err)
	}
	// Diffs 0, +2, +6: 1 equal, 1 within 1 s, 2 within 2 s, 2 within 5
	// s; median 2, max 6; mean waits 25/3 and 33/3; makespans 40, 46.
	if c.Equal != 1 || c.Within1 != 1 || c.Within2 != 2 || c.Within5 != 2 || c.MedianAbs != 2 || c.MaxAbs != 6 ||
		c.RefMakespan != 40 || c.Makespan != 46 || c.RefMeanWait != 25.0/3 || c.MeanWait != 33.0/3 {
		t.Errorf("got %+v", c)
	}
	fails := IssueGate.Check(c)
	if len(fails) != 3 {
		t.Errorf("gate: %q, want 3 failures (makespan +15 %%, wait +32 %%, 2 of 3 starts)", fails)
	}
	if fails := IssueGate.Check(mustCompare(t, ref, ref)); len(fails) != 0 {
		t.Errorf("a run against itself fails the gate: %q", fails)
	}
	if _, err := Compare(ref, Side{1: {0, 0, 10, 1}}); err == nil {
		t.Error("runs of different jobs compared")
	}
}

func mustCompare(t *testing.T, a, b Side) *Comparison {
	t.Helper()
	c, err := Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRecordedRuns replays every recorded real run as the script does:
// with --backfill slurm, its slurm.conf and the end latency measured on its
// slurmctld.log, and, for comparison, with --bf-end-latency's default; it
// keeps what the script prints as a golden file: a change of the model or
// of the measurement shows here as a changed table. It also checks that
// real.swf is what slurmcheck trace writes from scontrol.txt, and prints the
// real-vs-real spread of runs of the same workload.
func TestRecordedRuns(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/run*")
	if len(dirs) == 0 {
		t.Fatal("no recorded run under testdata")
	}
	sides := map[string]Side{}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in, err := os.Open(filepath.Join(dir, "scontrol.txt"))
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			recs, err := ParseScontrol(in, "scontrol.txt", time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			swf, err := os.ReadFile(filepath.Join(dir, "real.swf"))
			if err != nil {
				t.Fatal(err)
			}
			t0, note := headerOf(t, string(swf))
			var b bytes.Buffer
			if err := WriteSWF(&b, recs, t0, 32, note); err != nil {
				t.Fatal(err)
			}
			if b.String() != string(swf) {
				t.Errorf("real.swf is not what trace writes from scontrol.txt")
			}
			real, err := LoadSide(filepath.Join(dir, "real.swf"))
			if err != nil {
				t.Fatal(err)
			}
			sides[dir] = real
			lat := recordedLatency(t, dir)
			replay := func(latency string) *Comparison {
				sc := schedsim.Default()
				sc.Trace, sc.SlurmConf, sc.Backfill = filepath.Join(dir, "real.swf"), filepath.Join(dir, "schedsim.conf"), "slurm"
				sc.BFEndLatency = latency
				sc.Out, sc.Plots = t.TempDir(), false
				if _, err := schedsim.Run(context.Background(), &sc, schedsim.Options{Warn: &bytes.Buffer{}}); err != nil {
					t.Fatal(err)
				}
				sim, err := LoadSide(sc.Out)
				if err != nil {
					t.Fatal(err)
				}
				c, err := Compare(real, sim)
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			// What the script prints (compare.txt).
			var out bytes.Buffer
			fmt.Fprintf(&out, "measured: %s\nreplayed with --bf-end-latency %s\n", lat, lat.Flag())
			c := replay(lat.Flag())
			if err := c.WriteTable(&out, "real", "schedsim"); err != nil {
				t.Fatal(err)
			}
			if fails := IssueGate.Check(c); len(fails) == 0 {
				out.WriteString("gate (makespan ±5 %, mean wait ±20 %, 90 % of starts within 2 s): pass\n")
			} else {
				for _, f := range fails {
					out.WriteString("gate: FAIL: " + f + "\n")
				}
			}
			var def bytes.Buffer
			if err := replay("").WriteTable(&def, "real", "schedsim"); err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(def.String(), "\n") {
				if strings.HasPrefix(line, "starts of") {
					out.WriteString("for comparison, with --bf-end-latency's default: " + line + "\n")
				}
			}
			t.Logf("%s against the real run:\n%s", dir, out.String())
			golden := filepath.Join(dir, "compare.golden")
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./internal/slurmcheck -update writes it)", err)
			}
			if out.String() != string(want) {
				t.Errorf("the replay of %s changed:\n%s\nwant (%s):\n%s", dir, out.String(), golden, want)
			}
		})
	}
	// Runs of the same workload at the same phase: the real scheduler's
	// own spread.
	for i := 1; i < len(dirs); i++ {
		for j := i + 1; j < len(dirs); j++ {
			a, b := sides[dirs[i]], sides[dirs[j]]
			if a == nil || b == nil {
				continue
			}
			c, err := Compare(a, b)
			if err != nil {
				continue // another workload
			}
			var out bytes.Buffer
			_ = c.WriteTable(&out, filepath.Base(dirs[i]), filepath.Base(dirs[j]))
			t.Logf("real vs real, %s and %s:\n%s", dirs[i], dirs[j], out.String())
		}
	}
}

// recordedLatency measures the end latency of the recorded run in dir,
// from its slurmctld.log.gz and workload.txt, as `slurmcheck latency` does.
func recordedLatency(t *testing.T, dir string) EndLatency {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "slurmctld.log.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := ParseCtldLog(zr, filepath.Join(dir, "slurmctld.log"))
	if err != nil {
		t.Fatal(err)
	}
	wl, err := os.ReadFile(filepath.Join(dir, "workload.txt"))
	if err != nil {
		t.Fatal(err)
	}
	subs, err := ReadWorkload(bytes.NewReader(wl), "workload.txt")
	if err != nil {
		t.Fatal(err)
	}
	sleeps := make([]int64, len(subs))
	for i, s := range subs {
		sleeps[i] = s.Sleep
	}
	l, err := MeasureEndLatency(jobs, sleeps)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// headerOf returns the UnixStartTime and the first note of an SWF header
// slurmcheck trace wrote.
func headerOf(t *testing.T, swf string) (int64, string) {
	t.Helper()
	var t0 int64
	note := ""
	for _, line := range strings.Split(swf, "\n") {
		if v, ok := strings.CutPrefix(line, "; UnixStartTime: "); ok {
			if _, err := fmt.Sscan(v, &t0); err != nil {
				t.Fatal(err)
			}
		}
		if v, ok := strings.CutPrefix(line, "; Note: "); ok && note == "" && !strings.HasPrefix(v, "job N is") {
			note = v
		}
	}
	return t0, note
}

// TestFidelityReadsTheCheck: schedsim fidelity takes the check's real.swf
// as the recorded side (item 4 of issue 28): every job compared, the
// recorded mean wait the real run's, the simulated one the replay's.
func TestFidelityReadsTheCheck(t *testing.T) {
	dir := "testdata/run2"
	sc := schedsim.Default()
	sc.Trace, sc.SlurmConf, sc.Backfill = filepath.Join(dir, "real.swf"), filepath.Join(dir, "schedsim.conf"), "slurm"
	f, err := schedsim.Fidelity(context.Background(), &sc, schedsim.FidelityOptions{Recorded: filepath.Join(dir, "real.swf")}, schedsim.Options{Warn: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	real, err := LoadSide(filepath.Join(dir, "real.swf"))
	if err != nil {
		t.Fatal(err)
	}
	sc.Out, sc.Plots = t.TempDir(), false
	if _, err := schedsim.Run(context.Background(), &sc, schedsim.Options{Warn: &bytes.Buffer{}}); err != nil {
		t.Fatal(err)
	}
	sim, err := LoadSide(sc.Out)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(real, sim)
	if err != nil {
		t.Fatal(err)
	}
	if f.Overall.Jobs != 40 || f.LogJobs != 40 {
		t.Errorf("fidelity compared %d of %d jobs, want 40 of 40", f.Overall.Jobs, f.LogJobs)
	}
	if d := f.Overall.RecordedMeanWait - c.RefMeanWait; d > 1e-9 || d < -1e-9 {
		t.Errorf("fidelity's recorded mean wait %v, the real run's %v", f.Overall.RecordedMeanWait, c.RefMeanWait)
	}
	if d := f.Overall.SimulatedMeanWait - c.MeanWait; d > 1e-9 || d < -1e-9 {
		t.Errorf("fidelity's simulated mean wait %v, the replay's %v", f.Overall.SimulatedMeanWait, c.MeanWait)
	}
}
