package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

// tieredHPC2N writes HPC2N-2002's first 3,170 jobs in dir with every
// fourth job (by number) in SWF partition 2, the rest in partition 1, and
// returns its path: preemptTiersConfig routes partition 2 to a higher
// PriorityTier.
func tieredHPC2N(t *testing.T, dir string) string {
	t.Helper()
	jobs, r := readJobs(t, hpc2nFirst(t))
	for i := range jobs {
		jobs[i].Partition = 1
		if jobs[i].ID%4 == 0 {
			jobs[i].Partition = 2
		}
	}
	return simtest.WriteSWF(t, dir, "hpc2n-tiers.swf", r.Header(), jobs)
}

// preemptTiersConfig is HPC2N's 240 processors as 120 nodes of 2 cores,
// with partitions "low" (SWF 1, the default) and "high" (SWF 2,
// PriorityTier 1) on all of them, and preemption in mode %s.
var preemptTiersConfig = `[cluster]
select = "cons_res"
preempt = "%s"
[[cluster.groups]]
name = "n"
count = 120
cores = 2
` + simtest.TierPartitions("cluster", "n")

// Slurm's preemption with checkpoints: a run of HPC2N-2002 with tiers,
// killed with SIGKILL part-way and resumed, writes the files of an
// uninterrupted run — jobs.csv's preemption words and summary.json's
// counts included: the jobs suspended at the checkpoint (their runs, the
// run time they have left), those requeued and the running jobs' tiers
// are in it — and verify accepts them. Under SUSPEND,GANG and REQUEUE,
// and with node events that kill jobs running and suspended.
func TestCheckpointKillResumePreemption(t *testing.T) {
	for _, c := range []struct {
		mode   string
		events bool
	}{{"suspend", false}, {"requeue", false}, {"suspend", true}} {
		t.Run(fmt.Sprintf("%s-events=%v", c.mode, c.events), func(t *testing.T) {
			dir := t.TempDir()
			trace := tieredHPC2N(t, dir)
			conf := writeFile(t, dir, "cluster.toml", fmt.Sprintf(preemptTiersConfig, c.mode))
			args := []string{"run", "--trace", trace, "-q", "--config", conf, "--backfill", "easy"}
			if c.events {
				args = append(args, "--node-events", writeFile(t, dir, "events.txt", "200000 DOWN 0-9 power\n300000 RESUME 0-9\n3d DRAIN 20-59 maintenance\n400000 RESUME 20-59\n1000000 DOWN 5,7,60-70 network\n1100000 RESUME 5,7,60-70\n"))
			}
			files := killResumeVerify(t, dir, 10, "2d", args...)
			if !bytes.Contains(files["jobs.csv"], []byte("preempted=")) || !bytes.Contains(files["summary.json"], []byte(`"preemption"`)) {
				t.Error("no job preempted: the test tests nothing")
			}
		})
	}
}
