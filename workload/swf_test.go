package workload

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// baseFields is a clean job: id 1, submit 0, run 100 s on 4 processors
// (requested and allocated), requested time 200 s, status 1.
var baseFields = [18]string{"1", "0", "-1", "100", "4", "-1", "-1", "4", "200", "-1", "1", "-1", "-1", "-1", "-1", "-1", "-1", "-1"}

// rec returns an SWF job line: baseFields with field n (1-based) set to set[n].
func rec(set map[int]string) string {
	f := baseFields
	for n, v := range set {
		f[n-1] = v
	}
	return strings.Join(f[:], " ")
}

// readSWF reads every job of text with rules; it stops at the first error.
func readSWF(t *testing.T, text string, rules Rules) ([]Job, CleanStats, *Header, error) {
	t.Helper()
	r, err := NewSWFReader(strings.NewReader(text), "t.swf", rules)
	if err != nil {
		return nil, CleanStats{}, nil, err
	}
	defer r.Close()
	var jobs []Job
	for {
		var j Job
		err := r.Next(&j)
		if err == io.EOF {
			return jobs, r.Stats(), r.Header(), nil
		}
		if err != nil {
			return jobs, r.Stats(), r.Header(), err
		}
		jobs = append(jobs, j)
	}
}

func mustRead(t *testing.T, text string, rules Rules) ([]Job, CleanStats, *Header) {
	t.Helper()
	jobs, st, h, err := readSWF(t, text, rules)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return jobs, st, h
}

