package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// tinyProcs is the machine size of tinyRun.
const tinyProcs = 8

// tinyRun is a hand-made EASY run on 8 processors, in the engine's report
// order (end time, then submission):
//
//	job procs submit start  end  run est   alloc    state
//	  3    99     20    20   20    –   –   –        rejected (reason has a comma)
//	  1     4      0     0  100  100 200   0-3      completed
//	  4     1     30   100  105    5   –   7        completed, no estimate
//	  2     5     10   100  460  360 360   0-3 6    killed (run 500)
//	  5     2      5     5 1005 1000 2000  4-5      completed
//	  6     8     50  1005 1015   10  10   0-7      completed
func tinyRun() []sim.Record {
	job := func(id int64, submit, run, est workload.Time, procs int) *workload.Job {
		return &workload.Job{Seq: id - 1, ID: id, Submit: submit, Procs: procs, Run: run, Estimate: est}
	}
	return []sim.Record{
		{Job: job(3, 20, 50, 100, 99), State: sim.Rejected, Start: 20, End: 20, Reason: "needs 99 processors, machine has 8"},
		{Job: job(1, 0, 100, 200, 4), State: sim.Completed, Start: 0, End: 100, Alloc: []cluster.Range{rg(0, 4)}},
		{Job: job(4, 30, 5, workload.Unknown, 1), State: sim.Completed, Start: 100, End: 105, Alloc: []cluster.Range{rg(7, 8)}},
		{Job: job(2, 10, 500, 360, 5), State: sim.Killed, Start: 100, End: 460, Alloc: []cluster.Range{rg(0, 4), rg(6, 7)}},
		{Job: job(5, 5, 1000, 2000, 2), State: sim.Completed, Start: 5, End: 1005, Alloc: []cluster.Range{rg(4, 6)}},
		{Job: job(6, 50, 10, 10, 8), State: sim.Completed, Start: 1005, End: 1015, Alloc: []cluster.Range{rg(0, 8)}},
	}
}

var (
	tinyStats    = sim.Stats{Jobs: 6, Started: 5, Killed: 1, Rejected: 1, Passes: 7, MaxQueue: 3}
	tinyCleaning = workload.CleanStats{Records: 8, Kept: 6, DroppedRun: 2, NoEstimate: 1, Overrun: 1}
)

// replay hands obs each record, as its event, as the engine does.
func replay(recs []sim.Record, obs sim.Observer) {
	var e sim.Event
	for i := range recs {
		sim.RecordEvent(&e, &recs[i])
		if obs.Wants().Kinds.Has(e.Kind) {
			obs.Observe(&e)
		}
	}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestGolden(t *testing.T) {
	var csvBuf bytes.Buffer
	csv := NewJobsCSV(&csvBuf, "tiny")
	m := NewMetrics()
	replay(tinyRun(), Observers{csv, m})
	if err := csv.Flush(); err != nil {
		t.Fatal(err)
	}
	s := m.Summary("tiny.swf", "easy", tinyProcs, tinyStats, tinyCleaning)

	var jsonBuf, tableBuf bytes.Buffer
	if err := WriteSummaryJSON(&jsonBuf, &s); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummaryTable(&tableBuf, &s); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		got  []byte
	}{
		{"jobs.csv", csvBuf.Bytes()},
		{"summary.json", jsonBuf.Bytes()},
		{"summary.txt", tableBuf.Bytes()},
	} {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.got) })
	}
}

// rg returns the processor range [lo, hi).
func rg(lo, hi int) cluster.Range { return cluster.Range{Lo: lo, Hi: hi} }
