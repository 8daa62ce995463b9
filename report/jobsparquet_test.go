package report

import (
	"bytes"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// parquetRecords returns n records of every state a row can have: ran
// (with and without energy, an execution time of 0), rejected, failed.
func parquetRecords(n int) []sim.Record {
	recs := make([]sim.Record, n)
	for i := range recs {
		j := &workload.Job{ID: int64(i + 1), Seq: int64(i), Submit: workload.Time(10 * i), Procs: 1 + i%7, Estimate: workload.Time(100 + i)}
		if i%5 == 0 {
			j.Estimate = workload.Unknown
		}
		r := sim.Record{Job: j, State: sim.Completed, Start: j.Submit + workload.Time(i%13), Alloc: []cluster.Range{{Lo: i % 3, Hi: i%3 + j.Procs}}}
		r.End = r.Start + workload.Time(i%11)
		switch i % 6 {
		case 1:
			r.State, r.Start, r.End, r.Alloc, r.Reason = sim.Rejected, j.Submit, j.Submit, nil, "too large, \"quoted\""
		case 2:
			r.HasEnergy, r.Energy = true, 1.0/3+float64(i)
		case 3:
			r.State = sim.Killed
		}
		recs[i] = r
	}
	return recs
}

// A jobs.parquet written in two parts — the rows up to a checkpoint taken
// with TakeRows and given back to a new writer's Replay, then the rest —
// is byte for byte the file written in one go, with and without the
// trace's start (timestamp columns).
func TestJobsParquetReplay(t *testing.T) {
	recs := parquetRecords(3000)
	hdr := &workload.Header{Fields: []workload.HeaderField{{Key: "UnixStartTime", Value: "1027839845"}, {Key: "MaxProcs", Value: "16"}}, MaxProcs: 16}
	for _, tc := range []struct {
		name   string
		header *workload.Header
		cuts   []int
	}{
		{"no start", nil, []int{1000}},
		{"start", hdr, []int{0, 17, 2999}},
		{"every row", hdr, []int{1, 2, 3, 4, 3000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write := func(p *JobsParquet, recs []sim.Record) {
				for i := range recs {
					p.JobDone(&recs[i])
				}
			}
			var whole bytes.Buffer
			p := NewJobsParquet(&whole, "w")
			p.SetHeader(tc.header)
			write(p, recs)
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			// The first run stops at every cut, taking the rows.
			var taken []byte
			var discard bytes.Buffer
			first := NewJobsParquet(&discard, "w")
			first.SetHeader(tc.header)
			first.Journal()
			from := 0
			for _, cut := range tc.cuts {
				write(first, recs[from:cut])
				taken = append(taken, first.TakeRows()...)
				from = cut
			}
			var resumed bytes.Buffer
			p = NewJobsParquet(&resumed, "w")
			p.SetHeader(tc.header)
			if err := p.Replay(taken); err != nil {
				t.Fatal(err)
			}
			write(p, recs[from:])
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(resumed.Bytes(), whole.Bytes()) {
				t.Fatalf("resumed file of %d bytes differs from the whole one of %d", resumed.Len(), whole.Len())
			}
		})
	}
}

// Rows that do not decode, or end inside a row, are refused by Replay.
func TestJobsParquetReplayBad(t *testing.T) {
	var b bytes.Buffer
	p := NewJobsParquet(&b, "w")
	p.Journal()
	recs := parquetRecords(3)
	for i := range recs {
		p.JobDone(&recs[i])
	}
	rows := p.TakeRows()
	for _, bad := range [][]byte{rows[:len(rows)-1], rows[:len(rows)/2], append(bytes.Clone(rows), 'x'), {'s', 0xff}, {'d', 1}} {
		if err := NewJobsParquet(&b, "w").Replay(bad); err == nil {
			t.Errorf("rows %q accepted", bad)
		}
	}
	if err := NewJobsParquet(&b, "w").Replay(rows); err != nil {
		t.Error(err)
	}
}

// FuzzJobsParquetRows: no input makes the rows' decoder panic, and what it
// accepts ends with a whole row.
func FuzzJobsParquetRows(f *testing.F) {
	var b bytes.Buffer
	p := NewJobsParquet(&b, "w")
	p.Journal()
	recs := parquetRecords(7)
	for i := range recs {
		p.JobDone(&recs[i])
	}
	f.Add(p.TakeRows())
	f.Add([]byte("i\x02e"))
	f.Fuzz(func(t *testing.T, rows []byte) {
		if checkRows(rows) == nil && len(rows) > 0 && rows[len(rows)-1] != 'e' {
			t.Fatalf("accepted rows %q that end inside a row", rows)
		}
	})
}
