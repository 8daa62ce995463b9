package cluster

import (
	"fmt"
	"slices"

	"github.com/schedsim/schedsim/workload"
)

// Held is an allocation that ends at a known (predicted) time: a running
// job, for WillRun.
type Held struct {
	End   workload.Time // predicted end
	Req   Request       // what the job asked for
	Alloc []Range       // where it runs (as committed)
}

// Clone returns an independent copy of the selector's state.
func (l *Linear) Clone() *Linear {
	c := *l
	c.sum = l.sum // never changed after NewLinear
	c.spans = slices.Clone(l.spans)
	c.jobs = slices.Clone(l.jobs)
	c.runs = nil
	return &c
}

// Clone returns an independent copy of the selector's state.
func (c *ConsRes) Clone() *ConsRes {
	d := *c
	d.nodes = slices.Clone(c.nodes)
	d.node = c.node // never changed after NewConsRes
	d.used = slices.Clone(c.used)
	return &d
}

// WillRun answers Slurm's WILL_RUN for request r at time now: the earliest
// time, not before now, at which r could start on a if the allocations held
// (which a must hold) ended at their End times and nothing else started,
// and the resources it would get then (appended to dst). It returns
// workload.Forever if r can never run (TEST_ONLY fails, or it still does not
// fit once everything held has ended).
//
// WillRun changes a (it releases the held allocations) and sorts held by
// End: pass a clone.
func WillRun(a Allocator, now workload.Time, r Request, held []Held, dst []Range) (workload.Time, []Range) {
	if ok, _ := a.TestOnly(r); !ok {
		return workload.Forever, dst
	}
	if rs, ok := a.RunNow(r, dst); ok {
		return now, rs
	}
	slices.SortStableFunc(held, func(x, y Held) int {
		switch {
		case x.End < y.End:
			return -1
		case x.End > y.End:
			return 1
		}
		return 0
	})
	for i := range held {
		a.Release(held[i].Req, held[i].Alloc)
		if i+1 < len(held) && held[i+1].End == held[i].End {
			continue // everything ending at one instant ends together
		}
		if held[i].End >= workload.Forever {
			break
		}
		if rs, ok := a.RunNow(r, dst); ok {
			return max(now, held[i].End), rs
		}
	}
	return workload.Forever, dst
}

// CloneInto returns a copy of a's state for WillRun, reusing the memory of
// dst when dst is a selector of the same kind (a previous CloneInto result,
// or nil). It panics if a is not a *Linear, *ConsRes or *Federation.
func CloneInto(dst, a Allocator) Allocator {
	switch x := a.(type) {
	case *Linear:
		d, _ := dst.(*Linear)
		if d == nil || d == x {
			return x.Clone()
		}
		spans, runs, jobs := d.spans[:0], d.runs, d.jobs
		*d = *x
		d.spans = append(spans, x.spans...)
		d.runs = runs
		if x.jobs != nil {
			d.jobs = append(jobs[:0], x.jobs...)
		}
		return d
	case *ConsRes:
		d, _ := dst.(*ConsRes)
		if d == nil || d == x {
			return x.Clone()
		}
		nodes, used := d.nodes[:0], d.used[:0]
		*d = *x
		d.nodes = append(nodes, x.nodes...)
		d.used = append(used, x.used...)
		return d
	case *Federation:
		return x.cloneInto(dst)
	}
	panic(fmt.Sprintf("cluster: cannot clone a %T", a))
}
