package sim

import (
	"fmt"
	"math"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy/scored"
)

// ScoreDClusters is a cluster of clusters for SCore-D's queues
// (Config.ScoreDClusters; SPEC §5): clusters of identical hosts, each with
// its speed, managed together by one SCore-D.
//
//   - Processors. The machine's processors (Config.Procs, their sum) are
//     numbered cluster after cluster; the Ousterhout matrix spans them
//     all, and its rows take turns machine-wide (one gang clock, as on one
//     cluster: a row in use anywhere takes a time slice everywhere). Jobs
//     are placed on processor numbers, as with node events.
//   - Assignment at submission. A job is assigned, among the clusters that
//     have at least its processors, the least loaded relative to its speed
//     — (processors held in some row, or out of service, + processors of
//     the jobs assigned to it that wait in a queue) / its processors / its
//     speed —, equal loads going to the faster cluster, then to the first:
//     cluster.LeastLoaded, the main engine's rule (cluster.Federation). A
//     job no single cluster can hold is assigned all of them together (a
//     cluster of clusters, cluster.Spanning) and may take any processor. A
//     job keeps its cluster to its end: it queues for that cluster's
//     processors even when another is idle, and a job descheduled or
//     requeued resumes there.
//   - Speed. With ScaleRuntime (schedsim's own model) a job's run time is
//     its trace run time × 1 / its cluster's speed (the slowest one's for a
//     job on several), rounded up to whole ticks as the main engine does;
//     its requested time and its queue's maximum CPU time do not scale, so
//     a job slowed beyond them is killed. Without it speed only compares
//     loads, as in SCore-D.
//   - Preemption. A blocked head preempts only jobs holding processors of
//     its cluster.
type ScoreDClusters struct {
	// Procs are the processors of each cluster, in order (each ≥ 1).
	Procs []int
	// Speed are their speeds (> 0; the trace's machine has speed 1).
	Speed []float64
	// ScaleRuntime scales run times by speed (see ScoreDClusters).
	ScaleRuntime bool
}

// sdFed is the cluster of clusters of SCore-D's component (sdCore.fed),
// nil on one cluster.
type sdFed struct {
	doms    []cluster.Range // each cluster's processors
	speed   []float64
	slowest float64
	scale   bool
	waiting []int // processors of the jobs assigned to each cluster waiting in a queue
}

// newSDFed checks c against a machine of procs processors.
func newSDFed(c *ScoreDClusters, procs int) (*sdFed, error) {
	if len(c.Procs) < 1 || len(c.Speed) != len(c.Procs) {
		return nil, fmt.Errorf("sim: SCore-D on a cluster of clusters: %d clusters with %d speeds", len(c.Procs), len(c.Speed))
	}
	f := &sdFed{scale: c.ScaleRuntime, waiting: make([]int, len(c.Procs)), slowest: math.Inf(1)}
	base := 0
	for i, p := range c.Procs {
		sp := c.Speed[i]
		if p < 1 || !(sp > 0) || math.IsInf(sp, 0) {
			return nil, fmt.Errorf("sim: SCore-D on a cluster of clusters: cluster %d: %d processors, speed %g: want ≥ 1 and > 0", i+1, p, sp)
		}
		f.doms = append(f.doms, cluster.Range{Lo: base, Hi: base + p})
		f.speed = append(f.speed, sp)
		f.slowest = min(f.slowest, sp)
		base += p
	}
	if base != procs {
		return nil, fmt.Errorf("sim: SCore-D on a cluster of clusters: the clusters have %d processors, the machine %d", base, procs)
	}
	return f, nil
}

// assign gives job s, just submitted, its cluster (SPEC §5) and scales its
// run time by the cluster's speed (ScaleRuntime).
func (e *sdCore) assign(s *sdSlot) {
	f := e.fed
	p := s.job.Procs
	k := cluster.LeastLoaded(len(f.doms), func(i int) (cluster.MemberLoad, bool) {
		d := f.doms[i]
		if p > d.Len() {
			return cluster.MemberLoad{}, false
		}
		return cluster.MemberLoad{Used: d.Len() - e.nd.allM.FreeIn(d) + f.waiting[i], Capacity: d.Len(), Speed: f.speed[i]}, true
	})
	speed := f.slowest
	s.Member = cluster.Spanning
	if k >= 0 {
		s.Member, speed = k+1, f.speed[k]
	}
	if f.scale {
		s.job.Run = scaleRun(s.job.Run, 1/speed)
	}
}

// wait counts (n = 1) or no longer counts (n = -1) job s, assigned a
// cluster, in its cluster's waiting processors.
func (f *sdFed) wait(s *sdSlot, n int) {
	if s.Member > 0 {
		f.waiting[s.Member-1] += n * s.job.Procs
	}
}

// domain returns the processors job s may take: its cluster's (confined
// true), else the whole machine.
func (nd *sdNodes) domain(s *scored.Job) (r cluster.Range, confined bool) {
	if f := nd.core.fed; f != nil && s.Member > 0 {
		return f.doms[s.Member-1], true
	}
	return cluster.Range{Lo: 0, Hi: nd.procs}, false
}

// inServiceWithin counts the processors of alloc within d in service.
func (nd *sdNodes) inServiceWithin(alloc []cluster.Range, d cluster.Range) int {
	n := 0
	for _, r := range alloc {
		for c := max(r.Lo, d.Lo); c < min(r.Hi, d.Hi); c++ {
			if nd.inService(c) {
				n++
			}
		}
	}
	return n
}
