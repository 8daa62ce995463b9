package sim

import (
	"fmt"
	"math"
	"slices"
	"sort"

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
//   - Limits. Each cluster has its memory and disk limits (MemKB, DiskKB:
//     what one of its hosts has; SPEC §5). A job's limit is its cluster's
//     times its queue's percentage, or its own request on one of its
//     cluster's hosts (PerHost) if smaller, and the limits of the jobs
//     started on a cluster (descheduled ones too) may not sum beyond the
//     cluster's; the shortage rule (refused at submission unless it
//     waits) holds per cluster. A job on several clusters takes the
//     smallest cluster's limit and the largest hosts, and holds its
//     limits on every cluster. policy.ScoreD's MemKB and DiskKB are then
//     the sums of the clusters' (New sets them).
type ScoreDClusters struct {
	// Procs are the processors of each cluster, in order (each ≥ 1).
	Procs []int
	// Speed are their speeds (> 0; the trace's machine has speed 1).
	Speed []float64
	// ScaleRuntime scales run times by speed (see ScoreDClusters).
	ScaleRuntime bool
	// MemKB and DiskKB are each cluster's memory and disk limits (0 or
	// nil: none), PerHost the processors of one of its hosts (0 or nil: 1).
	MemKB, DiskKB []int64
	PerHost       []int
}

// sdFed is the cluster of clusters of SCore-D's component (sdCore.fed),
// nil on one cluster.
type sdFed struct {
	doms    []cluster.Range // each cluster's processors
	speed   []float64
	slowest float64
	scale   bool
	waiting []int // processors of the jobs assigned to each cluster waiting in a queue
	// memKB, diskKB and perHost are each cluster's limits and host size;
	// memHeld and diskHeld the limits the started jobs hold there.
	memKB, diskKB     []int64
	perHost           []int
	memHeld, diskHeld []int64
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
	n := len(c.Procs)
	for _, x := range []struct {
		what string
		l    int
	}{{"memory limits", len(c.MemKB)}, {"disk limits", len(c.DiskKB)}, {"host sizes", len(c.PerHost)}} {
		if x.l != 0 && x.l != n {
			return nil, fmt.Errorf("sim: SCore-D on a cluster of clusters: %d clusters with %d %s", n, x.l, x.what)
		}
	}
	f.memKB, f.diskKB, f.perHost = make([]int64, n), make([]int64, n), make([]int, n)
	copy(f.memKB, c.MemKB)
	copy(f.diskKB, c.DiskKB)
	copy(f.perHost, c.PerHost)
	for i := range n {
		if f.memKB[i] < 0 || f.diskKB[i] < 0 || f.perHost[i] < 0 {
			return nil, fmt.Errorf("sim: SCore-D on a cluster of clusters: cluster %d: negative memory, disk or host size", i+1)
		}
		f.perHost[i] = max(f.perHost[i], 1)
	}
	f.memHeld, f.diskHeld = make([]int64, n), make([]int64, n)
	return f, nil
}

// clusterOf returns the index of the cluster that holds processor c.
func (f *sdFed) clusterOf(c int) int {
	return sort.Search(len(f.doms), func(i int) bool { return f.doms[i].Hi > c })
}

// spanning returns the processors of the waiting jobs that several
// clusters hold, of queued in all (each cluster's own are f.waiting).
func (f *sdFed) spanning(queued int64) int64 {
	for _, w := range f.waiting {
		queued -= int64(w)
	}
	return queued
}

// sums returns the clusters' memory and disk limits together: the
// machine's, as policy.ScoreD gets them.
func (f *sdFed) sums() (mem, disk int64) {
	for i := range f.memKB {
		mem += f.memKB[i]
		disk += f.diskKB[i]
	}
	return mem, disk
}

// limitOf returns the limit, of the clusters' caps, of a job on cluster
// k (Spanning: the smallest; 0 when a cluster has none).
func limitOf(caps []int64, k int) int64 {
	if k > 0 {
		return caps[k-1]
	}
	return slices.Min(caps)
}

// perHostOf returns the processors of a job of p processors on one host
// of cluster k (Spanning: the largest hosts).
func (f *sdFed) perHostOf(k, p int) int {
	h := 0
	if k > 0 {
		h = f.perHost[k-1]
	} else {
		h = slices.Max(f.perHost)
	}
	return max(1, min(p, h))
}

// fedLimits sets job s's memory and disk limits, just submitted to queue
// q, from its cluster's (see ScoreDClusters).
func (e *sdCore) fedLimits(s *sdSlot, q *sdQueue) {
	f := e.fed
	s.MemKB, s.DiskKB = 0, 0
	if m := limitOf(f.memKB, int(s.Member)); m > 0 && q.cfg.MemPercent > 0 {
		s.MemKB = m * int64(q.cfg.MemPercent) / 100
		if r := s.job.ReqMemKB; r > 0 {
			s.MemKB = min(s.MemKB, int64(r)*int64(f.perHostOf(int(s.Member), s.job.Procs)))
		}
	}
	if d := limitOf(f.diskKB, int(s.Member)); d > 0 && q.cfg.DiskPercent > 0 {
		s.DiskKB = d * int64(q.cfg.DiskPercent) / 100
	}
}

// perHost returns the processors of job s on one host.
func (e *sdCore) perHost(s *sdSlot) int {
	if e.fed != nil {
		return e.fed.perHostOf(int(s.Member), s.job.Procs)
	}
	return e.cfg.PerHost(s.job.Procs)
}

// hold counts (n = 1) or no longer counts (n = -1) job s's limits on its
// cluster (every cluster, for a job on several). It panics if they push a
// cluster's held limits beyond its own.
func (f *sdFed) hold(s *sdSlot, n int64) {
	for i := range f.memHeld {
		if s.Member > 0 && int(s.Member) != i+1 {
			continue
		}
		f.memHeld[i] += n * s.MemKB
		f.diskHeld[i] += n * s.DiskKB
		if n > 0 && (s.MemKB > 0 && f.memHeld[i] > f.memKB[i] || s.DiskKB > 0 && f.diskHeld[i] > f.diskKB[i]) {
			panic(fmt.Sprintf("sim: job %d's limits push those held on cluster %d (%d KB memory, %d KB disk) beyond its own (%d KB, %d KB)", s.job.ID, i+1, f.memHeld[i], f.diskHeld[i], f.memKB[i], f.diskKB[i]))
		}
	}
}

// held returns the limits held on job s's cluster and that cluster's (for
// a job on several, the cluster with the least room, memory and disk
// apart): Placement.Held.
func (f *sdFed) held(s *scored.Job) (mem, disk, memCap, diskCap int64) {
	if k := s.Member; k > 0 {
		return f.memHeld[k-1], f.diskHeld[k-1], f.memKB[k-1], f.diskKB[k-1]
	}
	bm, bd := -1, -1
	for i := range f.memHeld {
		if bm < 0 || f.memKB[i]-f.memHeld[i] < f.memKB[bm]-f.memHeld[bm] {
			bm = i
		}
		if bd < 0 || f.diskKB[i]-f.diskHeld[i] < f.diskKB[bd]-f.diskHeld[bd] {
			bd = i
		}
	}
	return f.memHeld[bm], f.diskHeld[bd], f.memKB[bm], f.diskKB[bd]
}

// shortReason says why job s's limits cannot be granted on its cluster.
func (f *sdFed) shortReason(s *sdSlot) string {
	mem, disk, mc, dc := f.held(&s.Job)
	where := fmt.Sprintf("cluster %d's", s.Member)
	if s.Member < 0 {
		where = "a cluster's"
	}
	if s.MemKB > 0 && mem+s.MemKB > mc {
		return fmt.Sprintf("resource shortage at submission (queue %d): memory limit %d KB, %d KB of %s %d KB held", s.Queue, s.MemKB, mem, where, mc)
	}
	return fmt.Sprintf("resource shortage at submission (queue %d): disk limit %d KB, %d KB of %s %d KB held", s.Queue, s.DiskKB, disk, where, dc)
}

// Held implements scored.Placement: the limits held on job s's cluster.
func (p sdPlacement) Held(s *scored.Job) (mem, disk, memCap, diskCap int64) {
	if f := p.e.fed; f != nil && s.Member != 0 {
		return f.held(s)
	}
	return p.e.m.MemHeld, p.e.m.DiskHeld, p.e.cfg.MemKB, p.e.cfg.DiskKB
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
		s.Member, speed = int32(k+1), f.speed[k]
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
