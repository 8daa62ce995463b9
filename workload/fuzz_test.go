package workload

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"testing"
)

// fuzzSeeds are small SWF texts, valid and not, for the fuzz corpora.
var fuzzSeeds = []string{
	"",
	"\n",
	"; Version: 2.2\n; MaxProcs: 128 (some text)\n; Preemption: Double\n" +
		"1 0 -1 100 4 -1 -1 4 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n" +
		"2 5 -1 0 4 -1 -1 -1 -1 -1 2 -1 -1 -1 -1 -1 -1 -1\n",
	"1 0 3.5 99.5 8 45.25 1024 16 3600 2048 1 12 13 14 15 16 6 17.5\r\n2 0.4 -1 -1 -1 -1 -1 -1 -1 -1 5 -1 -1 -1 -1 -1 -1 -1\r\n",
	";\tMaxNodes:\t64\n\n  \t\n1 -1 -1 10 1 -1 -1 1 5 -1 0 -1 -1 -1 -1 -1 -1 -1\n; comment\n2 3 -1 1e2 2 -1 -1 2 2.5E2 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
	"1 0 -1 100 4 -1 -1 4 200 -1 1 -1 -1 -1 -1 -1 -1\n",
	"1 0 -1 100 4 -1 -1 4 200 -1 1 -1 -1 -1 -1 -1 -1 -1 9\n",
	"1 0 -1 NaN 4.5 -1 -1 4 Inf -1 1 -1 -1 -1 -1 -1 -1 -1\n",
	"1 9 -1 1 1 -1 -1 1 1 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 8 -1 1 1 -1 -1 1 1 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
	"1 +0 -.5 5. 1 -1 -1 1 . -1 1 -1 -1 -1 -1 -1 -1 -1\n",
}

// FuzzSWFReader feeds arbitrary bytes to the reader under several rule sets:
// it must never panic, and must give either a valid job stream or a
// *ParseError.
func FuzzSWFReader(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(0xff))
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(fuzzSeeds[2]))
	zw.Close()
	f.Add(b.Bytes(), uint8(1))
	f.Add(b.Bytes()[:b.Len()-5], uint8(2))

	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		rules := Rules{}
		if mode&1 != 0 {
			rules.Procs = ProcsAllocated
		}
		if mode&2 != 0 {
			rules.ZeroRun = RunOneSecond
		}
		if mode&4 != 0 {
			rules.Estimate = EstimateRun
		}
		if mode&8 != 0 {
			rules.Overrun = OverrunExtend
		}
		switch mode >> 4 & 3 {
		case 1:
			rules.Partial = PartialDrop
		case 2:
			rules.Partial = PartialKeep
		}
		if mode&64 != 0 {
			rules.Statuses = []int{0, 1, 5}
		}
		checkFuzzBatch(t, data, rules)
		r, err := NewSWFReader(bytes.NewReader(data), "fuzz.swf", rules)
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		defer r.Close()
		var j Job
		last := Time(-1)
		var kept int64
		for {
			err := r.Next(&j)
			if err == io.EOF {
				break
			}
			if err != nil {
				checkFuzzError(t, err)
				return
			}
			kept++
			if j.Procs <= 0 || j.Run <= 0 || (j.Estimate != Unknown && j.Estimate <= 0) {
				t.Fatalf("bad job: procs %d, run %d, estimate %d", j.Procs, j.Run, j.Estimate)
			}
			if j.Submit < last {
				t.Fatalf("submit %d after %d", j.Submit, last)
			}
			last = j.Submit
			if rules.Estimate == EstimateRun && !j.HasEstimate() {
				t.Fatalf("rule runtime left a job without an estimate")
			}
			if rules.Overrun == OverrunExtend && j.Killed() {
				t.Fatalf("rule extend left a job to be killed: run %d, estimate %d", j.Run, j.Estimate)
			}
			if j.ActualRun() <= 0 || j.ActualRun() > j.Run {
				t.Fatalf("ActualRun %d of run %d", j.ActualRun(), j.Run)
			}
		}
		st := r.Stats()
		dropped := st.DroppedProcs + st.DroppedRun + st.DroppedStatus + st.DroppedPartial + st.DroppedSubmitUnset
		if st.Kept != kept || st.Kept+dropped != st.Records {
			t.Fatalf("stats %+v: kept %d, dropped %d", st, kept, dropped)
		}
	})
}

// checkFuzzBatch reads data with Open's checks (under each duplicate
// rule) job by job and through Prefetch, which reads a batch at
// a time: the jobs, the error and the counts must be the same.
func checkFuzzBatch(t *testing.T, data []byte, rules Rules) {
	t.Helper()
	for _, dup := range []DuplicateRule{DuplicateError, DuplicateKeep, DuplicateDrop} {
		rules.Duplicate = dup
		direct, err := NewReader(bytes.NewReader(data), "fuzz.swf", rules)
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		want, wantErr := readEvery(direct)
		r, err := NewReader(bytes.NewReader(data), "fuzz.swf", rules)
		if err != nil {
			t.Fatalf("second NewReader: %v", err)
		}
		p := Prefetch(r)
		got, gotErr := readEvery(p)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) || p.Stats() != direct.Stats() {
			t.Fatalf("rule %s: Prefetch gives %d jobs, %v, %+v; Next %d jobs, %v, %+v", dup, len(got), gotErr, p.Stats(), len(want), wantErr, direct.Stats())
		}
		p.Close()
		direct.Close()
	}
}

func checkFuzzError(t *testing.T, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	if pe.Path != "fuzz.swf" || pe.Err == nil || pe.Field < 0 || pe.Field > 18 || pe.Line < 0 {
		t.Fatalf("malformed ParseError %#v", pe)
	}
	_ = pe.Error()
}
