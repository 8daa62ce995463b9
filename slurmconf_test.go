package schedsim

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// partitionsConf is a slurm.conf of two single-core nodes shared by two
// partitions: low (the default, PriorityTier 1, DefaultTime 1 minute) and
// high (PriorityTier 2, MaxTime 5 minutes).
const partitionsConf = `SchedulerType=sched/backfill
SelectType=select/linear
NodeName=n[1-2] CPUs=1
PartitionName=low Nodes=n[1-2] PriorityTier=1 Default=YES DefaultTime=1
PartitionName=high Nodes=n[1-2] PriorityTier=2 MaxTime=5
`

// partitionsTrace names its partitions in its header as the Parallel
// Workloads Archive does: 4 is high, 7 is low. Fields: job, submit, wait,
// run, procs, cpu, mem, req procs, req time, req mem, status, user,
// group, exe, queue, partition, preceding, think.
const partitionsTrace = `; MaxProcs: 2
; Partition: 4 high
; Partition: 7 low
1 0 -1 100 2 -1 -1 2 200 -1 1 1 -1 -1 -1 7 -1 -1
2 10 -1 10 2 -1 -1 2 20 -1 1 1 -1 -1 -1 7 -1 -1
3 20 -1 10 2 -1 -1 2 20 -1 1 1 -1 -1 -1 4 -1 -1
4 30 -1 500 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 7 -1 -1
5 30 -1 10 1 -1 -1 1 400 -1 1 1 -1 -1 -1 4 -1 -1
`

