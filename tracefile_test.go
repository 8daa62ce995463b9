package schedsim

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

func TestTraceFormat(t *testing.T) {
	for _, tc := range []struct {
		name string
		want workload.Format
	}{
		{"a.swf", workload.FormatSWF},
		{"a.SWF.gz", workload.FormatSWF},
		{"a.gz", workload.FormatSWF},
		{"a.parquet", workload.FormatParquet},
		{"a.pq", workload.FormatParquet},
		{"a.json", workload.FormatBatsim},
		{"dir/a.json.gz", workload.FormatBatsim},
		{"a.csv", ""},
		{"a", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TraceFormat(tc.name)
			var ie *InputError
			if got != tc.want || (tc.want == "") != errors.As(err, &ie) {
				t.Errorf("TraceFormat(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
			}
		})
	}
}

// TestTraceWriterInterrupted writes a trace in every format and commits it
// under a cancelled context: nothing is left, the file nor its temporary.
func TestTraceWriterInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	j := workload.Job{ID: 1, Submit: 0, Run: 10, Procs: 1, RawRun: 10, AllocProcs: 1, ReqProcs: 1, ReqTime: 20}
	for _, name := range []string{"t.swf", "t.swf.gz", "t.parquet", "t.json", "t.json.gz"} {
		path := filepath.Join(dir, name)
		format, err := TraceFormat(path)
		if err != nil {
			t.Fatal(err)
		}
		w, err := CreateTrace(path, format, &workload.Header{MaxProcs: 4})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&j); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(ctx); !errors.Is(err, ErrInterrupted) {
			t.Errorf("%s: Commit under a cancelled context: %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v behind", entries)
	}
}
