package schedsim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy/slurmconf"
)

// reservationNodes resolves a reservation's nodes on the cluster of nodes
// spec (Slurm's Nodes= of scontrol create reservation): node numbers
// ("0-3,8", from 0 in the cluster's order, as node events number them) or
// a host list of the cluster's node names ("thin[001-004]", names a
// slurm.conf's NodeName lines give). It returns the node ranges, in
// order, and their processors.
func reservationNodes(s string, spec *cluster.Spec) ([]cluster.Range, int, error) {
	var nodes []int
	if isNodeNumbers(s) {
		for _, f := range strings.Split(s, ",") {
			lo, hi, isRange := strings.Cut(strings.TrimSpace(f), "-")
			a, err := strconv.Atoi(lo)
			b := a
			if err == nil && isRange {
				b, err = strconv.Atoi(hi)
			}
			if err != nil || a < 0 || b < a {
				return nil, 0, fmt.Errorf("nodes %q: want node numbers such as 0-3,8 or a host list of the cluster's node names", s)
			}
			if b >= spec.Nodes() {
				return nil, 0, fmt.Errorf("nodes %q: node %d: the cluster has nodes 0-%d", s, b, spec.Nodes()-1)
			}
			for n := a; n <= b; n++ {
				nodes = append(nodes, n)
			}
		}
	} else {
		names, err := slurmconf.ExpandHostlist(s)
		if err != nil {
			return nil, 0, fmt.Errorf("nodes %q: %v", s, err)
		}
		index := map[string]int{}
		base := 0
		for _, g := range spec.Groups {
			if gn, err := slurmconf.ExpandHostlist(g.Name); err == nil && len(gn) == g.Count {
				for k, nm := range gn {
					index[nm] = base + k
				}
			}
			base += g.Count
		}
		for _, nm := range names {
			n, ok := index[nm]
			if !ok {
				return nil, 0, fmt.Errorf("nodes %q: %q is not a node of the cluster (give its node names, as its NodeName lines do, or node numbers from 0)", s, nm)
			}
			nodes = append(nodes, n)
		}
	}
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	cores := make([]int, 0, spec.Nodes())
	for _, g := range spec.Groups {
		for range g.Count {
			cores = append(cores, g.Cores)
		}
	}
	var rs []cluster.Range
	procs := 0
	for _, n := range nodes {
		procs += cores[n]
		if k := len(rs); k > 0 && rs[k-1].Hi == n {
			rs[k-1].Hi++
		} else {
			rs = append(rs, cluster.Range{Lo: n, Hi: n + 1})
		}
	}
	return rs, procs, nil
}

// isNodeNumbers reports whether s is a list of node numbers and ranges
// ("0-3,8").
func isNodeNumbers(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "0123456789-, ") == ""
}
