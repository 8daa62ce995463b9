package infer

import (
	"cmp"
	"fmt"
	"slices"
)

// qev is a job's submission or start.
type qev struct {
	j     *Job
	start bool
}

// queues finds an order of priority between queues: queue p ranks above
// queue q when p's jobs started ahead of q's jobs submitted before them,
// still waiting, often, and far more often than the reverse. Only the
// overtakes that backfilling cannot explain count: the waiting job asked
// for no more processors and no more time than the one that went ahead
// (it would have fit wherever and whenever that one ran), so only a
// priority put the later job first.
func (r *Result) queues(jobs []Job, opt Options) {
	evs := make([]qev, 0, 2*len(jobs))
	for i := range jobs {
		j := &jobs[i]
		evs = append(evs, qev{j, false}, qev{j, true})
	}
	at := func(e qev) (t int64, k int) {
		if e.start {
			return int64(e.j.Start), 1
		}
		return int64(e.j.Submit), 0
	}
	slices.SortStableFunc(evs, func(a, b qev) int {
		ta, ka := at(a)
		tb, kb := at(b)
		if c := cmp.Compare(ta, tb); c != 0 {
			return c
		}
		return cmp.Compare(ka, kb)
	})
	// waiting[q] holds the submission keys (submit, id) of q's queued
	// jobs, ascending.
	type key struct{ submit, id int64 }
	less := func(a, b key) int {
		if c := cmp.Compare(a.submit, b.submit); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	}
	waiting := map[int][]key{}
	byKey := map[key]*Job{}
	over := map[[2]int]int{} // over[{p, q}]: p's starts ahead of earlier q jobs
	for _, e := range evs {
		q := e.j.Queue
		k := key{int64(e.j.Submit), e.j.ID}
		if !e.start {
			w := waiting[q]
			i, _ := slices.BinarySearchFunc(w, k, less)
			waiting[q] = slices.Insert(w, i, k)
			byKey[k] = e.j
			continue
		}
		w := waiting[q]
		if i, ok := slices.BinarySearchFunc(w, k, less); ok {
			waiting[q] = slices.Delete(w, i, i+1)
		}
		for oq, ow := range waiting {
			if oq == q {
				continue
			}
			// Each pair's count is its own: map order does not reach it.
			n, _ := slices.BinarySearchFunc(ow, k, less)
			c := 0
			for _, wk := range ow[:n] {
				if asksNoMore(byKey[wk], e.j) {
					c++
				}
			}
			over[[2]int{q, oq}] += c
		}
	}
	qs := sortedKeys(waiting)
	if len(qs) < 2 {
		r.Notes = append(r.Notes, "queue priorities: not looked for (one queue)")
		return
	}
	ranks := map[int]*QueueRank{}
	for _, q := range qs {
		ranks[q] = &QueueRank{Queue: q}
	}
	for _, p := range qs {
		for _, q := range qs {
			a, b := over[[2]int{p, q}], over[[2]int{q, p}]
			if p != q && a >= opt.QueueMinOvertakes && float64(a) >= opt.QueueRatio*float64(b) {
				ranks[p].Above++
				ranks[q].Below++
				r.QueueEvidence = append(r.QueueEvidence, fmt.Sprintf("queue %d above queue %d: %d times a queue-%d job started ahead of a waiting queue-%d job submitted before it that asked for no more processors and no more time (counting each), against %d the other way.", p, q, a, p, q, b))
			}
		}
	}
	if len(r.QueueEvidence) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("queue priorities: none (no queue's jobs started ahead of another's earlier jobs %d times or more and %.0f times as often as the reverse)", opt.QueueMinOvertakes, opt.QueueRatio))
		return
	}
	for _, q := range qs {
		r.Queues = append(r.Queues, *ranks[q])
	}
	slices.SortStableFunc(r.Queues, func(a, b QueueRank) int {
		return cmp.Compare(b.Above-b.Below, a.Above-a.Below)
	})
	var levels []int
	for _, q := range r.Queues {
		levels = append(levels, q.Above-q.Below)
	}
	slices.Sort(levels)
	levels = slices.Compact(levels)
	for i := range r.Queues {
		k, _ := slices.BinarySearch(levels, r.Queues[i].Above-r.Queues[i].Below)
		r.Queues[i].Tier = k + 1
	}
}

// asksNoMore reports whether job a asked for no more processors and no
// more time than job b: a would have fit wherever and whenever b ran.
func asksNoMore(a, b *Job) bool {
	if a.Procs > b.Procs {
		return false
	}
	if b.ReqTime <= 0 {
		return true // b asked for no limit: a asked for no more
	}
	return a.ReqTime > 0 && a.ReqTime <= b.ReqTime
}