// TestSlurmConfPartitions is issue 22 item 17 end to end: slurm.conf's
// partitions get the trace's partition numbers by name (the header's
// Partition lines) or from --partition-map; under --backfill slurm the
// jobs of a higher PriorityTier are scheduled first; a job without a time
// gets its partition's DefaultTime (else MaxTime) and is killed at it; a
// job longer than its partition's MaxTime is rejected at submission.
func TestSlurmConfPartitions(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	trace := filepath.Join(dir, "p.swf")
	if err := os.WriteFile(conf, []byte(partitionsConf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, []byte(partitionsTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	type want struct {
		state      sim.State
		start, end workload.Time
		reason     string
	}
	for _, tc := range []struct {
		name     string
		mapping  string
		backfill string
		want     map[int64]want
		warning  string
	}{
		{
			// By the header: 1, 2 and 4 are low's, 3 and 5 high's.
			// 1 runs 0-100 on both nodes. 5 asks 400 s, beyond high's
			// MaxTime of 300 s: rejected at 30. At 100 the queue is 2
			// (low), 3 (high), 4 (low): high's tier first, so 3 runs
			// 100-110, then 2 110-120 (the main scheduler stops at the
			// first job that does not fit), then 4 (no time: low's
			// DefaultTime, 60 s) 120-180, killed.
			name: "by the header's names", backfill: "slurm",
			want: map[int64]want{
				1: {sim.Completed, 0, 100, ""},
				2: {sim.Completed, 110, 120, ""},
				3: {sim.Completed, 100, 110, ""},
				4: {sim.Killed, 120, 180, ""},
				5: {sim.Rejected, 30, 30, "exceeds partition high's MaxTime of 300 s"},
			},
		},
		{
			// --partition-map swaps them: 1, 2 and 4 are high's (1's
			// 200 s and 2's 20 s within MaxTime 300), 3 and 5 low's (5's
			// 400 s is allowed: low has no MaxTime). At 100 the order is
			// 2, 4 (high), 3, 5 (low): 2 runs 100-110; at 110 4 (no
			// time: high's MaxTime, 300 s) starts on one node, 3 (2
			// nodes) does not fit, so the main scheduler stops; 5 would
			// end at 510, after 3's planned start (410): no backfill. 4
			// is killed at 410; 3 runs 410-420, 5 420-430.
			name: "by --partition-map", mapping: "high=7,low=4", backfill: "slurm",
			want: map[int64]want{
				1: {sim.Completed, 0, 100, ""},
				2: {sim.Completed, 100, 110, ""},
				3: {sim.Completed, 410, 420, ""},
				4: {sim.Killed, 110, 410, ""},
				5: {sim.Completed, 420, 430, ""},
			},
		},
		{
			// FCFS is Slurm's sched/builtin here ("initiates jobs in
			// priority order"): the tiers rank its queue too, and the
			// schedule is the first case's.
			name: "tiers under FCFS too", backfill: "off",
			want: map[int64]want{
				1: {sim.Completed, 0, 100, ""},
				2: {sim.Completed, 110, 120, ""},
				3: {sim.Completed, 100, 110, ""},
				4: {sim.Killed, 120, 180, ""},
				5: {sim.Rejected, 30, 30, "MaxTime"},
			},
		},
		{
			// EASY: at 100 the head is 3 (high): 100-110; 2 (2 nodes)
			// cannot backfill beside it; 4 (1 node) neither (no node is
			// free). Then 2 110-120, 4 120-180.
			name: "tiers under EASY", backfill: "easy",
			want: map[int64]want{
				1: {sim.Completed, 0, 100, ""},
				2: {sim.Completed, 110, 120, ""},
				3: {sim.Completed, 100, 110, ""},
				4: {sim.Killed, 120, 180, ""},
				5: {sim.Rejected, 30, 30, "MaxTime"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.SlurmConf, sc.PartitionMap, sc.Backfill = trace, conf, tc.mapping, tc.backfill
			rec := &simtest.Recorder{}
			var warn bytes.Buffer
			res, err := Run(context.Background(), &sc, Options{Observers: []sim.Observer{rec}, Warn: &warn})
			if err != nil {
				t.Fatal(err)
			}
			for id, w := range tc.want {
				r := rec.ByID(t, id)
				if r.State != w.state || r.Start != w.start || r.End != w.end || !strings.Contains(r.Reason, w.reason) {
					t.Errorf("job %d: %v %d-%d %q, want %v %d-%d %q", id, r.State, r.Start, r.End, r.Reason, w.state, w.start, w.end, w.reason)
				}
			}
			if !strings.Contains(warn.String(), tc.warning) {
				t.Errorf("warnings %q, want %q", warn.String(), tc.warning)
			}
			if res.Summary.PartitionDefaultTimes != 1 {
				t.Errorf("summary counts %d jobs given a partition's time limit, want 1 (job 4)", res.Summary.PartitionDefaultTimes)
			}
			if !strings.Contains(res.Summary.Policy, "+priority-tier") {
				t.Errorf("policy %q does not say the tiers rank the queue", res.Summary.Policy)
			}
			if t.Failed() {
				t.Logf("records:\n%s", simtest.Format(rec.Records))
			}
		})
	}
	t.Run("OverSubscribe=FORCE on nodes of a partition without it is said to share nothing", func(t *testing.T) {
		forced := filepath.Join(dir, "force.conf")
		if err := os.WriteFile(forced, []byte(strings.Replace(partitionsConf, "MaxTime=5", "MaxTime=5 OverSubscribe=FORCE:4", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		sc := Default()
		sc.Trace, sc.SlurmConf = trace, forced
		var warn bytes.Buffer
		res, err := Run(context.Background(), &sc, Options{Warn: &warn})
		if err != nil {
			t.Fatal(err)
		}
		const want = "partition high: OverSubscribe=FORCE shares no node: each of its nodes is also in a partition without FORCE"
		if !strings.Contains(warn.String(), want) || !strings.Contains(strings.Join(res.Summary.Warnings, "\n"), want) {
			t.Errorf("warnings %q / %q, want %q", warn.String(), res.Summary.Warnings, want)
		}
	})
	t.Run("messages name [[clusters]] when the configuration has them", func(t *testing.T) {
		// Issue 22 item 15.
		cfg := filepath.Join(dir, "clusters.toml")
		const two = "[[clusters]]\n[[clusters.groups]]\nname = \"a\"\ncount = 2\ncores = 1\n\n[[clusters]]\n[[clusters.groups]]\nname = \"b\"\ncount = 2\ncores = 1\n"
		if err := os.WriteFile(cfg, []byte(two), 0o644); err != nil {
			t.Fatal(err)
		}
		sc := Default()
		sc.Trace, sc.SlurmConf, sc.Config = trace, conf, cfg
		_, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}})
		if err == nil || !strings.Contains(err.Error(), "--slurm-conf and [[clusters]] tables in --config both describe the machine") {
			t.Fatalf("error %v, want one naming [[clusters]]", err)
		}
	})
	t.Run("unknown partition in the map", func(t *testing.T) {
		sc := Default()
		sc.Trace, sc.SlurmConf, sc.PartitionMap = trace, conf, "batch=1"
		_, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}})
		var ie *InputError
		if err == nil || !strings.Contains(err.Error(), `no partition "batch"`) || !errors.As(err, &ie) {
			t.Fatalf("error %v, want an input error naming batch", err)
		}
	})
}

// FuzzParsePartitionMap checks that --partition-map either parses into
// names with numbers ≥ 1, given once each, or fails with an input error.
func FuzzParsePartitionMap(f *testing.F) {
	for _, s := range []string{"batch=1,debug=4", " a = 2 ", "a=0", "a=1,a=2", "=3", "a", "a=x", ",,", "a=99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parsePartitionMap(s)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("parsePartitionMap(%q): %v is no InputError", s, err)
			}
			return
		}
		for name, n := range m {
			if name == "" || n < 1 || strings.TrimSpace(name) != name {
				t.Fatalf("parsePartitionMap(%q) = %v: bad entry %q=%d", s, m, name, n)
			}
		}
	})
}
