package report

import (
	"fmt"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// SetPredictions copies the counts of WILL_RUN predictions, and of the
// jobs given their partition's time limit, from st.
func (s *Summary) SetPredictions(st sim.Stats) {
	s.PredictedStarts, s.PredictedStartsMet = st.Predicted, st.PredictedMet
	s.PartitionDefaultTimes = st.DefaultTimes
}

// ClusterInfo describes a cluster of nodes in summary.json, enough for
// schedsim verify to check the allocations of jobs.csv on it.
type ClusterInfo struct {
	// Select is the node selector (cluster.SelectLinear: allocations
	// name nodes; cluster.SelectConsRes: they name cores).
	Select string `json:"select"`
	// CRMemory reports that linear tracked memory (cluster.Spec.CRMemory).
	CRMemory bool `json:"cr_memory,omitempty"`
	// Nodes and Cores count the nodes and their cores.
	Nodes int `json:"nodes"`
	Cores int `json:"cores"`
	// Groups are the node groups, in node order.
	Groups []ClusterGroup `json:"groups"`
	// Clusters is the number of clusters of a cluster of clusters, whose
	// groups Groups lists cluster after cluster (0, omitted: one cluster).
	Clusters int `json:"clusters,omitempty"`
	// Partitions are the partitions with their limits (a cluster of
	// clusters: every member's, named "cN.NAME", their groups named as
	// in Groups), for schedsim verify.
	Partitions []ClusterPartition `json:"partitions,omitempty"`
}

// ClusterPartition is one partition of a ClusterInfo.
type ClusterPartition struct {
	Name   string   `json:"name"`
	Groups []string `json:"groups"`
	// MaxTime is the longest run time allowed, s (0, omitted: unlimited).
	MaxTime int64 `json:"max_time,omitempty"`
	// OverSubscribe is "EXCLUSIVE" for a partition whose jobs get whole
	// nodes under cons_res (which verify then accepts), else omitted.
	OverSubscribe string `json:"oversubscribe,omitempty"`
	// ShareCount is, for "FORCE" under linear (nodes shared by several
	// jobs), how many jobs may share a node (0, omitted: the default 4).
	ShareCount int `json:"share_count,omitempty"`
}

// AddMemberPartitions records the partitions of the members of a cluster of
// clusters, "cN." before their names and groups', when any member has
// partitions; a member without gets one unlimited partition of all its
// groups, named "cN.*", so that every node lies in some partition.
func (c *ClusterInfo) AddMemberPartitions(members []*cluster.Spec) {
	any := false
	for _, m := range members {
		any = any || len(m.Partitions) > 0
	}
	if !any {
		return
	}
	for i, m := range members {
		prefix := fmt.Sprintf("c%d.", i+1)
		if len(m.Partitions) > 0 {
			c.AddPartitions(m, prefix)
			continue
		}
		cp := ClusterPartition{Name: prefix + "*"}
		for _, g := range m.Groups {
			cp.Groups = append(cp.Groups, prefix+g.Name)
		}
		c.Partitions = append(c.Partitions, cp)
	}
}

// AddPartitions records the partitions of spec; prefix (such as "c2.") is
// put before their names and their groups' (a member of a cluster of
// clusters).
func (c *ClusterInfo) AddPartitions(spec *cluster.Spec, prefix string) {
	for _, p := range spec.Partitions {
		cp := ClusterPartition{Name: prefix + p.Name, MaxTime: int64(p.MaxTime)}
		if p.OverSubscribe == "EXCLUSIVE" && spec.Select == cluster.SelectConsRes {
			cp.OverSubscribe = p.OverSubscribe
		}
		if p.OverSubscribe == "FORCE" && spec.Select != cluster.SelectConsRes {
			cp.OverSubscribe, cp.ShareCount = p.OverSubscribe, p.ShareCount
		}
		for _, g := range p.Groups {
			cp.Groups = append(cp.Groups, prefix+g)
		}
		c.Partitions = append(c.Partitions, cp)
	}
}

// ClusterGroup is one node group of a ClusterInfo.
type ClusterGroup struct {
	// Name is the group's name.
	Name string `json:"name"`
	// Count is its number of nodes, Cores their cores each.
	Count int `json:"count"`
	Cores int `json:"cores"`
	// MemoryMB is the memory of each node (0: not tracked).
	MemoryMB int64 `json:"memory_mb,omitempty"`
	// Speed is the nodes' relative speed (0, omitted: 1).
	Speed float64 `json:"speed,omitempty"`
}

// NewClusterInfo returns the description of spec for summary.json.
func NewClusterInfo(spec *cluster.Spec) *ClusterInfo {
	c := &ClusterInfo{Select: spec.Select, CRMemory: spec.CRMemory, Nodes: spec.Nodes(), Cores: spec.Cores()}
	if c.Select == "" {
		c.Select = cluster.SelectLinear
	}
	for _, g := range spec.Groups {
		c.Groups = append(c.Groups, ClusterGroup{Name: g.Name, Count: g.Count, Cores: g.Cores, MemoryMB: g.MemoryMB, Speed: g.Speed})
	}
	c.AddPartitions(spec, "")
	return c
}

// Members returns the clusters of a cluster of clusters c records (its
// groups split by their "cN." name prefix), or nil for one cluster.
func (c *ClusterInfo) Members() []*cluster.Spec {
	if c == nil || c.Clusters == 0 {
		return nil
	}
	ms := make([]*cluster.Spec, c.Clusters)
	for i := range ms {
		ms[i] = &cluster.Spec{Select: c.Select}
	}
	for _, g := range c.Groups {
		var k int
		name := g.Name
		if n, err := fmt.Sscanf(g.Name, "c%d.", &k); n == 1 && err == nil && k >= 1 && k <= len(ms) {
			name = strings.TrimPrefix(g.Name, fmt.Sprintf("c%d.", k))
		} else {
			return nil
		}
		ms[k-1].Groups = append(ms[k-1].Groups, cluster.NodeGroup{Name: name, Count: g.Count, Cores: g.Cores, MemoryMB: g.MemoryMB, Speed: g.Speed})
	}
	return ms
}

// Spec returns the cluster description c records (node groups, selector,
// partitions with their MaxTime), or nil if c is nil.
func (c *ClusterInfo) Spec() *cluster.Spec {
	if c == nil {
		return nil
	}
	s := &cluster.Spec{Select: c.Select, CRMemory: c.CRMemory}
	for _, g := range c.Groups {
		s.Groups = append(s.Groups, cluster.NodeGroup{Name: g.Name, Count: g.Count, Cores: g.Cores, MemoryMB: g.MemoryMB})
	}
	for _, p := range c.Partitions {
		s.Partitions = append(s.Partitions, cluster.Partition{Name: p.Name, Groups: p.Groups, MaxTime: workload.Time(p.MaxTime), OverSubscribe: p.OverSubscribe, ShareCount: p.ShareCount})
	}
	return s
}
