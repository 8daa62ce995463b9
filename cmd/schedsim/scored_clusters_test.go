package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckpointKillResumeScoreDClusters kills a run of SCore-D's queues
// on a cluster of clusters (HPC2N's hosts as three clusters of speeds 1,
// 1.5 and 2) with host failures after some checkpoints and resumes it:
// it writes the files of a run never interrupted, byte for byte (the
// clusters' waiting processors, each job's cluster and the memory limits
// held on each cluster are saved or rebuilt).
func TestCheckpointKillResumeScoreDClusters(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", trace)
	}
	dir := t.TempDir()
	cfg := writeFile(t, dir, "fed.toml", "[scored]\n[[scored.queue]]\n[[scored.queue]]\nmemory_percent = 30\n"+
		"[[clusters]]\n[[clusters.groups]]\nname = \"a\"\ncount = 60\ncores = 2\nmemory_mb = 1024\n"+
		"[[clusters]]\n[[clusters.groups]]\nname = \"b\"\ncount = 40\ncores = 2\nspeed = 1.5\nmemory_mb = 2048\n"+
		"[[clusters]]\n[[clusters.groups]]\nname = \"c\"\ncount = 20\ncores = 2\nspeed = 2\nmemory_mb = 512\n")
	events := writeFile(t, dir, "hosts.events", "400000 DOWN 0-19 disk\n410000 DRAIN 100-109\n450000 RESUME 100-109\n500000 RESUME 0-19\n")
	for _, mode := range []string{"gang", "exclusive"} {
		t.Run(mode, func(t *testing.T) {
			files := killResumeCompare(t, filepath.Join(dir, mode), 4, "2d", "run", "--trace", trace, "--mode", mode, "--config", cfg,
				"--node-events", events, "--on-node-fail", "requeue", "-q")
			if !bytes.Contains(files["summary.json"], []byte("+clusters=3")) {
				t.Error("the run is not on the cluster of clusters")
			}
		})
	}
}
