package slurmconf

import (
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
)

// The preemption keys and OverSubscribe's count: what each line makes of
// the cluster description, or the error naming it.
func TestParsePreemptAndShare(t *testing.T) {
	const nodes = "NodeName=n[1-4] CPUs=2\n"
	cases := []struct {
		name, conf string
		preempt    string
		youngest   bool
		share      int
		unknown    string // a substring of Unknown
		err        string // a substring of the error
	}{
		{name: "none", conf: "PreemptMode=REQUEUE\n"},
		{name: "requeue", conf: "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n", preempt: cluster.PreemptRequeue},
		{name: "cancel", conf: "PreemptType=preempt/partition_prio\nPreemptMode=cancel\n", preempt: cluster.PreemptCancel},
		{name: "suspend gang", conf: "PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND,GANG\nPreemptParameters=youngest_first\n", preempt: cluster.PreemptSuspend, youngest: true},
		{name: "youngest in SchedulerParameters", conf: "PreemptType=preempt/partition_prio\nPreemptMode=CANCEL\nSchedulerParameters=preempt_youngest_first\n", preempt: cluster.PreemptCancel, youngest: true},
		{name: "suspend without gang", conf: "PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND\n", err: "x.conf:2: PreemptMode=SUSPEND: SUSPEND needs GANG"},
		{name: "bad mode", conf: "PreemptMode=SOMETIMES\n", err: "x.conf:1: PreemptMode=SOMETIMES"},
		{name: "qos", conf: "PreemptType=preempt/qos\nPreemptMode=REQUEUE\n", unknown: "PreemptType=preempt/qos"},
		{name: "gang alone", conf: "PreemptType=preempt/partition_prio\nPreemptMode=GANG\n", unknown: "PreemptMode=GANG"},
		{name: "force count", conf: "PartitionName=p Nodes=ALL OverSubscribe=FORCE:3\n", share: 3},
		{name: "force default", conf: "PartitionName=p Nodes=ALL OverSubscribe=FORCE\n", share: 0},
		{name: "yes count", conf: "PartitionName=p Nodes=ALL OverSubscribe=YES:2\n"},
		{name: "bad count", conf: "PartitionName=p Nodes=ALL OverSubscribe=FORCE:0\n", err: "OverSubscribe=FORCE:0: want YES:N or FORCE:N"},
		{name: "count on NO", conf: "PartitionName=p Nodes=ALL OverSubscribe=NO:2\n", err: "want YES:N or FORCE:N"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conf := c.conf
			if !strings.Contains(conf, "PartitionName") {
				conf += "PartitionName=p Nodes=ALL\n"
			}
			// NodeName lines come first in a slurm.conf; the keys above
			// keep their line numbers by coming before them.
			sc, err := Parse(strings.NewReader(conf+nodes), "x.conf")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sc.Spec.Preempt != c.preempt || sc.Spec.PreemptYoungestFirst != c.youngest {
				t.Errorf("preempt %q youngest %v, want %q %v", sc.Spec.Preempt, sc.Spec.PreemptYoungestFirst, c.preempt, c.youngest)
			}
			if got := sc.Spec.Partitions[0].ShareCount; got != c.share {
				t.Errorf("share count %d, want %d", got, c.share)
			}
			if c.unknown != "" && !strings.Contains(strings.Join(sc.Unknown, "; "), c.unknown) {
				t.Errorf("unknown %q, want %q listed", sc.Unknown, c.unknown)
			}
		})
	}
}
