package workload

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestParseColumns(t *testing.T) {
	tests := []struct {
		in   string
		bad  string // a substring of the error, "" for valid
		want map[target]binding
	}{
		{in: "pm100", want: map[target]binding{tSubmit: {source: "submit_time", unit: "timestamp"}, tReqTime: {source: "time_limit", unit: "min"},
			tAllocProcs: {source: "num_cores_alloc", optional: true}}},
		{in: "fdata", want: map[target]binding{tSubmit: {source: "adt", unit: "timestamp"}, tRun: {source: "duration", unit: "s"}, tReqProcs: {source: "cnumr"}}},
		{in: "native", want: map[target]binding{tJobID: {source: "job_id"}, tLicenses: {source: "licenses", optional: true}, tStart: {}}},
		{in: "pm100, requested_time=wall:s, user_id=-", want: map[target]binding{tReqTime: {source: "wall", unit: "s"}, tUser: {}, tJobID: {source: "job_id"}}},
		{in: " submit_time = t : MS , run_time=r:min?,requested_procs=p ", want: map[target]binding{tSubmit: {source: "t", unit: "ms"}, tRun: {source: "r", unit: "min", optional: true}, tJobID: {}}},
		{in: "submit_time=s,start_time=a,end_time=b,allocated_procs=n", want: map[target]binding{tStart: {source: "a"}, tEnd: {source: "b"}, tRun: {}}},
		{in: "", bad: "empty column mapping"},
		{in: "pm101", bad: "unknown column preset"},
		{in: "submit_time", bad: "unknown column preset"},
		{in: "pm100,job_id", bad: "want target=column"},
		{in: "pm100,jobid=x", bad: `unknown target "jobid"`},
		{in: "submit_time=s:kb,run_time=r,requested_procs=p", bad: `does not take unit "kb"`},
		{in: "submit_time=s,run_time=r:timestamp,requested_procs=p", bad: `does not take unit "timestamp"`},
		{in: "submit_time=s,run_time=r,requested_procs=p:s", bad: "want no unit"},
		{in: "submit_time=s,run_time=r,requested_procs=p,run_time=q", bad: "twice"},
		{in: "run_time=r,requested_procs=p", bad: "does not map submit_time"},
		{in: "submit_time=s,requested_procs=p", bad: "neither run_time"},
		{in: "submit_time=s,run_time=r", bad: "neither requested_procs"},
		{in: "submit_time=s:timestamp,start_time=a:s,run_time=r,requested_procs=p", bad: "both be absolute"},
		{in: "submit_time=,run_time=r,requested_procs=p", bad: "bad column name"},
		{in: "submit_time=a=b,run_time=r,requested_procs=p", bad: "bad column name"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			m, err := ParseColumns(tc.in)
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("error %v, want one with %q", err, tc.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for tg, b := range tc.want {
				if m.b[tg] != b {
					t.Errorf("%s: %+v, want %+v", targetInfo[tg].name, m.b[tg], b)
				}
			}
			again, err := ParseColumns(m.String())
			if err != nil || again.b != m.b {
				t.Errorf("String() = %q does not parse back to the same mapping: %v", m.String(), err)
			}
		})
	}
	if got := ColumnPresets(); strings.Join(got, ",") != "fdata,native,pm100" {
		t.Errorf("ColumnPresets() = %v", got)
	}
	if s := NativeColumns().String(); s != "native" {
		t.Errorf("NativeColumns().String() = %q, want native", s)
	}
}

// FuzzColumns feeds arbitrary text to the mapping parser: it must not
// panic, and a mapping it accepts must print as text that parses back to
// the same mapping.
func FuzzColumns(f *testing.F) {
	for _, s := range []string{"pm100", "fdata", "native", "native,run_time=-", "pm100,requested_time=wall:S?",
		"submit_time=a:unix_ms,run_time=b:ms,requested_procs=c,user_id=d?", "=,", ",,,", "submit_time=:?", "a=b:c:d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseColumns(s)
		if err != nil {
			if m != nil {
				t.Fatal("a mapping with an error")
			}
			return
		}
		again, err := ParseColumns(m.String())
		if err != nil {
			t.Fatalf("%q parsed, printed as %q, which does not parse: %v", s, m.String(), err)
		}
		if again.b != m.b {
			t.Fatalf("%q parsed, printed as %q, parsed again differently", s, m.String())
		}
	})
}

// FuzzParquetReader mutates small Parquet files, in schedsim's schema and
// in PM100's: reading must never panic, and must give a valid job stream or
// a *ParseError.
func FuzzParquetReader(f *testing.F) {
	cfg := GenConfig{Jobs: 40, Procs: 16, Seed: 2, Load: 0.9}
	var b bytes.Buffer
	w, _ := NewParquetWriter(&b, cfg.Header())
	Generate(cfg, w.Write)
	w.Close()
	f.Add(b.Bytes(), false)
	f.Add(b.Bytes()[:b.Len()/2], false)
	pm := writePQ(f, pm100Cols(parquet.Microsecond), [][]any{
		{int64(1), int64(7), "COMPLETED", int64(1e12), int64(1e12 + 5e6), int64(1e12 + 9e6), int64(10), int64(4), int64(2), int64(2), int64(1), int64(3), "q", "n1"},
		{int64(2), nil, "FAILED", int64(2e12), nil, nil, nil, nil, int64(2), nil, int64(1), nil, nil, "n2"},
	}, 1)
	f.Add(pm, true)
	pmMap, _ := ParseColumns("pm100")
	f.Fuzz(func(t *testing.T, data []byte, usePM bool) {
		var opts []Option
		if usePM {
			opts = append(opts, WithColumns(pmMap))
		}
		r, err := NewReader(bytes.NewReader(data), "fuzz.parquet", Rules{}, opts...)
		if err != nil {
			checkParquetFuzzError(t, err)
			return
		}
		defer r.Close()
		var j Job
		last := Time(-1)
		for range 100000 {
			err := r.Next(&j)
			if err == io.EOF {
				return
			}
			if err != nil {
				checkParquetFuzzError(t, err)
				return
			}
			if j.Procs <= 0 || j.Run <= 0 || (j.Estimate != Unknown && j.Estimate <= 0) || j.Submit < last {
				t.Fatalf("bad job: %+v after submit %d", j, last)
			}
			last = j.Submit
		}
	})
}

func checkParquetFuzzError(t *testing.T, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	if pe.Path != "fuzz.parquet" || pe.Err == nil || pe.Row < 0 {
		t.Fatalf("malformed ParseError %#v", pe)
	}
	_ = pe.Error()
}
