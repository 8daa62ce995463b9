package schedsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// preemptClusterConfig is HPC2N's 240 processors as 120 nodes of 2 cores
// with two partitions on all of them: "low" (the default) and "high"
// (SWF partition 2, PriorityTier 1), and Slurm's preemption by partition
// priority in mode %s.
const preemptClusterConfig = `[cluster]
select = "linear"
preempt = "%s"
[[cluster.groups]]
name = "n"
count = 120
cores = 2
[[cluster.partitions]]
name = "low"
groups = ["n"]
swf = 1
default = true
[[cluster.partitions]]
name = "high"
groups = ["n"]
swf = 2
priority_tier = 1
`

// withPartitions writes the Batsim workload at path again with every
// fourth job (by id) in partition 2 ("partition": 2, an extra field of
// the job), the others in partition 1, and returns the new path.
func withPartitions(t *testing.T, path, dir string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var w map[string]any
	if err := d.Decode(&w); err != nil {
		t.Fatal(err)
	}
	jobs, _ := w["jobs"].([]any)
	for _, j := range jobs {
		m := j.(map[string]any)
		id, err := m["id"].(json.Number).Int64()
		if err != nil {
			t.Fatal(err)
		}
		m["partition"] = 1
		if id%4 == 0 {
			m["partition"] = 2
		}
	}
	out, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "parts-"+strings.TrimPrefix(path[strings.LastIndexByte(path, os.PathSeparator)+1:], "parts-"), string(out))
}

// TestTimeUnitPreemption: Slurm's preemption by partition priority in ms
// gives, on HPC2N's first 3,170 jobs in whole seconds (every fourth job
// in a partition of a higher tier), the run in seconds ×1000 under each
// PreemptMode: the same preemptions, and jobs.csv's preemption words
// (preempted=, runs=, lost=) in seconds with the unit's decimals like the
// other times, which verify reads in ticks.
func TestTimeUnitPreemption(t *testing.T) {
	for _, mode := range []string{"suspend", "requeue", "cancel"} {
		t.Run(mode, func(t *testing.T) {
			runs := unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) {
				sc.Trace = withPartitions(t, sc.Trace, dir)
				sc.Config = writeFile(t, dir, "cluster.toml", fmt.Sprintf(preemptClusterConfig, mode))
			})
			preempted := 0
			for _, r := range runs[1].rows {
				if strings.Contains(r.Metadata, "preempted=") {
					preempted++
					if !strings.Contains(r.Metadata, ".000-") {
						t.Fatalf("job %d: %q: want runs in seconds with 3 decimals", r.ID, r.Metadata)
					}
				}
			}
			if preempted == 0 {
				t.Error("no job preempted: the test tests nothing")
			}
			t.Logf("%s: %d jobs preempted", mode, preempted)
		})
	}
}
