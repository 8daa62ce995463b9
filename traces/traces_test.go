package traces_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"testing"

	"github.com/schedsim/schedsim/traces"
	"github.com/schedsim/schedsim/traces/internal/sample"
	"github.com/schedsim/schedsim/workload"
)

// TestSampleCurrent fails when the embedded sample differs from what the
// generator makes now, so the file can never drift from the code.
func TestSampleCurrent(t *testing.T) {
	var want bytes.Buffer
	if err := sample.Write(&want); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(traces.Sample())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("%s (%d bytes) differs from what the generator makes now (%d bytes): run `go generate ./traces`",
			traces.SampleName, len(got), want.Len())
	}
	// The embedded bytes are the file's, which go generate wrote.
	file, err := os.ReadFile(traces.SampleName)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, got) {
		t.Fatalf("%s on disk differs from the embedded copy", traces.SampleName)
	}
}

// TestSampleParses reads the sample with the default rules: every job is
// kept untouched, and the header describes the machine and how the file was
// made.
func TestSampleParses(t *testing.T) {
	r, err := workload.NewSWFReader(traces.Sample(), traces.SampleName, workload.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	var (
		j          workload.Job
		n          int
		work       float64
		first, end workload.Time
	)
	for {
		err := r.Next(&j)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			first = j.Submit
		}
		end = j.Submit
		n++
		work += float64(j.Procs) * float64(j.Run)
		if j.Procs < 1 || j.Procs > 128 || !j.HasEstimate() || j.Killed() || j.Estimate%60 != 0 {
			t.Fatalf("job %d: procs %d run %d estimate %d", j.ID, j.Procs, j.Run, j.Estimate)
		}
	}
	want := workload.CleanStats{Records: 2000, Kept: 2000}
	if st := r.Stats(); st != want || n != 2000 {
		t.Errorf("stats %+v after %d jobs, want %+v", st, n, want)
	}
	h := r.Header()
	if h.MaxProcs != 128 || h.MaxNodes != 128 || h.Get("Version") != "2.2" || h.Get("Computer") != "schedsim synthetic" {
		t.Errorf("header %+v", h)
	}
	notes := 0
	for _, f := range h.Fields {
		if f.Key == "Note" {
			notes++
		}
	}
	if notes < 3 {
		t.Errorf("%d Note lines, want the model, the seed and how to regenerate", notes)
	}
	if load := work / (128 * float64(end-first)); math.Abs(load-0.9) > 0.9*0.05 {
		t.Errorf("offered load %.4f, want 0.9 ± 5%%", load)
	}
	if _, err := io.ReadAll(traces.Sample()); err != nil {
		t.Fatal(err)
	}
}
