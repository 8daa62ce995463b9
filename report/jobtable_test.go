package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// TestReadJobTable reads jobs.csv rows in the form schedsim writes now
// (unknowns empty) and in the form it wrote before (-1), and refuses rows
// no run writes, naming the file, the line and the column.
func TestReadJobTable(t *testing.T) {
	head := jobsCSVHeader
	tests := []struct {
		name string
		rows string
		want []JobRow
		err  string
	}{
		{"empty unknowns", "3,w,delay,20,99,100,0,REJECTED,,,,,,,,,too big\n4,w,delay,30,1,,1,COMPLETED_SUCCESSFULLY,100,5,105,70,75,15,7,,\n",
			[]JobRow{{ID: 3, Submit: 20, Procs: 99, Estimate: 100, State: "REJECTED", Metadata: "too big"},
				{ID: 4, Submit: 30, Procs: 1, Estimate: workload.Unknown, State: "COMPLETED_SUCCESSFULLY", Ran: true, Start: 100, Exec: 5, End: 105, Alloc: "7"}}, ""},
		{"-1 unknowns", "3,w,delay,20,99,100,0,REJECTED,-1,-1,-1,-1,-1,-1,,-1,too big\n4,w,delay,30,1,-1,1,COMPLETED_SUCCESSFULLY,100,5,105,70,75,15,7,-1,\n",
			[]JobRow{{ID: 3, Submit: 20, Procs: 99, Estimate: 100, State: "REJECTED", Metadata: "too big"},
				{ID: 4, Submit: 30, Procs: 1, Estimate: workload.Unknown, State: "COMPLETED_SUCCESSFULLY", Ran: true, Start: 100, Exec: 5, End: 105, Alloc: "7"}}, ""},
		{"a job that ran without a start", "4,w,delay,30,1,,1,COMPLETED_SUCCESSFULLY,,5,105,70,75,15,7,,\n", nil, "jobs.csv:2: starting_time: empty, but the job ran"},
		{"unknown state", "4,w,delay,30,1,,1,DONE,100,5,105,70,75,15,7,,\n", nil, `jobs.csv:2: final_state: unknown state "DONE"`},
		{"submission time not a number", "4,w,delay,,1,,1,COMPLETED_SUCCESSFULLY,100,5,105,70,75,15,7,,\n", nil, `jobs.csv:2: submission_time: "" is not a number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "jobs.csv")
			if err := os.WriteFile(p, []byte(head+tc.rows), 0o644); err != nil {
				t.Fatal(err)
			}
			var got []JobRow
			err := ReadJobTable(p, func(where string, r *JobRow) error {
				got = append(got, *r)
				return nil
			})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), p) {
					t.Fatalf("error %v, want %q naming the file", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d rows, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("row %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
	dir := t.TempDir()
	if _, err := FindJobTable(dir); err == nil || !strings.Contains(err.Error(), "not a result directory") {
		t.Errorf("FindJobTable of an empty directory: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "jobs.parquet"), nil, 0o644)
	if p, err := FindJobTable(dir); err != nil || filepath.Base(p) != "jobs.parquet" {
		t.Errorf("FindJobTable: %q, %v; want jobs.parquet", p, err)
	}
}

// TestParseTicks reads times in seconds with a unit's decimals as ticks,
// exactly, and refuses more decimals than the unit has.
func TestParseTicks(t *testing.T) {
	for _, c := range []struct {
		s    string
		tick int64
		want int64
		ok   bool
	}{
		{"88.510", 1000, 88510, true},
		{"88.51", 1000, 88510, true},
		{"88", 1000, 88000, true},
		{"0.001", 1000, 1, true},
		{"-1.5", 1000, -1500, true},
		{"88.5105", 1000, 0, false},
		{"1.000001", 1_000_000, 1000001, true},
		{"1.0000001", 1_000_000, 0, false},
		{"", 1000, 0, false},
		{".5", 1000, 0, false},
		{"1.x", 1000, 0, false},
		{"1e3", 1000, 0, false},
		{"99999999999999999999", 1000, 0, false},
		{"9223372036854775807", 1000, 0, false},
		{"88", 1, 88, true},
		{"88.5", 1, 0, false},
		{"+1", 1, 0, false},
		{"1.-5", 1000, 0, false},
		{"0.000001", 1_000_000, 1, true},
	} {
		got, err := ParseTicks(c.s, c.tick)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseTicks(%q, %d) = %d, %v; want %d, ok %v", c.s, c.tick, got, err, c.want, c.ok)
		}
	}
}

// FuzzParseTicks: ParseTicks never panics, and a time it reads, written
// back with AppendTicks, reads as the same ticks; AppendTicks's output
// always reads back.
func FuzzParseTicks(f *testing.F) {
	for _, s := range []string{"88.510", "0", "-1.5", "1.000001", "", ".", "1e3", "99999999999999999999.9"} {
		f.Add(s, int64(1000))
	}
	f.Add("1.000001", int64(1_000_000))
	f.Fuzz(func(t *testing.T, s string, tick int64) {
		if tick != 1000 && tick != 1_000_000 {
			tick = 1000
		}
		v, err := ParseTicks(s, tick)
		if err != nil {
			return
		}
		back := string(AppendTicks(nil, v, tick))
		if w, err := ParseTicks(back, tick); err != nil || w != v {
			t.Fatalf("ParseTicks(%q) = %d, written %q, read back %d, %v", s, v, back, w, err)
		}
	})
}
