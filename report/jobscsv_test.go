package report

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

func TestAppendField(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", ""},
		{"plain", "needs 9 processors", "needs 9 processors"},
		{"comma", "a,b", `"a,b"`},
		{"quote", `say "hi"`, `"say ""hi"""`},
		{"newline", "a\nb", "\"a\nb\""},
		{"cr", "a\rb", "\"a\rb\""},
		{"only quote", `"`, `""""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(appendField([]byte("x"), tc.in)); got != "x"+tc.want {
				t.Errorf("appendField(%q) = %q, want %q", tc.in, got[1:], tc.want)
			}
		})
	}
}

func TestJobsCSVRows(t *testing.T) {
	job := &workload.Job{ID: 42, Submit: 10, Procs: 3, Run: 7, Estimate: workload.Unknown}
	for _, tc := range []struct {
		name string
		rec  sim.Record
		want string
	}{
		{"completed, no estimate, non-integer stretch",
			sim.Record{Job: job, State: sim.Completed, Start: 12, End: 19, Alloc: []cluster.Range{rg(0, 1), rg(3, 5)}},
			"42,w,delay,10,3,,1,COMPLETED_SUCCESSFULLY,12,7,19,2,9,1.2857142857142858,0 3-4,,"},
		{"killed",
			sim.Record{Job: &workload.Job{ID: 1, Submit: 0, Procs: 1, Run: 9, Estimate: 4}, State: sim.Killed, Start: 0, End: 4, Alloc: []cluster.Range{rg(5, 6)}},
			"1,w,delay,0,1,4,0,COMPLETED_WALLTIME_REACHED,0,4,4,0,4,1,5,,"},
		{"large stretch uses exponent",
			sim.Record{Job: &workload.Job{ID: 2, Submit: 0, Procs: 1, Run: 1, Estimate: 1}, State: sim.Completed, Start: 2000000, End: 2000001, Alloc: []cluster.Range{rg(0, 1)}},
			"2,w,delay,0,1,1,1,COMPLETED_SUCCESSFULLY,2000000,1,2000001,2000000,2000001,2.000001e+06,0,,"},
		{"zero execution",
			sim.Record{Job: job, State: sim.Completed, Start: 10, End: 10},
			"42,w,delay,10,3,,1,COMPLETED_SUCCESSFULLY,10,0,10,0,0,,,,"},
		{"predicted start",
			sim.Record{Job: job, State: sim.Completed, Start: 12, End: 19, Alloc: []cluster.Range{rg(0, 3)}, Predicted: 11, HasPrediction: true},
			"42,w,delay,10,3,,1,COMPLETED_SUCCESSFULLY,12,7,19,2,9,1.2857142857142858,0-2,,predicted_start=11"},
		{"predicted start and where (WILL_RUN), intervals joined by commas",
			sim.Record{Job: job, State: sim.Completed, Start: 12, End: 19, Alloc: []cluster.Range{rg(0, 3)}, Predicted: 11, HasPrediction: true, PredictedAlloc: []cluster.Range{rg(0, 2), rg(5, 6)}},
			`42,w,delay,10,3,,1,COMPLETED_SUCCESSFULLY,12,7,19,2,9,1.2857142857142858,0-2,,"predicted_start=11 predicted_resources=0-1,5"`},
		{"predicted never, with a note that needs quotes",
			sim.Record{Job: job, State: sim.Completed, Start: 12, End: 19, Alloc: []cluster.Range{rg(0, 3)}, Predicted: workload.Forever, HasPrediction: true, Note: "a,b"},
			`42,w,delay,10,3,,1,COMPLETED_SUCCESSFULLY,12,7,19,2,9,1.2857142857142858,0-2,,"predicted_start=-1 a,b"`},
		{"rejected with quoted reason",
			sim.Record{Job: job, State: sim.Rejected, Start: 10, End: 10, Reason: `too "big", sorry`},
			`42,w,delay,10,3,,0,REJECTED,,,,,,,,,"too ""big"", sorry"`},
		{"failed by a filter",
			sim.Record{Job: job, State: sim.Failed, Start: 30, End: 30, Reason: "activation filter failed the job (f: 4)", Note: "activate=4x1"},
			"42,w,delay,10,3,,0,COMPLETED_FAILED,,,,,,,,,activation filter failed the job (f: 4) failed_at=30 activate=4x1"},
		{"still queued at the end",
			sim.Record{Job: job, State: sim.Pending, Start: 70, End: 70, Reason: "still queued (f: 2)", Note: "activate=2x2 reserving_sec=60"},
			"42,w,delay,10,3,,0,SUBMITTED,,,,,,,,,still queued (f: 2) pending_at=70 activate=2x2 reserving_sec=60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := NewJobsCSV(&buf, "w")
			c.JobDone(&tc.rec)
			if err := c.Flush(); err != nil {
				t.Fatal(err)
			}
			got := strings.TrimPrefix(buf.String(), jobsCSVHeader)
			if got != tc.want+"\n" {
				t.Errorf("row\n got %q\nwant %q", got, tc.want+"\n")
			}
		})
	}
}

// TestJobsCSVParses reads the tiny run back with encoding/csv: 17 columns in
// every row, the quoted fields intact.
func TestJobsCSVParses(t *testing.T) {
	var buf bytes.Buffer
	c := NewJobsCSV(&buf, "odd, name")
	replay(tinyRun(), c)
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+len(tinyRun()) {
		t.Fatalf("got %d rows, want %d", len(rows), 1+len(tinyRun()))
	}
	if rows[0][0] != "job_id" || rows[0][16] != "metadata" || len(rows[0]) != 17 {
		t.Errorf("header = %q", rows[0])
	}
	if got := rows[1][1]; got != "odd, name" {
		t.Errorf("workload_name = %q", got)
	}
	if got := rows[1][16]; got != "needs 99 processors, machine has 8" {
		t.Errorf("rejected metadata = %q", got)
	}
	if got := rows[4][14]; got != "0-3 6" {
		t.Errorf("multi-range allocation = %q", got)
	}
}

type failWriter struct{ n int }

var errDisk = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errDisk
}

func TestJobsCSVWriteError(t *testing.T) {
	w := &failWriter{}
	c := NewJobsCSV(w, "w")
	recs := tinyRun()
	for i := 0; i < 20000; i++ { // more than the buffer holds
		c.JobDone(&recs[1])
	}
	if err := c.Flush(); !errors.Is(err, errDisk) {
		t.Errorf("Flush() = %v, want %v", err, errDisk)
	}
	if w.n != 1 {
		t.Errorf("underlying writer called %d times after its error, want 1", w.n)
	}
}

// countWriter counts the writes it gets and keeps what they wrote.
type countWriter struct {
	bytes.Buffer
	writes, largest int
}

func (w *countWriter) Write(p []byte) (int, error) {
	w.writes++
	w.largest = max(w.largest, len(p))
	return w.Buffer.Write(p)
}

// TestJobsCSVBuffer checks that JobsCSV streams: it writes whole rows in
// order, about jobsCSVBuffer bytes at a time, rows longer than the room
// it keeps beyond that included, and the rest at Flush.
func TestJobsCSVBuffer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		noteLen int // of every 7th row's note
		rows    int
	}{
		{"short rows", 0, 20000},
		{"rows longer than the slack", 3 * jobsCSVSlack, 2000},
		{"rows longer than the buffer", jobsCSVBuffer + 1, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs := tinyRun()[1:] // not the rejected one
			// Each record's row, with and without the note, written alone.
			var rows [2][]string
			for noted := range 2 {
				for _, r := range recs {
					if noted == 1 {
						r.Note = strings.Repeat("n", tc.noteLen)
					}
					var one bytes.Buffer
					single := NewJobsCSV(&one, "w")
					single.JobDone(&r)
					single.Flush()
					rows[noted] = append(rows[noted], strings.TrimPrefix(one.String(), jobsCSVHeader))
				}
			}
			w := &countWriter{}
			c := NewJobsCSV(w, "w")
			want := []byte(jobsCSVHeader)
			for i := range tc.rows {
				r, noted := recs[i%len(recs)], 0
				if i%7 == 0 {
					r.Note, noted = strings.Repeat("n", tc.noteLen), 1
				}
				want = append(want, rows[noted][i%len(recs)]...)
				c.JobDone(&r)
			}
			if w.writes == 0 {
				t.Fatal("nothing written before Flush")
			}
			if err := c.Flush(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(w.Bytes(), want) {
				t.Fatalf("wrote %d bytes, want %d, or other bytes", w.Len(), len(want))
			}
			if lo := len(want) / (jobsCSVBuffer + tc.noteLen + 1024); w.writes < lo || w.writes > len(want)/jobsCSVBuffer+1 {
				t.Errorf("%d writes of at most %d bytes for %d bytes, want %d to %d", w.writes, w.largest, len(want), lo, len(want)/jobsCSVBuffer+1)
			}
		})
	}
}

func TestJobsCSVNoAllocs(t *testing.T) {
	c := NewJobsCSV(io.Discard, "w")
	recs := tinyRun()
	allocs := testing.AllocsPerRun(1000, func() {
		for i := range recs {
			c.JobDone(&recs[i])
		}
	})
	if allocs != 0 {
		t.Errorf("JobDone allocates %.1f times per %d rows, want 0", allocs, len(recs))
	}
}

func BenchmarkJobsCSV(b *testing.B) {
	c := NewJobsCSV(io.Discard, "bench")
	recs := tinyRun()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.JobDone(&recs[i%len(recs)])
	}
	if err := c.Flush(); err != nil {
		b.Fatal(err)
	}
}

// TestPutRanges checks putRanges against cluster.FormatRanges, the
// interval set's home, on single processors, ranges, numbers of every
// digit count and many ranges, each written in exactly its rangeRoom.
func TestPutRanges(t *testing.T) {
	for _, rs := range [][]cluster.Range{
		nil,
		{rg(0, 1)},
		{rg(0, 2)},
		{rg(0, 4), rg(8, 9), rg(10, 12)},
		{rg(9, 10), rg(10, 11), rg(99, 101), rg(999, 1001), rg(9999, 10001), rg(123456789, 1234567890)},
		{rg(1<<40, 1<<41), rg(1<<62, 1<<62+1)},
	} {
		want := string(cluster.FormatRanges([]byte("x,"), rs))
		b := make([]byte, 2+rangeRoom*len(rs))
		copy(b, "x,")
		if got := string(b[:putRanges(b, 2, rs)]); got != want {
			t.Errorf("putRanges(%v) = %q, want %q", rs, got, want)
		}
	}
}
