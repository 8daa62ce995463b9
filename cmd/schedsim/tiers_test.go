package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A run with queue priority tiers and association limits, killed with
// SIGKILL after some checkpoints and resumed with --resume alone, writes
// the files of a run never interrupted, byte for byte.
func TestCheckpointKillResumeTiers(t *testing.T) {
	dir := t.TempDir()
	// 1,500 jobs on 64 processors, overloaded: 3 queues, 9 users under
	// 2 accounts each (a fixed pseudo-random sequence, no seed needed).
	var b strings.Builder
	b.WriteString("; MaxProcs: 64\n")
	x := uint32(7)
	next := func(n uint32) int { x = x*1664525 + 1013904223; return int((x >> 8) % n) }
	submit := 0
	for id := 1; id <= 1500; id++ {
		submit += next(90)
		procs, run := 1+next(32), 30+next(3000)
		fmt.Fprintf(&b, "%d %d -1 %d %d -1 -1 %d %d -1 1 %d %d -1 %d -1 -1 -1\n",
			id, submit, run, procs, procs, run+next(1800), next(9), next(2), 1+next(3))
	}
	trace := writeFile(t, dir, "q.swf", b.String())
	conf := writeFile(t, dir, "tiers.toml", `
[[priority_tier]]
queue = 1
tier = 3

[[priority_tier]]
queue = 3
tier = 2

[[limit]]
users = ["*"]
max_jobs = 2
max_cpus = 40
`)
	want := killResumeCompare(t, dir, 5, "6h", "run", "--trace", trace, "-q", "--config", conf)
	if !bytes.Contains(want["summary.json"], []byte("priority-tier")) || !bytes.Contains(want["summary.json"], []byte(`"MaxJobs": 2`)) {
		t.Fatal("the summary names no tiers or association limit: the test does not exercise them")
	}
}
