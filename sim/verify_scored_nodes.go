package sim

import (
	"fmt"
	"slices"

	"github.com/schedsim/schedsim/cluster"
)

// verifyScoreDNodes checks a SCore-D run with node events (ScoreDLimits's
// NodeEvents; see ScoreD.SetNodeEvents), whose stints name their
// processors:
//   - every stint holds Procs processors of the machine;
//   - no two jobs hold a processor in the same row at once (an exclusive
//     job holds its processors in every row);
//   - a job starts or resumes only on processors whose nodes are in
//     service (neither down nor draining) after the node events of that
//     instant; a stint that goes on from the one before it (a demotion, on
//     the same processors) is no new start, but may not go on on a node
//     that is down;
//   - no stint runs across a DOWN of one of its nodes;
//   - a job killed by a node failure (NodeFail) ended at a DOWN of one of
//     the nodes of its last stint.
func verifyScoreDNodes(procs int, outs []ScoreDOutcome, lim ScoreDLimits) []Violation {
	var vs []Violation
	add := func(id int64, rule, format string, a ...any) {
		vs = append(vs, Violation{JobID: id, Rule: rule, Msg: fmt.Sprintf(format, a...)})
	}
	nt := newNodeTimeline(lim.NodeEvents, lim.NodeSize, procs, nil)
	// stateAt returns node n's state after the events at or before ms.
	stateAt := func(n int, ms int64) cluster.NodeState {
		st := cluster.NodeResume // in service
		for _, c := range nt.events[n] {
			if int64(c.at)*1000 > ms {
				break
			}
			st = c.state
		}
		return st
	}
	valid := make([][]bool, len(outs)) // stints whose processors are well formed
	allocOf := func(o *ScoreDOutcome, k int) []cluster.Range {
		if k < len(o.StintAllocs) {
			return o.StintAllocs[k]
		}
		return nil
	}
	for i := range outs {
		o := &outs[i]
		valid[i] = make([]bool, len(o.Stints))
		for k, st := range o.Stints {
			alloc := allocOf(o, k)
			held, inside := 0, true
			for _, r := range alloc {
				held += r.Len()
				inside = inside && r.Lo >= 0 && r.Hi <= procs && r.Lo < r.Hi
			}
			if held != o.Procs || !inside {
				add(o.ID, "stint-alloc", "it ran from %s on processors %s, not %d of the machine's %d", ms(st.FromMs), cluster.FormatRanges(nil, alloc), o.Procs, procs)
				continue
			}
			valid[i][k] = true
			goesOn := k > 0 && o.Stints[k-1].ToMs == st.FromMs && !o.Stints[k-1].Released && o.Stints[k-1].Row == st.Row &&
				slices.Equal(allocOf(o, k-1), alloc)
			for _, r := range alloc {
				for n := nt.node(r.Lo); n <= nt.node(r.Hi-1); n++ {
					// A stint that goes on may go on on a draining node,
					// not on one that went down (at its start: node events
					// come after the ends and demotions of their instant).
					switch s := stateAt(n, st.FromMs); {
					case !goesOn && s != cluster.NodeResume:
						add(o.ID, "node-state", "it started or resumed at %s on node %d, which was out of service (%v)", ms(st.FromMs), n, s)
					case goesOn && s == cluster.NodeDown:
						add(o.ID, "node-state", "it ran on from %s on node %d, which was down", ms(st.FromMs), n)
					}
					for _, c := range nt.events[n] {
						if at := int64(c.at) * 1000; c.state == cluster.NodeDown && st.FromMs < at && at < st.ToMs {
							add(o.ID, "node-state", "it ran from %s to %s on node %d, which went down at %d s", ms(st.FromMs), ms(st.ToMs), n, c.at)
						}
					}
				}
			}
		}
		if o.State != NodeFail {
			continue
		}
		hit := false
		if n := len(o.Stints); n > 0 && o.Stints[n-1].ToMs == int64(o.End)*1000 {
			for _, r := range allocOf(o, n-1) {
				for x := nt.node(r.Lo); x <= nt.node(max(r.Hi-1, r.Lo)) && x < len(nt.events); x++ {
					for _, c := range nt.events[x] {
						hit = hit || c.state == cluster.NodeDown && c.at == o.End
					}
				}
			}
		}
		if !hit {
			add(o.ID, "node-state", "killed by a node failure at %d s, but none of the nodes it ran on then went down at that time", o.End)
		}
	}
	// No processor held twice in a row at once.
	var edges []stintEdge
	for i := range outs {
		for k, st := range outs[i].Stints {
			if valid[i][k] && st.FromMs < st.ToMs && st.Row < lim.MPL {
				edges = append(edges, stintEdge{at: st.FromMs, job: i, item: k}, stintEdge{at: st.ToMs, end: true, job: i, item: k})
			}
		}
	}
	sortEdges(edges)
	mpl := max(lim.MPL, 1)
	owner := make([]int32, mpl*procs) // job index + 1 holding a processor in a row, 0: none
	reported := map[int]bool{}
	for _, e := range edges {
		st := outs[e.job].Stints[e.item]
		lo, hi := st.Row, st.Row+1
		if st.Row < 0 {
			lo, hi = 0, mpl
		}
		for row := lo; row < hi; row++ {
			for _, r := range outs[e.job].StintAllocs[e.item] {
				for c := r.Lo; c < r.Hi; c++ {
					x := &owner[row*procs+c]
					switch {
					case e.end:
						if *x == int32(e.job)+1 {
							*x = 0
						}
					case *x != 0 && !reported[e.job]:
						reported[e.job] = true
						add(outs[e.job].ID, "processor-twice", "from %s it holds processor %d in row %d, which job %d holds then", ms(st.FromMs), c, row, outs[*x-1].ID)
					default:
						*x = int32(e.job) + 1
					}
				}
			}
		}
	}
	return vs
}

