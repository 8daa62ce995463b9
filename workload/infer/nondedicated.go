package infer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// nonDedicated finds, on a time-shared machine, which queues ran beside
// the others: the fewest queues (taken greedily, each the one whose jobs
// left out bring the overlap down most) without which the recorded jobs
// held more processors than the machine on under NonDedicatedFrac of the
// samples. Their jobs time-shared the processors; the other queues' jobs
// fit the machine as if they had it to themselves (dedicated). They are
// written as shared_queues (Result.Shared): the scenario key that starts
// a queue's jobs when they reach the scheduler and their start windows
// let them, on whatever processors are free, held only by reservations of
// the whole machine; with NonDedicatedNote they are only said in a note.
// Not immediate_queues, which starts each job at its submission whatever
// its windows, as these queues' jobs did not all do (the immediate
// queues' rule finds those that did). Neither the immediate queues nor
// jobs of no known queue (-1) are candidates.
func (r *Result) nonDedicated(jobs []Job, opt Options) {
	if !r.TimeShared || opt.NonDedicatedFrac <= 0 || r.Procs <= 0 {
		return
	}
	byQueue := map[int][]Job{}
	for _, j := range jobs {
		byQueue[j.Queue] = append(byQueue[j.Queue], j)
	}
	qs := sortedKeys(byQueue)
	if len(qs) < 2 {
		return
	}
	imm := r.immediateSet()
	// busy[i][k]: queue qs[i]'s processors at sample k.
	tl := newTimeline(jobs)
	var steps []workload.Time
	for t := tl.first; t < tl.last; t += opt.CapSampleSec {
		steps = append(steps, t)
	}
	total := make([]int64, len(steps))
	for k, t := range steps {
		total[k] = tl.busy(t)
	}
	busy := make([][]int64, len(qs))
	for i, q := range qs {
		qt := newTimeline(byQueue[q])
		busy[i] = make([]int64, len(steps))
		for k, t := range steps {
			busy[i][k] = qt.busy(t)
		}
	}
	overFrac := func(left []int64) float64 {
		n := 0
		for _, b := range left {
			if b > int64(r.Procs) {
				n++
			}
		}
		return float64(n) / float64(len(left))
	}
	left := append([]int64(nil), total...)
	var chosen []int
	frac := overFrac(left)
	for frac >= opt.NonDedicatedFrac && len(chosen) < len(qs)-1 {
		best, bestFrac := -1, frac
		for i := range qs {
			if containsInt(chosen, i) || qs[i] < 0 || imm[qs[i]] {
				continue
			}
			n := 0
			for k := range left {
				if left[k]-busy[i][k] > int64(r.Procs) {
					n++
				}
			}
			if f := float64(n) / float64(len(left)); f < bestFrac {
				best, bestFrac = i, f
			}
		}
		if best < 0 {
			break
		}
		chosen = append(chosen, best)
		for k := range left {
			left[k] -= busy[best][k]
		}
		frac = bestFrac
	}
	if frac >= opt.NonDedicatedFrac || len(chosen) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("non-dedicated queues: none found (no set of queues but one without which the recorded jobs stay within the machine in all but %.1f %% of the steps)", 100*opt.NonDedicatedFrac))
		return
	}
	var names []string
	var n, prompt int
	for _, i := range chosen {
		names = append(names, strconv.Itoa(qs[i]))
		for _, j := range byQueue[qs[i]] {
			n++
			if j.Start-j.Submit <= 60 {
				prompt++
			}
		}
	}
	which := fmt.Sprintf("%s (%d jobs, %.1f %% of them started within a minute)", strings.Join(names, ", "), n, 100*float64(prompt)/float64(max(n, 1)))
	if opt.NonDedicatedNote {
		r.Notes = append(r.Notes, fmt.Sprintf("non-dedicated queues: %s: without their jobs the others held more than the machine in %.1f %% of the steps (--non-dedicated %.1f %%),",
			which, 100*frac, 100*opt.NonDedicatedFrac),
			"  so these queues' jobs ran beside the others, time-shared, and the others had the machine to themselves; not written as shared_queues (--non-dedicated-note)")
		return
	}
	for _, i := range chosen {
		r.Shared = append(r.Shared, qs[i])
	}
	slices.Sort(r.Shared)
	r.SharedEvidence = []string{
		fmt.Sprintf("evidence: the recorded jobs held more than the machine's %d processors in %.1f %% of the %s steps (time sharing); without the jobs of %s %s,",
			r.Procs, 100*overFrac(total), durationText(opt.CapSampleSec), plural(len(names), "queue", "queues"), which),
		fmt.Sprintf("the others held more than the machine in %.1f %% of the steps (under %.1f %%, --non-dedicated): these queues' jobs ran beside the others, time-shared, and the others had the machine to themselves.",
			100*frac, 100*opt.NonDedicatedFrac),
	}
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sharedList writes the shared queues as the scenario key takes them: a
// TOML string of comma-separated queue numbers ("1,3").
func (r *Result) sharedList() string {
	qs := make([]string, len(r.Shared))
	for i, q := range r.Shared {
		qs[i] = strconv.Itoa(q)
	}
	return strconv.Quote(strings.Join(qs, ","))
}

// sharedSet reports which queues are shared.
func (r *Result) sharedSet() map[int]bool {
	set := map[int]bool{}
	for _, q := range r.Shared {
		set[q] = true
	}
	return set
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
