package report

import (
	"fmt"
	"strconv"
)

// breakdownTables returns report.html's tables of b: the longest waits
// with why, each partition's loss of capacity, and per user, group, queue
// and partition the top by total wait and by use.
func breakdownTables(b *Breakdowns) []pageTable {
	if b == nil {
		return nil
	}
	var out []pageTable
	if len(b.LongestWaits) > 0 {
		t := pageTable{ID: "longest-waits", Title: fmt.Sprintf("The %d longest waits", len(b.LongestWaits)),
			Note: "Why: the engine's last pending reason — priority (jobs ahead of it went first), resources (it was next, too few processors idle), " +
				"held by the policy (it was next and processors were idle: a filter, a limit or a reservation kept it), hold until (its hold time).",
			Head: []string{"job", "wait", "why", "processors", "user", "group", "queue", "partition", "submit (s)", "start (s)"}}
		for _, l := range b.LongestWaits {
			t.Rows = append(t.Rows, []pageCell{{Text: strconv.FormatInt(l.ID, 10)}, {Text: durationText(float64(l.WaitSec))}, {Text: l.Reason},
				{Text: strconv.Itoa(l.Procs)}, {Text: swfName(l.User)}, {Text: swfName(l.Group)}, {Text: swfName(l.Queue)}, {Text: l.Partition},
				{Text: strconv.FormatInt(int64(l.Submit), 10)}, {Text: strconv.FormatInt(int64(l.Start), 10)}})
		}
		out = append(out, t)
	}
	if len(b.PartitionLoss) > 0 {
		t := pageTable{ID: "partition-loss", Title: "Loss of capacity per partition",
			Note: "Idle processors of each partition's nodes that its waiting jobs could have used, over the makespan. A node in two partitions counts in both.",
			Head: []string{"partition", "processors", "jobs", "utilisation", "loss of capacity", "loss (processor-h)"}}
		for _, p := range b.PartitionLoss {
			t.Rows = append(t.Rows, []pageCell{{Text: p.Name}, {Text: strconv.Itoa(p.Procs)}, {Text: strconv.FormatInt(p.Jobs, 10)},
				{Text: fmt.Sprintf("%.1f %%", 100*p.Utilisation)}, {Text: fmt.Sprintf("%.2f %%", 100*p.LossOfCapacity)},
				{Text: fmt.Sprintf("%.0f", float64(p.LossProcSec)/3600)}})
		}
		out = append(out, t)
	}
	for _, d := range []struct {
		id, name string
		t        *GroupTable
	}{{"users", "user", b.Users}, {"groups", "group (account)", b.Groups}, {"queues", "queue", b.Queues}, {"partitions", "partition", b.Partitions}} {
		if d.t == nil {
			continue
		}
		for _, by := range []struct {
			id, title string
			rows      []GroupStats
		}{{"wait", "longest total wait", d.t.ByWait}, {"use", "most processor-time used", d.t.ByUse}} {
			t := pageTable{ID: "by-" + d.id + "-" + by.id,
				Title: fmt.Sprintf("By %s: the %d with the %s", d.name, min(b.Top, d.t.Distinct), by.title),
				Note:  fmt.Sprintf("%d distinct values among the jobs that ran; the rest are summed in the last row.", d.t.Distinct),
				Head:  []string{d.name, "jobs", "killed", "total wait (h)", "wait mean", "wait max", "processor-h used", "share of use"}}
			for _, g := range by.rows {
				first := pageCell{Text: g.Name}
				if g.Others > 0 {
					first = pageCell{Text: fmt.Sprintf("the other %d", g.Others), Class: "rest"}
				}
				t.Rows = append(t.Rows, []pageCell{first, {Text: strconv.FormatInt(g.Jobs, 10)}, {Text: strconv.FormatInt(g.Killed, 10)},
					{Text: fmt.Sprintf("%.1f", float64(g.WaitTotalSec)/3600)}, {Text: durationText(g.WaitMeanSec)},
					{Text: durationText(float64(g.WaitMaxSec))}, {Text: fmt.Sprintf("%.1f", float64(g.ProcSec)/3600)},
					{Text: fmt.Sprintf("%.1f %%", 100*g.UseShare)}})
			}
			out = append(out, t)
		}
	}
	return out
}

// swfName shows an SWF number, -1 as "unknown".
func swfName(v int) string {
	if v < 0 {
		return "unknown"
	}
	return strconv.Itoa(v)
}