func TestSWFHeader(t *testing.T) {
	job := rec(nil) + "\n"
	tests := []struct {
		name       string
		text       string
		maxProcs   int
		maxNodes   int
		size       int
		preemption string
		fields     []HeaderField
		comments   int
		get        map[string]string
		sizeErr    string // in MachineSizeError's message, with the header line ("t.swf:N: header ")
	}{
		{
			name:     "plain",
			text:     "; Version: 2.2\n; Computer: Intel iPSC/860\n; MaxNodes: 128\n; MaxProcs: 128\n" + job,
			maxProcs: 128, maxNodes: 128, size: 128,
			fields:   []HeaderField{{"Version", "2.2"}, {"Computer", "Intel iPSC/860"}, {"MaxNodes", "128"}, {"MaxProcs", "128"}},
			comments: 4,
			get:      map[string]string{"computer": "Intel iPSC/860", "COMPUTER": "Intel iPSC/860", "Installation": ""},
		},
		{
			name:     "padded keys and values",
			text:     ";   MaxProcs   :    256   \n;\tMaxNodes:\t64\t\n" + job,
			maxProcs: 256, maxNodes: 64, size: 256,
			fields:   []HeaderField{{"MaxProcs", "256"}, {"MaxNodes", "64"}},
			comments: 2,
		},
		{
			name:     "text after the number",
			text:     "; MaxProcs: 128 (some text)\n; MaxNodes: 32 nodes of 4 procs\n" + job,
			maxProcs: 128, maxNodes: 32, size: 128,
			fields:   []HeaderField{{"MaxProcs", "128 (some text)"}, {"MaxNodes", "32 nodes of 4 procs"}},
			comments: 2,
			get:      map[string]string{"maxprocs": "128 (some text)"},
		},
		{
			name:     "MaxNodes only",
			text:     "; Version: 2\n; MaxNodes: 256\n; MaxRuntime: 162754\n" + job,
			maxNodes: 256, size: 256,
			fields:   []HeaderField{{"Version", "2"}, {"MaxNodes", "256"}, {"MaxRuntime", "162754"}},
			comments: 3,
		},
		{
			name: "no header",
			text: job + rec(map[int]string{1: "2"}) + "\n",
		},
		{
			name: "continuation and free-text comments",
			text: "; Note: There is no information on wait times - the given submit\n" +
				";       times are actually start times\n" +
				"; Information: http://www.example.org/\n" +
				";              http://www.example.org/other\n" +
				";\n" +
				"; This is: free text, not a directive\n" +
				job,
			fields: []HeaderField{
				{"Note", "There is no information on wait times - the given submit"},
				{"Information", "http://www.example.org/"},
			},
			comments: 6,
			get:      map[string]string{"note": "There is no information on wait times - the given submit"},
		},
		{
			name:       "Preemption: Double",
			text:       "; Preemption: Double\n; MaxProcs: 0\n" + job,
			preemption: "Double",
			fields:     []HeaderField{{"Preemption", "Double"}, {"MaxProcs", "0"}},
			comments:   2,
			sizeErr:    `t.swf:2: header MaxProcs "0": 0 processors: a machine has at least one`,
		},
		{
			name:     "blank lines inside and before the header",
			text:     "\n  \n; Version: 2.2\n\t\n; MaxProcs: 8\n\n" + job,
			maxProcs: 8, size: 8,
			fields:   []HeaderField{{"Version", "2.2"}, {"MaxProcs", "8"}},
			comments: 2,
		},
		{
			name:     "CRLF",
			text:     "; Computer: x\r\n; MaxProcs: 16\r\n" + rec(nil) + "\r\n",
			maxProcs: 16, size: 16,
			fields:   []HeaderField{{"Computer", "x"}, {"MaxProcs", "16"}},
			comments: 2,
		},
		{
			name:     "comments after the first job are not header",
			text:     "; MaxProcs: 8\n" + job + "; MaxNodes: 4\n",
			maxProcs: 8, size: 8,
			fields:   []HeaderField{{"MaxProcs", "8"}},
			comments: 1,
		},
		{
			name:     "-1 is unknown, a word is no size",
			text:     "; MaxProcs: -1\n; MaxNodes: unknown\n" + job,
			fields:   []HeaderField{{"MaxProcs", "-1"}, {"MaxNodes", "unknown"}},
			comments: 2,
			sizeErr:  `t.swf:2: header MaxNodes "unknown": no number of processors`,
		},
		{
			name:     "MaxProcs -1 (unknown) leaves MaxNodes",
			text:     "; MaxProcs: -1 (unknown)\n; MaxNodes: 64\n" + job,
			maxNodes: 64, size: 64,
			fields:   []HeaderField{{"MaxProcs", "-1 (unknown)"}, {"MaxNodes", "64"}},
			comments: 2,
		},
		{
			name:     "after a byte order mark",
			text:     "\xef\xbb\xbf; Version: 2.2\n; MaxProcs: 128\n" + job,
			maxProcs: 128, size: 128,
			fields:   []HeaderField{{"Version", "2.2"}, {"MaxProcs", "128"}},
			comments: 2,
		},
		{
			name: "a byte order mark before the first job",
			text: "\xef\xbb\xbf" + job,
		},
		{
			name:     "exponent",
			text:     "; MaxProcs: 1e3\n; MaxNodes: 2.5E2 nodes\n" + job,
			maxProcs: 1000, maxNodes: 250, size: 1000,
			fields:   []HeaderField{{"MaxProcs", "1e3"}, {"MaxNodes", "2.5E2 nodes"}},
			comments: 2,
		},
		{
			name:     "overflowing exponent",
			text:     "; MaxProcs: 1e400\n" + job,
			fields:   []HeaderField{{"MaxProcs", "1e400"}},
			comments: 1,
			sizeErr:  `t.swf:1: header MaxProcs "1e400": more than 67108864 processors`,
		},
		{
			name:     "beyond the largest machine",
			text:     "; Version: 2.2\n; MaxProcs: 1000000000000\n" + job,
			fields:   []HeaderField{{"Version", "2.2"}, {"MaxProcs", "1000000000000"}},
			comments: 2,
			sizeErr:  `t.swf:2: header MaxProcs "1000000000000": more than 67108864 processors, the largest machine schedsim simulates`,
		},
		{
			name:     "beyond int64",
			text:     "; MaxProcs: 99999999999999999999\n; MaxNodes: 16\n" + job,
			maxNodes: 16,
			fields:   []HeaderField{{"MaxProcs", "99999999999999999999"}, {"MaxNodes", "16"}},
			comments: 2,
			sizeErr:  `t.swf:1: header MaxProcs "99999999999999999999": more than 67108864 processors`,
		},
		{
			name:     "negative",
			text:     "; MaxProcs: -5\n" + job,
			fields:   []HeaderField{{"MaxProcs", "-5"}},
			comments: 1,
			sizeErr:  `t.swf:1: header MaxProcs "-5": -5 processors: a machine has at least one`,
		},
		{
			name:     "NaN",
			text:     "; MaxNodes: NaN\n" + job,
			fields:   []HeaderField{{"MaxNodes", "NaN"}},
			comments: 1,
			sizeErr:  `t.swf:1: header MaxNodes "NaN": no number of processors`,
		},
		{
			name:     "fraction",
			text:     "; MaxProcs: 3.5\n" + job,
			fields:   []HeaderField{{"MaxProcs", "3.5"}},
			comments: 1,
			sizeErr:  `header MaxProcs "3.5": 3.5 is not a whole number`,
		},
		{
			name:     "a bad MaxNodes does not matter beside a good MaxProcs",
			text:     "; MaxProcs: 64\n; MaxNodes: lots\n" + job,
			maxProcs: 64, size: 64,
			fields:   []HeaderField{{"MaxProcs", "64"}, {"MaxNodes", "lots"}},
			comments: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jobs, _, h := mustRead(t, tc.text, Rules{})
			if len(jobs) == 0 {
				t.Fatalf("no jobs read")
			}
			if jobs[0].ID != 1 || jobs[0].Procs != 4 {
				t.Errorf("first job = %+v, want id 1 on 4 procs", jobs[0])
			}
			if h.MaxProcs != tc.maxProcs || h.MaxNodes != tc.maxNodes || h.MachineSize() != tc.size {
				t.Errorf("MaxProcs, MaxNodes, MachineSize = %d, %d, %d; want %d, %d, %d",
					h.MaxProcs, h.MaxNodes, h.MachineSize(), tc.maxProcs, tc.maxNodes, tc.size)
			}
			err := h.MachineSizeError()
			switch {
			case tc.sizeErr == "" && err != nil:
				t.Errorf("MachineSizeError = %v, want nil", err)
			case tc.sizeErr != "" && (err == nil || !strings.Contains(err.Error(), tc.sizeErr)):
				t.Errorf("MachineSizeError = %v, want one with %q", err, tc.sizeErr)
			case err != nil:
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Line < 1 {
					t.Errorf("MachineSizeError = %v (%T), want a *ParseError naming the line", err, err)
				}
				if strings.Contains(tc.sizeErr, "more than") && !errors.Is(err, ErrLimit) {
					t.Errorf("MachineSizeError = %v does not wrap ErrLimit", err)
				}
			}
			if h.Preemption != tc.preemption {
				t.Errorf("Preemption = %q, want %q", h.Preemption, tc.preemption)
			}
			if len(h.Fields) != 0 || len(tc.fields) != 0 {
				if !reflect.DeepEqual(h.Fields, tc.fields) {
					t.Errorf("Fields = %q, want %q", h.Fields, tc.fields)
				}
			}
			if len(h.Comments) != tc.comments {
				t.Errorf("%d comments %q, want %d", len(h.Comments), h.Comments, tc.comments)
			}
			for k, want := range tc.get {
				if got := h.Get(k); got != want {
					t.Errorf("Get(%q) = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestSWFEmptyInput(t *testing.T) {
	for _, text := range []string{"", "\n\n", "; Version: 2\n; MaxProcs: 4\n", "  \t\r\n"} {
		jobs, st, h := mustRead(t, text, Rules{})
		if len(jobs) != 0 || st.Records != 0 {
			t.Errorf("%q: %d jobs, %d records; want none", text, len(jobs), st.Records)
		}
		if strings.Contains(text, "MaxProcs") && h.MaxProcs != 4 {
			t.Errorf("%q: MaxProcs = %d, want 4", text, h.MaxProcs)
		}
	}
}

// TestSWFCleaning checks every cleaning rule, its default and its
// alternatives, on one-job traces: the cleaned values and the counter bumped.
func TestSWFCleaning(t *testing.T) {
	double := "; Preemption: Double\n"
	tests := []struct {
		name   string
		header string
		set    map[int]string // fields of the one job line
		rules  Rules
		kept   bool
		procs  int
		run    Time
		est    Time
		stats  CleanStats // Records is always 1; Kept is derived from kept
	}{
		{name: "clean job", kept: true, procs: 4, run: 100, est: 200},
		{name: "requested procs win by default", set: map[int]string{5: "2", 8: "8"}, kept: true, procs: 8, run: 100, est: 200},
		{name: "allocated procs by rule", set: map[int]string{5: "2", 8: "8"}, rules: Rules{Procs: ProcsAllocated}, kept: true, procs: 2, run: 100, est: 200},
		{name: "requested -1 falls back to allocated", set: map[int]string{5: "16", 8: "-1"}, kept: true, procs: 16, run: 100, est: 200,
			stats: CleanStats{ProcsFromOther: 1}},
		{name: "allocated -1 falls back to requested", set: map[int]string{5: "-1", 8: "16"}, rules: Rules{Procs: ProcsAllocated}, kept: true, procs: 16, run: 100, est: 200,
			stats: CleanStats{ProcsFromOther: 1}},
		{name: "requested 0 falls back to allocated", set: map[int]string{5: "3", 8: "0"}, kept: true, procs: 3, run: 100, est: 200,
			stats: CleanStats{ProcsFromOther: 1}},
		{name: "no processor count is dropped", set: map[int]string{5: "-1", 8: "-1"},
			stats: CleanStats{DroppedProcs: 1}},
		{name: "zero processors are dropped", set: map[int]string{5: "0", 8: "0"}, rules: Rules{Procs: ProcsAllocated},
			stats: CleanStats{DroppedProcs: 1}},
		{name: "run 0 dropped by default", set: map[int]string{4: "0"},
			stats: CleanStats{DroppedRun: 1}},
		{name: "run -1 dropped by default", set: map[int]string{4: "-1"},
			stats: CleanStats{DroppedRun: 1}},
		{name: "run 0.4 rounds to 0 and is dropped", set: map[int]string{4: "0.4"},
			stats: CleanStats{DroppedRun: 1}},
		{name: "run 0 set to one second", set: map[int]string{4: "0"}, rules: Rules{ZeroRun: RunOneSecond}, kept: true, procs: 4, run: 1, est: 200,
			stats: CleanStats{RunSetToOne: 1}},
		{name: "run -1 set to one second", set: map[int]string{4: "-1"}, rules: Rules{ZeroRun: RunOneSecond}, kept: true, procs: 4, run: 1, est: 200,
			stats: CleanStats{RunSetToOne: 1}},
		{name: "missing estimate stays missing by default", set: map[int]string{9: "-1"}, kept: true, procs: 4, run: 100, est: Unknown,
			stats: CleanStats{NoEstimate: 1}},
		{name: "estimate 0 is missing", set: map[int]string{9: "0"}, kept: true, procs: 4, run: 100, est: Unknown,
			stats: CleanStats{NoEstimate: 1}},
		{name: "missing estimate from run time", set: map[int]string{9: "-1"}, rules: Rules{Estimate: EstimateRun}, kept: true, procs: 4, run: 100, est: 100,
			stats: CleanStats{EstimateFromRun: 1}},
		{name: "estimate from run time after run set to one", set: map[int]string{4: "0", 9: "-1"}, rules: Rules{Estimate: EstimateRun, ZeroRun: RunOneSecond},
			kept: true, procs: 4, run: 1, est: 1, stats: CleanStats{RunSetToOne: 1, EstimateFromRun: 1}},
		{name: "overrun killed by default", set: map[int]string{4: "300"}, kept: true, procs: 4, run: 300, est: 200,
			stats: CleanStats{Overrun: 1}},
		{name: "overrun extended", set: map[int]string{4: "300"}, rules: Rules{Overrun: OverrunExtend}, kept: true, procs: 4, run: 300, est: 300,
			stats: CleanStats{OverrunExtended: 1}},
		{name: "run equal to estimate is no overrun", set: map[int]string{4: "200"}, kept: true, procs: 4, run: 200, est: 200},
		{name: "status filter keeps listed", set: map[int]string{11: "5"}, rules: Rules{Statuses: []int{1, 5}}, kept: true, procs: 4, run: 100, est: 200},
		{name: "status filter drops others", set: map[int]string{11: "0"}, rules: Rules{Statuses: []int{1, 5}},
			stats: CleanStats{DroppedStatus: 1}},
		{name: "status filter applies before the partial rule", header: double, set: map[int]string{11: "2"}, rules: Rules{Statuses: []int{1}},
			stats: CleanStats{DroppedStatus: 1}},
		{name: "partial kept without Preemption: Double (auto)", set: map[int]string{11: "3"}, kept: true, procs: 4, run: 100, est: 200},
		{name: "partial dropped under Preemption: Double (auto)", header: double, set: map[int]string{11: "2"},
			stats: CleanStats{DroppedPartial: 1}},
		{name: "Preemption: Double is case-insensitive", header: "; Preemption: double\n", set: map[int]string{11: "4"},
			stats: CleanStats{DroppedPartial: 1}},
		{name: "summary line kept under Preemption: Double", header: double, set: map[int]string{11: "1"}, kept: true, procs: 4, run: 100, est: 200},
		{name: "partial dropped by rule", set: map[int]string{11: "4"}, rules: Rules{Partial: PartialDrop},
			stats: CleanStats{DroppedPartial: 1}},
		{name: "partial kept by rule despite Double", header: double, set: map[int]string{11: "2"}, rules: Rules{Partial: PartialKeep}, kept: true, procs: 4, run: 100, est: 200},
		{name: "status 5 is not partial", header: double, set: map[int]string{11: "5"}, rules: Rules{Partial: PartialDrop}, kept: true, procs: 4, run: 100, est: 200},
		{name: "submit -1 dropped", set: map[int]string{2: "-1"},
			stats: CleanStats{DroppedSubmitUnset: 1}},
		{name: "fractional submit, run and estimate rounded", set: map[int]string{2: "10.6", 4: "99.5", 9: "199.4"}, kept: true, procs: 4, run: 100, est: 199,
			stats: CleanStats{RoundedFractional: 1}},
		{name: "fractional run alone counts", set: map[int]string{4: "0.5"}, kept: true, procs: 4, run: 1, est: 200,
			stats: CleanStats{RoundedFractional: 1}},
		{name: "decimal notation of whole numbers is not rounding", set: map[int]string{2: "5.0", 4: "100.00", 9: "200."}, kept: true, procs: 4, run: 100, est: 200},
		{name: "fractions in other fields are kept raw", set: map[int]string{3: "1.25", 6: "489.5", 7: "0.75", 10: "3.5", 18: "2.5"}, kept: true, procs: 4, run: 100, est: 200},
		{name: "exponent notation", set: map[int]string{4: "1e2", 9: "2.5E2"}, kept: true, procs: 4, run: 100, est: 250},
		{name: "plus sign", set: map[int]string{4: "+100"}, kept: true, procs: 4, run: 100, est: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jobs, st, _ := mustRead(t, tc.header+rec(tc.set)+"\n", tc.rules)
			want := tc.stats
			want.Records = 1
			if tc.kept {
				want.Kept = 1
			}
			if st != want {
				t.Errorf("stats = %+v\nwant    %+v", st, want)
			}
			if !tc.kept {
				if len(jobs) != 0 {
					t.Fatalf("job kept: %+v", jobs[0])
				}
				return
			}
			if len(jobs) != 1 {
				t.Fatalf("%d jobs, want 1", len(jobs))
			}
			j := jobs[0]
			if j.Procs != tc.procs || j.Run != tc.run || j.Estimate != tc.est {
				t.Errorf("procs, run, estimate = %d, %d, %d; want %d, %d, %d", j.Procs, j.Run, j.Estimate, tc.procs, tc.run, tc.est)
			}
			if j.HasEstimate() != (tc.est > 0) {
				t.Errorf("HasEstimate() = %v with estimate %d", j.HasEstimate(), j.Estimate)
			}
			if killed := tc.est > 0 && tc.run > tc.est; j.Killed() != killed {
				t.Errorf("Killed() = %v, want %v", j.Killed(), killed)
			}
		})
	}
}

// TestSWFJobFields checks that every field lands where it belongs, raw values
// kept as written, and that Seq counts every record, kept or not.
func TestSWFJobFields(t *testing.T) {
	text := "; MaxProcs: 64\n" +
		"7 10.6 3.5 99.5 8 45.25 1024 16 3600 2048 1 12 13 14 15 16 6 17.5\n" +
		rec(map[int]string{1: "8", 2: "11", 4: "0"}) + "\n" + // dropped: run 0
		rec(map[int]string{1: "9", 2: "11", 5: "-1", 8: "-1"}) + "\n" + // dropped: no procs
		rec(map[int]string{1: "10", 2: "12"}) + "\n"
	jobs, st, _ := mustRead(t, text, Rules{})
	want := Job{
		Seq: 0, ID: 7, Submit: 11, Procs: 16, Run: 100, Estimate: 3600,
		RawWait: 3.5, RawRun: 99.5, AllocProcs: 8, AvgCPUSec: 45.25, UsedMemKB: 1024,
		ReqProcs: 16, ReqTime: 3600, ReqMemKB: 2048, Status: 1, User: 12, Group: 13,
		Executable: 14, Queue: 15, Partition: 16, PrecedingJob: 6, ThinkTime: 17.5,
	}
	if len(jobs) != 2 {
		t.Fatalf("%d jobs, want 2", len(jobs))
	}
	if jobs[0] != want {
		t.Errorf("job = %+v\nwant  %+v", jobs[0], want)
	}
	if jobs[1].ID != 10 || jobs[1].Seq != 3 || jobs[1].Submit != 12 {
		t.Errorf("second kept job: id %d seq %d submit %d; want id 10 seq 3 submit 12", jobs[1].ID, jobs[1].Seq, jobs[1].Submit)
	}
	wantStats := CleanStats{Records: 4, Kept: 2, DroppedRun: 1, DroppedProcs: 1, RoundedFractional: 1}
	if st != wantStats {
		t.Errorf("stats = %+v\nwant    %+v", st, wantStats)
	}
}

func TestSWFLines(t *testing.T) {
	a := rec(map[int]string{1: "1", 2: "5"})
	b := rec(map[int]string{1: "2", 2: "6"})
	c := rec(map[int]string{1: "3", 2: "6"})
	tests := []struct {
		name string
		text string
	}{
		{"LF", a + "\n" + b + "\n" + c + "\n"},
		{"no final newline", a + "\n" + b + "\n" + c},
		{"CRLF", a + "\r\n" + b + "\r\n" + c + "\r\n"},
		{"blank lines", "\n" + a + "\n\n\n" + b + "\n\n" + c + "\n\n"},
		{"whitespace-only lines", " \t \n" + a + "\n   \n\t\n" + b + "\r\n \r\n" + c + "\n  "},
		{"tabs and runs of spaces", strings.ReplaceAll(a, " ", "\t") + "\n   " + strings.ReplaceAll(b, " ", "  \t ") + "   \n" + c + "\t\n"},
		{"comments between jobs", "; header\n" + a + "\n; a comment\n  ; an indented comment\n" + b + "\n;\n" + c + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jobs, st, _ := mustRead(t, tc.text, Rules{})
			if st.Records != 3 || st.Kept != 3 || len(jobs) != 3 {
				t.Fatalf("records %d, kept %d, jobs %d; want 3, 3, 3", st.Records, st.Kept, len(jobs))
			}
			for i, j := range jobs {
				if j.ID != int64(i+1) || j.Seq != int64(i) || j.Run != 100 || j.Procs != 4 || j.Estimate != 200 || j.ThinkTime != -1 {
					t.Errorf("job %d = %+v", i, j)
				}
			}
		})
	}
}

// TestSWFLongLine checks a line longer than the reader's buffer.
func TestSWFLongLine(t *testing.T) {
	f := baseFields
	f[5] = "1." + strings.Repeat("0", 300<<10) // 300 KiB of zeros: 1.0
	text := rec(nil) + "\n" + strings.Join(f[:], " ") + "\n" + rec(map[int]string{1: "3"}) + "\n"
	jobs, _, _ := mustRead(t, text, Rules{})
	if len(jobs) != 3 || jobs[1].AvgCPUSec != 1 || jobs[2].ID != 3 {
		t.Fatalf("got %d jobs (%+v)", len(jobs), jobs)
	}
}

// TestSWFStrictLineLimit checks where a strict reader starts to reject a
// long line: at strictLineReject bytes before its '\n', not one byte less,
// whatever the line's end and wherever the line starts in the buffer.
func TestSWFStrictLineLimit(t *testing.T) {
	job := rec(map[int]string{1: "2"})
	for _, tc := range []struct {
		name   string
		length int    // of the long line, its '\r's included
		end    string // after the long line
		ok     bool
	}{
		{"one short", strictLineReject - 1, "\n", true},
		{"at the limit", strictLineReject, "\n", false},
		{"one short, CRLF", strictLineReject - 1, "\r\n", false},
		{"two short, CRLF", strictLineReject - 2, "\r\n", true},
		{"one short, last line", strictLineReject - 1, "", true},
		{"at the limit, last line", strictLineReject, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			long := strings.Repeat(" ", tc.length-len(job)) + job
			text := rec(nil) + "\n" + long + tc.end
			r, err := NewReader(strings.NewReader(text), "t.swf", Rules{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var j Job
			if err := r.Next(&j); err != nil {
				t.Fatal(err)
			}
			err = r.Next(&j)
			if tc.ok && (err != nil || j.ID != 2) {
				t.Errorf("long line: job %d, error %v; want job 2", j.ID, err)
			}
			var pe *ParseError
			if !tc.ok && (!errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(err.Error(), "longer than")) {
				t.Errorf("long line: error %v; want a ParseError on line 2, too long", err)
			}
		})
	}
}

// TestSWFReaderChunks reads one text through readers that return it in
// pieces of every size, with and without an error alongside the last
// bytes: the jobs and counts are those of reading it at once. The text
// spans many buffers, has lines across their ends, CRLF ends, comments
// and blank lines among the jobs, and a last line without its '\n'.
func TestSWFReaderChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("; MaxProcs: 64\r\n;\n\n")
	for i := 0; b.Len() < 3*swfBufSize; i++ {
		switch i % 101 {
		case 7:
			b.WriteString("; a comment\n")
		case 8:
			b.WriteString("  \t\n")
		}
		end := "\n"
		if i%3 == 0 {
			end = "\r\n"
		}
		fmt.Fprintf(&b, "%s%s", rec(map[int]string{1: strconv.Itoa(i + 1), 2: strconv.Itoa(i), 4: strconv.Itoa(1 + i%97)}), end)
	}
	b.WriteString(rec(map[int]string{1: "999999999", 2: "99999999"}))
	text := b.String()
	want, wantStats, _ := mustRead(t, text, Rules{})
	for _, tc := range []struct {
		name string
		in   func(io.Reader) io.Reader
	}{
		{"one byte at a time", iotest.OneByteReader},
		{"halves", iotest.HalfReader},
		{"EOF with the data", iotest.DataErrReader},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewSWFReader(tc.in(strings.NewReader(text)), "t.swf", Rules{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := readEvery(r)
			if err != io.EOF {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) || r.Stats() != wantStats {
				t.Errorf("%d jobs (%+v), want %d (%+v)", len(got), r.Stats(), len(want), wantStats)
			}
		})
	}
}

func gz(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSWFGzip checks that gzip input is recognised by its magic bytes, not
// its name, through NewSWFReader and OpenSWF.
func TestSWFGzip(t *testing.T) {
	text := "; MaxProcs: 32\n" + rec(nil) + "\n" + rec(map[int]string{1: "2", 2: "9", 4: "7.5"}) + "\n"
	plain, plainStats, _ := mustRead(t, text, Rules{})
	zipped := gz(t, []byte(text))

	dir := t.TempDir()
	for _, name := range []string{"trace.swf", "trace.swf.gz", "trace"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, zipped, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "plain.swf.gz"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"trace.swf", "trace.swf.gz", "trace", "plain.swf.gz"} {
		t.Run(name, func(t *testing.T) {
			r, err := OpenSWF(filepath.Join(dir, name), Rules{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Header().MaxProcs != 32 {
				t.Errorf("MaxProcs = %d, want 32", r.Header().MaxProcs)
			}
			if r.Path() != filepath.Join(dir, name) {
				t.Errorf("Path() = %q", r.Path())
			}
			var got []Job
			for {
				var j Job
				err := r.Next(&j)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, j)
			}
			if !reflect.DeepEqual(got, plain) || r.Stats() != plainStats {
				t.Errorf("gzip read gave %+v (%+v), plain %+v (%+v)", got, r.Stats(), plain, plainStats)
			}
			if err := r.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	if _, err := OpenSWF(filepath.Join(dir, "missing.swf"), Rules{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenSWF of a missing file: %v, want os.ErrNotExist", err)
	}
}

// TestSWFErrors checks that bad input gives a *ParseError naming the file,
// the line and the field.
func TestSWFErrors(t *testing.T) {
	ok := rec(nil)
	seventeen := strings.Join(baseFields[:17], " ")
	nineteen := ok + " 5"
	full := gz(t, []byte("; MaxProcs: 4\n"+strings.Repeat(ok+"\n", 2000)))
	tests := []struct {
		name    string
		input   []byte
		line    int64
		field   int
		msg     []string // substrings of the message
		wrapped error    // errors.Is target, if any
	}{
		{name: "non-number", input: []byte(ok + "\n" + rec(map[int]string{4: "abc"})), line: 2, field: 4,
			msg: []string{"t.swf:2: field 4 (run time): ", `"abc" is not a number`}},
		{name: "non-number in field 1", input: []byte("x1 " + strings.Join(baseFields[1:], " ")), line: 1, field: 1,
			msg: []string{"t.swf:1: field 1 (job number): "}},
		{name: "number with trailing text", input: []byte(rec(map[int]string{18: "5s"})), line: 1, field: 18,
			msg: []string{"field 18 (think time)"}},
		{name: "lone sign", input: []byte(rec(map[int]string{9: "-"})), line: 1, field: 9, msg: []string{"field 9 (requested time)"}},
		{name: "lone dot", input: []byte(rec(map[int]string{9: "."})), line: 1, field: 9, msg: []string{"field 9 (requested time)"}},
		{name: "17 fields", input: []byte("; c\n\n" + seventeen + "\n"), line: 3, msg: []string{"t.swf:3: ", "17 fields, want 18"}},
		{name: "19 fields", input: []byte(ok + "\n" + ok + "\n" + nineteen + "\n"), line: 3, msg: []string{"t.swf:3: ", "more than 18 fields"}},
		{name: "one field", input: []byte("hello\n"), line: 1, field: 1, msg: []string{"t.swf:1: field 1"}},
		{name: "non-integer allocated procs", input: []byte(rec(map[int]string{5: "4.5"})), line: 1, field: 5,
			msg: []string{"t.swf:1: field 5 (allocated processors): ", "4.5 is not an integer"}},
		{name: "non-integer requested procs", input: []byte(rec(map[int]string{8: "2.25"})), line: 1, field: 8,
			msg: []string{"field 8 (requested processors)"}},
		{name: "non-integer status", input: []byte(rec(map[int]string{11: "1.5"})), line: 1, field: 11, msg: []string{"field 11 (status)"}},
		{name: "non-integer job number", input: []byte(rec(map[int]string{1: "1e-1"})), line: 1, field: 1, msg: []string{"field 1 (job number)"}},
		{name: "decreasing submit", input: []byte(rec(map[int]string{2: "100"}) + "\n" + rec(map[int]string{2: "99"}) + "\n"), line: 2, field: 2,
			msg: []string{"t.swf:2: field 2 (submit time): ", "earlier than the previous job's 100"}},
		{name: "decreasing submit after rounding", input: []byte(rec(map[int]string{2: "100.4"}) + "\n" + rec(map[int]string{2: "99.4"}) + "\n"), line: 2, field: 2},
		{name: "decreasing submit across a dropped job", input: []byte(rec(map[int]string{2: "100", 4: "0"}) + "\n" + rec(map[int]string{2: "99"}) + "\n"), line: 2, field: 2},
		{name: "NaN", input: []byte(rec(map[int]string{4: "NaN"})), line: 1, field: 4, msg: []string{"field 4 (run time)", "NaN is out of range"}},
		{name: "NaN in an integer field", input: []byte(rec(map[int]string{5: "nan"})), line: 1, field: 5, msg: []string{"field 5 (allocated processors)"}},
		{name: "Inf", input: []byte(rec(map[int]string{9: "Inf"})), line: 1, field: 9, msg: []string{"field 9 (requested time)", "out of range"}},
		{name: "-Inf", input: []byte(rec(map[int]string{2: "-Inf"})), line: 1, field: 2},
		{name: "+Infinity in an integer field", input: []byte(rec(map[int]string{8: "+Infinity"})), line: 1, field: 8},
		{name: "huge number", input: []byte(rec(map[int]string{3: "1e300"})), line: 1, field: 3, msg: []string{"field 3 (wait time)"}},
		{name: "huge integer", input: []byte(rec(map[int]string{1: "12345678901234567890"})), line: 1, field: 1},
		{name: "truncated gzip", input: full[:len(full)/2], line: 0, // checked below: the line being read
			msg: []string{"t.swf:", "unexpected EOF"}, wrapped: io.ErrUnexpectedEOF},
		{name: "gzip checksum", input: append(append([]byte(nil), full[:len(full)-8]...), 0, 0, 0, 0, 0, 0, 0, 0),
			msg: []string{"t.swf:"}, wrapped: gzip.ErrChecksum},
		{name: "gzip header", input: []byte{0x1f, 0x8b, 0, 0, 0}, msg: []string{"t.swf: bad gzip stream"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := readSWF(t, string(tc.input), Rules{})
			if err == nil {
				t.Fatal("no error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			if pe.Path != "t.swf" {
				t.Errorf("Path = %q, want t.swf", pe.Path)
			}
			if tc.line > 0 && pe.Line != tc.line {
				t.Errorf("Line = %d, want %d", pe.Line, tc.line)
			}
			if pe.Field != tc.field {
				t.Errorf("Field = %d, want %d", pe.Field, tc.field)
			}
			if pe.Err == nil || errors.Unwrap(err) != pe.Err {
				t.Errorf("Unwrap() = %v, want the cause %v", errors.Unwrap(err), pe.Err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "t.swf") {
				t.Errorf("message %q does not start with the file", msg)
			}
			if pe.Line > 0 && !strings.HasPrefix(msg, "t.swf:"+strconv.FormatInt(pe.Line, 10)+": ") {
				t.Errorf("message %q does not name line %d", msg, pe.Line)
			}
			if pe.Field > 0 && !strings.Contains(msg, "field "+strconv.Itoa(pe.Field)+" ("+SWFFieldNames[pe.Field-1]+")") {
				t.Errorf("message %q does not name field %d", msg, pe.Field)
			}
			for _, s := range tc.msg {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q lacks %q", msg, s)
				}
			}
			if tc.wrapped != nil && !errors.Is(err, tc.wrapped) {
				t.Errorf("error %v does not wrap %v", err, tc.wrapped)
			}
		})
	}
}

// TestSWFTruncatedGzipLine checks that a truncated stream reports the line
// it was reading, after the jobs before it were read.
func TestSWFTruncatedGzipLine(t *testing.T) {
	var text strings.Builder
	for i := 1; i <= 5000; i++ {
		text.WriteString(rec(map[int]string{1: strconv.Itoa(i), 2: strconv.Itoa(i)}))
		text.WriteByte('\n')
	}
	full := gz(t, []byte(text.String()))
	jobs, st, _, err := readSWF(t, string(full[:len(full)*3/4]), Rules{})
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *ParseError", err)
	}
	if int64(len(jobs)) != st.Kept || pe.Line != st.Records+1 {
		t.Errorf("error at line %d after %d records (%d jobs); want the line after the last record", pe.Line, st.Records, len(jobs))
	}
}

func TestSWFBadRules(t *testing.T) {
	_, err := NewSWFReader(strings.NewReader(rec(nil)), "t.swf", Rules{Overrun: "ignore"})
	if err == nil || !strings.Contains(err.Error(), "overrun") {
		t.Errorf("NewSWFReader with a bad rule: %v, want an overrun rule error", err)
	}
}

func TestParseErrorMessage(t *testing.T) {
	cause := errors.New("boom")
	tests := []struct {
		name string
		err  ParseError
		want string
	}{
		{"full", ParseError{Path: "a.swf", Line: 3, Field: 4, Err: cause}, "a.swf:3: field 4 (run time): boom"},
		{"whole line", ParseError{Path: "a.swf", Line: 3, Err: cause}, "a.swf:3: boom"},
		{"whole file", ParseError{Path: "a.swf", Err: cause}, "a.swf: boom"},
		{"last field", ParseError{Path: "a.swf", Line: 1, Field: 18, Err: cause}, "a.swf:1: field 18 (think time): boom"},
		{"field out of range", ParseError{Path: "a.swf", Line: 1, Field: 19, Err: cause}, "a.swf:1: boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
			if !errors.Is(&tc.err, cause) {
				t.Error("errors.Is does not find the cause")
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
		err  string
	}{
		{"plain", "128", 128, ""},
		{"padded", "  128  ", 128, ""},
		{"text after", "128 (some text)", 128, ""},
		{"text before", "about 64 nodes", 64, ""},
		{"letters after", "512procs", 512, ""},
		{"dash before text", "n-a 32", 32, ""},
		{"whole fraction", "128.0", 128, ""},
		{"exponent", "1e3", 1000, ""},
		{"exponent with sign", "2E+2 cores", 200, ""},
		{"e without digits", "16e", 16, ""},
		{"unknown", "-1", Unknown, ""},
		{"unknown with text", "-1 (not recorded)", Unknown, ""},
		{"largest", strconv.Itoa(MaxMachineProcs), MaxMachineProcs, ""},
		{"fraction", "3.5", 0, "not a whole number"},
		{"leading point", ".5", 0, "not a whole number"},
		{"thousands separator", "1,024", 0, "thousands separators"},
		{"empty", "", 0, "no number"},
		{"no digits", "unknown", 0, "no number"},
		{"NaN", "NaN", 0, "no number"},
		{"infinity", "Inf", 0, "no number"},
		{"lone dash", "-", 0, "no number"},
		{"zero", "0", 0, "at least one"},
		{"negative", "-5", 0, "at least one"},
		{"negative after text", "size -5 (unknown)", 0, "at least one"},
		{"negative exponent", "1e-3", 0, "not a whole number"},
		{"beyond the limit", strconv.Itoa(MaxMachineProcs + 1), 0, "more than 67108864"},
		{"beyond int64", "99999999999999999999999", 0, "more than 67108864"},
		{"below int64", "-99999999999999999999999", 0, "at least one"},
		{"overflowing exponent", "1e400", 0, "more than 67108864"},
		{"huge exponent form", "1.5e12", 0, "more than 67108864"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSize(tc.in)
			if tc.err == "" {
				if err != nil || got != tc.want {
					t.Errorf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseSize(%q) = %d, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			if strings.Contains(tc.err, "more than") != errors.Is(err, ErrLimit) {
				t.Errorf("parseSize(%q): error %v, wraps ErrLimit: %v", tc.in, err, errors.Is(err, ErrLimit))
			}
		})
	}
}

// FuzzParseSize checks that parseSize never panics and returns a size in
// range or an error.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"128", "1e3", "1e400", "-5", "0", "99999999999999999999", "NaN", "338 (batch partition; 512 total)", "1,024", ".5e1", "-1", "+7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err == nil && n != Unknown && (n < 1 || n > MaxMachineProcs) {
			t.Fatalf("parseSize(%q) = %d without an error", s, n)
		}
	})
}

// parseNumber parses b whole as one SWF number.
func parseNumber(b []byte) (v float64, isInt, ok bool) {
	v, isInt, end, ok := scanNumber(b, 0)
	return v, isInt, ok && end == len(b)
}

// TestParseNumber checks the fast path against strconv.ParseFloat: the result
// must be the correctly rounded value, bit for bit.
func TestParseNumber(t *testing.T) {
	tests := []struct {
		in    string
		ok    bool
		isInt bool
	}{
		{in: "0", ok: true, isInt: true},
		{in: "-0", ok: true, isInt: true},
		{in: "-1", ok: true, isInt: true},
		{in: "+7", ok: true, isInt: true},
		{in: "123456789012345", ok: true, isInt: true},
		{in: "1234567890123456", ok: true},
		{in: "000000000000000000001", ok: true},
		{in: "0.0000000000000000001", ok: true},
		{in: "0.1", ok: true},
		{in: "0.3", ok: true},
		{in: "123.456", ok: true},
		{in: "316.04", ok: true},
		{in: "1.3781", ok: true}, // 1 + 3781/1e4 would be 1.3780999999999999
		{in: "3.889", ok: true},
		{in: "9007199.254740993", ok: true},
		{in: "0.000000000000001", ok: true},
		{in: "1.7976931348623157", ok: true},
		{in: "-.5", ok: true},
		{in: "5.", ok: true},
		{in: "1e3", ok: true},
		{in: "NaN", ok: true},
		{in: "-Inf", ok: true},
		{in: "1E-3", ok: true},
		{in: "", ok: false},
		{in: "-", ok: false},
		{in: ".", ok: false},
		{in: "-.", ok: false},
		{in: "1.2.3", ok: false},
		{in: "1-2", ok: false},
		{in: "abc", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			v, isInt, ok := parseNumber([]byte(tc.in))
			if ok != tc.ok || isInt != tc.isInt {
				t.Fatalf("parseNumber(%q) = %v, isInt %v, ok %v; want isInt %v, ok %v", tc.in, v, isInt, ok, tc.isInt, tc.ok)
			}
			if !ok {
				return
			}
			want, err := strconv.ParseFloat(tc.in, 64)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(v) != math.Float64bits(want) {
				t.Errorf("parseNumber(%q) = %v (%x), ParseFloat = %v (%x)", tc.in, v, math.Float64bits(v), want, math.Float64bits(want))
			}
		})
	}
}

// TestScanNumberRandom compares scanNumber with strconv.ParseFloat on random
// decimals of up to 17 digits, written inside a line.
func TestScanNumberRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var line []byte
	for range 200000 {
		ip := rng.Uint64N(1e9)
		frac := rng.IntN(9)
		s := strconv.FormatUint(ip, 10)
		if rng.IntN(8) == 0 {
			s = "-" + s
		}
		if frac > 0 {
			s += "." + fmt.Sprintf("%0*d", frac, rng.Uint64N(uint64(math.Pow10(frac))))
		}
		line = append(append(append(line[:0], "12 "...), s...), " 3"...)
		v, isInt, end, ok := scanNumber(line, 3)
		want, _ := strconv.ParseFloat(s, 64)
		if !ok || end != 3+len(s) || isInt != (frac == 0) || math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("scanNumber(%q, 3) = %v, %v, %d, %v; want %v, %v, %d", line, v, isInt, end, ok, want, frac == 0, 3+len(s))
		}
	}
}

func TestParseStatuses(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{in: "", want: nil},
		{in: "  ", want: nil},
		{in: "1", want: []int{1}},
		{in: "0,1,5", want: []int{0, 1, 5}},
		{in: " 1 , 5 ", want: []int{1, 5}},
		{in: "-1", want: []int{-1}},
		{in: "1,x", wantErr: true},
		{in: "1,,2", wantErr: true},
		{in: "1,", wantErr: true},
		{in: "1.5", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseStatuses(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseStatuses(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "workload: ") || !strings.Contains(err.Error(), strconv.Quote(tc.in)) {
					t.Errorf("error %q should have the package prefix and quote the input", err)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseStatuses(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestRulesValidate(t *testing.T) {
	tests := []struct {
		name  string
		rules Rules
		bad   string // the rule name the error must mention, "" for valid
	}{
		{name: "zero value", rules: Rules{}},
		{name: "every alternative", rules: Rules{Procs: ProcsAllocated, ZeroRun: RunOneSecond, Estimate: EstimateRun, Overrun: OverrunExtend, Partial: PartialKeep, Statuses: []int{1}}},
		{name: "every default spelled out", rules: Rules{Procs: ProcsRequested, ZeroRun: RunDrop, Estimate: EstimateNone, Overrun: OverrunKill, Partial: PartialAuto}},
		{name: "partial drop", rules: Rules{Partial: PartialDrop}},
		{name: "procs", rules: Rules{Procs: "both"}, bad: "procs"},
		{name: "zero-run", rules: Rules{ZeroRun: "keep"}, bad: "zero-run"},
		{name: "estimate", rules: Rules{Estimate: "guess"}, bad: "estimate"},
		{name: "overrun", rules: Rules{Overrun: "Kill"}, bad: "overrun"},
		{name: "partial", rules: Rules{Partial: "double"}, bad: "partial"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.rules.Validate()
			if tc.bad == "" {
				if err != nil {
					t.Errorf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "workload: unknown "+tc.bad+" rule") || !strings.Contains(msg, "want one of") {
				t.Errorf("Validate() = %q, want it to name the %s rule and the valid values", msg, tc.bad)
			}
		})
	}
	d := Rules{}.WithDefaults()
	want := Rules{Procs: ProcsRequested, ZeroRun: RunDrop, Estimate: EstimateNone, Overrun: OverrunKill, Partial: PartialAuto}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("WithDefaults() = %+v, want %+v", d, want)
	}
	alt := Rules{Procs: ProcsAllocated, Overrun: OverrunExtend}
	if got := alt.WithDefaults(); got.Procs != ProcsAllocated || got.Overrun != OverrunExtend || got.ZeroRun != RunDrop {
		t.Errorf("WithDefaults() changed a set rule: %+v", got)
	}
}
