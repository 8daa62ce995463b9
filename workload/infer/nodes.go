package infer

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/schedsim/schedsim/workload"
)

// occurrence is one interval during which a reservation holds procs
// processors.
type occurrence struct {
	from, to workload.Time
	procs    int
}

// occurrences expands the reservations (capacity, outages, drains) into
// their intervals up to the log's last end.
func (r *Result) occurrences(last workload.Time) []occurrence {
	var occ []occurrence
	for _, res := range slices.Concat(r.Capacity, r.Outages, r.Drains) {
		procs := res.Procs
		if procs <= 0 || procs > r.Procs {
			procs = r.Procs
		}
		if res.Recur == "once" || res.Recur == "" {
			occ = append(occ, occurrence{res.Start, res.Start + res.DurationSec, procs})
			continue
		}
		end := last
		if res.Until > 0 {
			end = min(end, res.Until)
		}
		first := r.wall(r.Log.Epoch, res.Start)
		for k := 0; ; k++ {
			t := first.AddDate(0, 0, k)
			s := workload.Time(t.Unix() - r.Log.Epoch)
			if s > end {
				break
			}
			if res.occursOn(t.Weekday()) {
				occ = append(occ, occurrence{s, s + res.DurationSec, procs})
			}
		}
	}
	return occ
}

// WriteNodeEvents writes the capacity timeline, the outages and the
// recurring drains as a --node-events file on the processor pool (one
// processor per node), or on the inferred cluster's nodes (whole nodes,
// rounded up) when nodes were inferred: at each change, the processors held go DRAIN or
// RESUME, the highest numbers first held. Overlapping reservations hold
// the larger of their processor counts. Node events are what an engine
// without reservations runs: nothing new starts on a drained processor,
// but a job already running there is not stopped, and no job is kept
// from running into a drain. The file ends with every processor resumed.
func (r *Result) WriteNodeEvents(w io.Writer) error {
	var last workload.Time
	for _, j := range r.Log.Jobs {
		last = max(last, j.End)
	}
	occ := r.occurrences(last)
	type edge struct {
		t     workload.Time
		procs int // +procs at a start, -procs at an end
	}
	var edges []edge
	for _, o := range occ {
		if o.to > o.from {
			edges = append(edges, edge{o.from, o.procs}, edge{o.to, -o.procs})
		}
	}
	slices.SortStableFunc(edges, func(a, b edge) int { return cmp.Compare(a.t, b.t) })
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# Node events inferred by schedsim infer from %s: the capacity timeline, planned outages and recurring drains,\n", baseName(r.Log.Name))
	// On inferred nodes of k processors, a reservation holds whole nodes
	// (its processors rounded up) of the [cluster] the scenario writes.
	unit := max(1, r.NodeSize)
	total := r.Procs / unit
	if unit > 1 {
		fmt.Fprintf(b, "# on the scenario's cluster of %d nodes of %d processors. TIME STATE NODES REASON\n", total, unit)
	} else {
		fmt.Fprintf(b, "# on the processor pool of %d processors (one per node; --node-size 1). TIME STATE NODES REASON\n", r.Procs)
	}
	active := map[int]int{} // processor count → active occurrences holding it
	held := 0
	for i := 0; i < len(edges); {
		t := edges[i].t
		for ; i < len(edges) && edges[i].t == t; i++ {
			e := edges[i]
			if e.procs > 0 {
				active[e.procs]++
			} else {
				active[-e.procs]--
				if active[-e.procs] == 0 {
					delete(active, -e.procs)
				}
			}
		}
		now := 0
		for p := range active {
			now = max(now, p) // the maximum does not depend on the map's order
		}
		now = min(total, (now+unit-1)/unit)
		switch {
		case now > held:
			fmt.Fprintf(b, "%d DRAIN %s reserved (inferred)\n", t, nodeRange(total-now, total-held-1))
		case now < held:
			fmt.Fprintf(b, "%d RESUME %s reservation over\n", t, nodeRange(total-held, total-now-1))
		}
		held = now
	}
	return b.Flush()
}

// nodeRange writes the processors lo..hi as node numbers.
func nodeRange(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}
