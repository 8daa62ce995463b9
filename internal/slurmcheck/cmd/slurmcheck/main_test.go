package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLatency runs `slurmcheck latency` on testdata/run6 as the script
// does: the sentence, the value of --bf-end-latency, and bad input named by
// file and line.
func TestLatency(t *testing.T) {
	runDir := "../../testdata/run6"
	dir := t.TempDir()
	logPath := filepath.Join(dir, "slurmctld.log")
	gz, err := os.Open(filepath.Join(runDir, "slurmctld.log.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	wl := filepath.Join(runDir, "workload.txt")
	short := filepath.Join(dir, "short.txt")
	if err := os.WriteFile(short, []byte("0 3 2 12\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("0 3 2 12\n1 x 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		args        []string
		out, errHas string
	}{
		{"flag", []string{"latency", "--flag", "--log", logPath, "--workload", wl}, "19000us\n", ""},
		{"sentence", []string{"latency", "--log", logPath, "--workload", wl},
			"end latency 19 ms: median over 40 jobs (37 started by backfill)", ""},
		{"another workload", []string{"latency", "--log", logPath, "--workload", short}, "", "the log has 40 jobs, the workload 1"},
		{"bad workload", []string{"latency", "--log", logPath, "--workload", bad}, "", "bad.txt:2: cpus"},
		{"missing log", []string{"latency", "--workload", wl}, "", "latency needs --log and --workload"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(tc.args, &out)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want one with %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(out.String(), tc.out) {
				t.Errorf("printed %q, want it to start with %q", out.String(), tc.out)
			}
		})
	}
}
