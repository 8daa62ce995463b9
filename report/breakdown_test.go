package report

import (
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// TestBreakdownTables: users ranked by total wait and by use, the ones
// past BreakdownTop summed in one row, the longest waits longest first
// with their reasons, and a dimension with one value left out.
func TestBreakdownTables(t *testing.T) {
	b := NewBreakdown(nil)
	var recs []sim.Record
	// User u (0..14) submits u+1 jobs of 2 processors, each waiting 100·u
	// seconds and running 10; user 14's last job also waits a day.
	id := int64(0)
	for u := 0; u < 15; u++ {
		for k := 0; k <= u; k++ {
			id++
			j := &workload.Job{ID: id, Submit: 0, Procs: 2, Run: 10, User: u, Group: -1, Queue: 3, Partition: -1}
			wait := workload.Time(100 * u)
			if u == 14 && k == u {
				wait = 86400
			}
			recs = append(recs, sim.Record{Job: j, State: sim.Completed, Start: wait, End: wait + 10, Pending: sim.PendingResources})
		}
	}
	recs = append(recs, sim.Record{Job: &workload.Job{ID: 999, Procs: 99, User: 1}, State: sim.Rejected})
	replay(recs, b)
	got := b.Breakdowns()
	if got.Groups != nil || got.Queues != nil || got.Partitions != nil {
		t.Errorf("dimensions with one value have tables: %+v %+v %+v", got.Groups, got.Queues, got.Partitions)
	}
	u := got.Users
	if u == nil || u.Distinct != 15 || len(u.ByWait) != BreakdownTop+1 || len(u.ByUse) != BreakdownTop+1 {
		t.Fatalf("users table %+v", u)
	}
	for i, want := range []string{"14", "13", "12"} {
		if u.ByWait[i].Name != want {
			t.Errorf("by wait, row %d: %s, want %s", i, u.ByWait[i].Name, want)
		}
	}
	// User 14: 14 jobs of 1400 s and one of 86400 s.
	if w := u.ByWait[0]; w.Jobs != 15 || w.WaitTotalSec != 14*1400+86400 || w.WaitMaxSec != 86400 {
		t.Errorf("user 14: %+v", w)
	}
	rest := u.ByWait[BreakdownTop]
	// Users 0..4 are the rest: 1+2+3+4+5 jobs, waits Σ (u+1)·100·u.
	if rest.Name != "others" || rest.Others != 5 || rest.Jobs != 15 || rest.WaitTotalSec != 0+200+600+1200+2000 || rest.WaitMaxSec != 400 {
		t.Errorf("rest row %+v", rest)
	}
	var share float64
	for _, g := range u.ByUse {
		share += g.UseShare
	}
	if share < 0.999999 || share > 1.000001 {
		t.Errorf("shares of use add up to %v", share)
	}
	if len(got.LongestWaits) != LongestWaits || got.LongestWaits[0].ID != id || got.LongestWaits[0].WaitSec != 86400 ||
		got.LongestWaits[0].Reason != "resources" || got.LongestWaits[0].Partition != "unknown" {
		t.Errorf("longest waits %+v", got.LongestWaits[:2])
	}
	for i := 1; i < len(got.LongestWaits); i++ {
		a, c := got.LongestWaits[i-1], got.LongestWaits[i]
		if a.WaitSec < c.WaitSec || a.WaitSec == c.WaitSec && a.ID > c.ID {
			t.Errorf("longest waits out of order at %d: %+v, %+v", i, a, c)
		}
	}
	// A checkpoint's round trip keeps everything.
	data, err := b.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	c := NewBreakdown(nil)
	if err := c.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	var buf1, buf2 []byte
	s1, s2 := Summary{Breakdowns: got}, Summary{Breakdowns: c.Breakdowns()}
	for _, x := range []struct {
		s   *Summary
		out *[]byte
	}{{&s1, &buf1}, {&s2, &buf2}} {
		var w sliceWriter
		if err := WriteSummaryJSON(&w, x.s); err != nil {
			t.Fatal(err)
		}
		*x.out = w
	}
	if string(buf1) != string(buf2) {
		t.Error("the breakdown differs after a checkpoint's round trip")
	}
}

type sliceWriter []byte

func (w *sliceWriter) Write(p []byte) (int, error) { *w = append(*w, p...); return len(p), nil }

// TestPartitionLoss: a partition's loss counts its own nodes' idle
// processors against its own waiting jobs, not another partition's.
//
//	nodes a0, a1 (2 cores each) = partition "small" (SWF 1); node b0 (4 cores) = "big" (SWF 2)
//	job 1: small, 4 procs, 0–10 on a0, a1
//	job 2: small, 2 procs, submitted 0, starts 15, ends 25 on a0: waits 15 s, of which 10–15 with 4 idle
//	job 3: big, 4 procs, 5–30 on b0, no wait; job 4: big, 4 procs, submitted 0, starts 30, ends 40 on b0
//
// small: loss = min(4 idle, 2 queued) · 5 s = 10; busy 4·10 + 2·10 = 60.
// big: idle 4 from 0 to 5 while job 4 waits: loss 4·5 = 20; busy 4·25 + 4·10 = 140.
func TestPartitionLoss(t *testing.T) {
	spec := &cluster.Spec{Select: cluster.SelectLinear,
		Groups:     []cluster.NodeGroup{{Name: "a", Count: 2, Cores: 2}, {Name: "b", Count: 1, Cores: 4}},
		Partitions: []cluster.Partition{{Name: "small", Groups: []string{"a"}, SWF: 1, Default: true}, {Name: "big", Groups: []string{"b"}, SWF: 2}}}
	b := NewBreakdown(spec)
	job := func(id int64, part, procs int, submit workload.Time) *workload.Job {
		return &workload.Job{ID: id, Submit: submit, Procs: procs, Partition: part, User: int(id)}
	}
	rg := func(lo, hi int) []cluster.Range { return []cluster.Range{{Lo: lo, Hi: hi}} }
	replay([]sim.Record{
		{Job: job(1, 1, 4, 0), Start: 0, End: 10, Alloc: rg(0, 2)},
		{Job: job(2, 1, 2, 0), Start: 15, End: 25, Alloc: rg(0, 1)},
		{Job: job(3, 2, 4, 5), Start: 5, End: 30, Alloc: rg(2, 3)},
		{Job: job(4, 2, 4, 0), Start: 30, End: 40, Alloc: rg(2, 3)},
	}, b)
	got := b.Breakdowns()
	want := []PartitionLoss{
		{Name: "small", Procs: 4, Jobs: 2, LossProcSec: 10, LossOfCapacity: 10.0 / (4 * 40), Utilisation: 60.0 / (4 * 40)},
		{Name: "big", Procs: 4, Jobs: 2, LossProcSec: 20, LossOfCapacity: 20.0 / (4 * 40), Utilisation: 140.0 / (4 * 40)},
	}
	if len(got.PartitionLoss) != 2 || got.PartitionLoss[0] != want[0] || got.PartitionLoss[1] != want[1] {
		t.Errorf("partition loss\n got %+v\nwant %+v", got.PartitionLoss, want)
	}
	if got.Partitions == nil || got.Partitions.ByWait[0].Name != "big" || got.LongestWaits[0].Partition != "big" {
		t.Errorf("partitions by name: %+v, longest %+v", got.Partitions, got.LongestWaits[0])
	}
}
