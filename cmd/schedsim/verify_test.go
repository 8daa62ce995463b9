package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "small.swf", smallTrace)
	for _, bf := range []string{"off", "easy", "conservative"} {
		out := filepath.Join(dir, bf)
		if code, _, stderr := run(t, "run", "--trace", trace, "--backfill", bf, "--out", out, "-q"); code != 0 {
			t.Fatal(stderr)
		}
		code, stdout, stderr := run(t, "verify", out)
		if code != exitOK || !strings.Contains(stdout, "all invariants hold") {
			t.Fatalf("%s: verify exit %d:\n%s%s", bf, code, stdout, stderr)
		}
	}
	// Break the schedule: job 3 starts 5 s before its submission.
	out := filepath.Join(dir, "easy")
	p := filepath.Join(out, "jobs.csv")
	b, _ := os.ReadFile(p)
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		f := strings.Split(l, ",")
		if len(f) > 10 && f[0] == "3" {
			f[8] = "0" // starting_time
			lines[i] = strings.Join(f, ",")
		}
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := run(t, "verify", out)
	if code != exitError || !strings.Contains(stdout, "job 3: start-before-submit") {
		t.Fatalf("verify of a broken schedule: exit %d:\n%s", code, stdout)
	}
	if code, _, stderr := run(t, "verify", filepath.Join(dir, "nothing")); code != exitUsage || !strings.Contains(stderr, "summary.json") {
		t.Fatalf("verify of a missing directory: exit %d: %s", code, stderr)
	}
}
