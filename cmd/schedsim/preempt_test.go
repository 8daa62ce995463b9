package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

// The CEA Curie sample with a two-partition slurm.conf
// (testdata/slurm-preempt.conf: the trace's partition 4 at PriorityTier
// 10 over the rest at 1, on the same nodes) and each PreemptMode: jobs are
// preempted, summary.json counts it, and schedsim verify passes (a
// suspended job holds no processors, its runs add up to its run time,
// every preemptor of a higher tier). Quick runs try SUSPEND,GANG only.
func TestPreemptionCurie(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "CEA-Curie-2011-sample30k.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", trace)
	}
	conf, err := os.ReadFile(filepath.Join("testdata", "slurm-preempt.conf"))
	if err != nil {
		t.Fatal(err)
	}
	modes := []struct{ conf, mode string }{{"SUSPEND,GANG", "suspend"}, {"REQUEUE", "requeue"}, {"CANCEL", "cancel"}}
	if !simtest.Full() {
		modes = modes[:1]
	}
	for _, m := range modes {
		t.Run(m.mode, func(t *testing.T) {
			dir := t.TempDir()
			c := strings.Replace(string(conf), "PreemptMode=SUSPEND,GANG", "PreemptMode="+m.conf, 1)
			cp := writeFile(t, dir, "slurm.conf", c)
			out := filepath.Join(dir, "res")
			code, _, stderr := run(t, "run", "--trace", trace, "--slurm-conf", cp, "--partition-map", "prio=4,batch=10", "--plots=false", "--out", out)
			if code != exitOK {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			var sum struct {
				Policy     string `json:"policy"`
				Preempted  int64  `json:"preempted"`
				Preemption struct {
					Mode        string `json:"mode"`
					Preemptions int64  `json:"preemptions"`
					Requeued    int64  `json:"requeued"`
					Cancelled   int64  `json:"cancelled"`
				} `json:"preemption"`
			}
			b, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			p := sum.Preemption
			if p.Mode != m.mode || p.Preemptions == 0 || !strings.Contains(sum.Policy, "+preempt="+m.mode) {
				t.Errorf("summary: policy %q, preemption %+v: want mode %s with preemptions", sum.Policy, p, m.mode)
			}
			switch m.mode {
			case "requeue":
				if p.Requeued != p.Preemptions || p.Cancelled != 0 {
					t.Errorf("requeue: %+v", p)
				}
			case "cancel":
				if p.Cancelled != p.Preemptions || sum.Preempted != p.Cancelled {
					t.Errorf("cancel: %+v, %d preempted", p, sum.Preempted)
				}
			default:
				if p.Requeued != 0 || p.Cancelled != 0 {
					t.Errorf("suspend: %+v", p)
				}
			}
			if code, stdout, stderr := run(t, "verify", out); code != exitOK {
				t.Errorf("verify: exit %d: %s%s", code, stdout, stderr)
			}
		})
	}
}

// SUSPEND without GANG is an error naming the line, as slurm.conf's
// manual requires GANG with it; PreemptType=preempt/qos is listed as not
// modelled.
func TestPreemptModeErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.conf", "PreemptType=preempt/partition_prio\nPreemptMode=SUSPEND\nNodeName=n[1-4] CPUs=1\nPartitionName=a Nodes=ALL\n")
	trace := writeFile(t, dir, "t.swf", "; MaxProcs: 4\n1 0 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
	code, _, stderr := run(t, "run", "--trace", trace, "--slurm-conf", bad, "--out", filepath.Join(dir, "o"))
	if code != exitUsage || !strings.Contains(stderr, "bad.conf:2:") || !strings.Contains(stderr, "SUSPEND needs GANG") {
		t.Errorf("exit %d, stderr %q: want exit %d naming bad.conf:2 and SUSPEND needs GANG", code, stderr, exitUsage)
	}
	qos := writeFile(t, dir, "qos.conf", "PreemptType=preempt/qos\nPreemptMode=REQUEUE\nNodeName=n[1-4] CPUs=1\nPartitionName=a Nodes=ALL\n")
	code, _, stderr = run(t, "run", "--trace", trace, "--slurm-conf", qos, "--out", filepath.Join(dir, "o2"))
	if code != exitOK || !strings.Contains(stderr, "preempt/qos") {
		t.Errorf("exit %d, stderr %q: want a run that says preempt/qos is not modelled", code, stderr)
	}
}
