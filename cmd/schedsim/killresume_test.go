package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestCheckpointRandomKills kills a checkpointed LANL-CM5 run with SIGKILL
// at seeded random instants, from its start to past its end, and carries
// each on as a user would: --resume when a checkpoint is there, the same
// command again when the kill came before the first one. Every output file
// (jobs.csv, summary.json, plots, report.html) must equal an uninterrupted
// run's, byte for byte, wherever the kill landed: between checkpoints,
// while one is written, while the plots are drawn, between the finished
// output's rename and the checkpoint's removal. CI kills 20 times; a plain
// go test 4.
func TestCheckpointRandomKills(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "LANL-CM5-1994-4.1-cln.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", trace)
	}
	kills := 4
	if os.Getenv("CI") != "" {
		kills = 20
	}
	dir := t.TempDir()
	base := []string{"run", "--trace", trace, "--backfill", "easy", "--lookahead", "all", "-q"}
	whole := filepath.Join(dir, "whole")
	start := time.Now()
	if code, _, stderr := run(t, append(base, "--out", whole)...); code != 0 {
		t.Fatal(stderr)
	}
	took := time.Since(start)
	want := readDir(t, whole)
	rng := rand.New(rand.NewPCG(20261126, 21))
	landed := map[string]int{}
	for k := range kills {
		out := filepath.Join(dir, "run", "out")
		ck := filepath.Join(dir, "run", "run.ckpt")
		os.RemoveAll(filepath.Join(dir, "run"))
		os.MkdirAll(filepath.Join(dir, "run"), 0o755)
		args := append(append([]string{}, base...), "--out", out, "--checkpoint", ck, "--checkpoint-every", "7d")
		// The child starts more slowly than the in-process run: up to
		// twice its time lets some kills land after the end.
		delay := time.Duration(rng.Int64N(int64(2 * took)))
		cmd := child(t, nil, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(delay, func() { cmd.Process.Kill() })
		err := cmd.Wait()
		timer.Stop()
		switch _, ckErr := os.Stat(ck); {
		case err == nil:
			landed["after the end"]++
		case ckErr == nil:
			landed["resumed"]++
			if code, _, stderr := run(t, "run", "--resume", ck); code != 0 {
				t.Fatalf("kill %d after %v: resume: exit %d\n%s", k, delay, code, stderr)
			}
		default:
			landed["before the first checkpoint"]++
			if code, _, stderr := run(t, args...); code != 0 {
				t.Fatalf("kill %d after %v: run again: exit %d\n%s", k, delay, code, stderr)
			}
		}
		got := readDir(t, out)
		if len(got) != len(want) {
			t.Fatalf("kill %d after %v (%v): files %v, want %v", k, delay, landed, names(got), names(want))
		}
		for name, b := range want {
			if !bytes.Equal(got[name], b) {
				t.Errorf("kill %d after %v: %s differs from the uninterrupted run's", k, delay, name)
			}
		}
		if _, err := os.Stat(ck); err == nil {
			t.Errorf("kill %d: the checkpoint of a completed run was left behind", k)
		}
	}
	t.Logf("%d kills: %v", kills, landed)
}

// names returns the names of files, sorted.
func names(files map[string][]byte) []string {
	var out []string
	for name := range files {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