// verifyScoreDClusters checks a SCore-D run on a cluster of clusters of
// clusters' processors (ScoreDLimits.Clusters; SPEC §5): a job is assigned
// a cluster at its submission and keeps it, so every stint of a job that
// ran lies on one and the same cluster — unless no single cluster has its
// processors, when it may run on several together —, and every stint
// names its processors.
func verifyScoreDClusters(procs int, outs []ScoreDOutcome, lim ScoreDLimits) []Violation {
	clusters := lim.Clusters
	var vs []Violation
	total, largest := 0, 0
	for _, p := range clusters {
		total += p
		largest = max(largest, p)
	}
	if total != procs {
		return []Violation{{Rule: "clusters", Msg: fmt.Sprintf("the clusters have %d processors, the machine %d", total, procs)}}
	}
	// clusterOf returns the cluster holding all of alloc, or -1.
	clusterOf := func(alloc []cluster.Range) int {
		k := -1
		base := 0
		for i, p := range clusters {
			for _, r := range alloc {
				if r.Lo < base+p && base < r.Hi {
					if k >= 0 && k != i || r.Lo < base || r.Hi > base+p {
						return -1
					}
					k = i
				}
			}
			base += p
		}
		return k
	}
	on := make([][]ScoreDOutcome, len(clusters)) // the jobs that ran on each cluster
	for i := range outs {
		o := &outs[i]
		if len(o.Stints) == 0 {
			continue
		}
		if len(o.StintAllocs) != len(o.Stints) {
			vs = append(vs, Violation{JobID: o.ID, Rule: "clusters", Msg: fmt.Sprintf("%d of its %d stints name their processors: on a cluster of clusters every one must", len(o.StintAllocs), len(o.Stints))})
			continue
		}
		if o.Procs > largest {
			for k := range on {
				on[k] = append(on[k], *o) // it holds its limits on every cluster
			}
			continue // a cluster of clusters: any processors
		}
		first := clusterOf(o.StintAllocs[0])
		if first >= 0 {
			on[first] = append(on[first], *o)
		}
		for k, alloc := range o.StintAllocs {
			c := clusterOf(alloc)
			switch {
			case c < 0:
				vs = append(vs, Violation{JobID: o.ID, Rule: "clusters", Msg: fmt.Sprintf("it ran from %s on processors %s, not on one cluster, though cluster sizes %v include one of its %d processors", ms(o.Stints[k].FromMs), cluster.FormatRanges(nil, alloc), clusters, o.Procs)})
			case c != first && first >= 0:
				vs = append(vs, Violation{JobID: o.ID, Rule: "clusters", Msg: fmt.Sprintf("it ran from %s on cluster %d, after running on cluster %d: a job keeps the cluster it was assigned at its submission", ms(o.Stints[k].FromMs), c+1, first+1)})
			}
		}
	}
	for k := range on {
		for _, x := range []struct {
			kind  string
			caps  []int64
			limit func(*ScoreDOutcome) int64
		}{
			{"memory", lim.ClusterMemKB, func(o *ScoreDOutcome) int64 { return o.MemLimitKB }},
			{"disk", lim.ClusterDiskKB, func(o *ScoreDOutcome) int64 { return o.DiskLimitKB }},
		} {
			if len(x.caps) != len(clusters) {
				continue
			}
			for _, v := range verifyHeld(on[k], x.kind, x.caps[k], x.limit) {
				v.Msg = fmt.Sprintf("cluster %d: %s", k+1, v.Msg)
				vs = append(vs, v)
			}
		}
	}
	return vs
}
