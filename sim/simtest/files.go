package simtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// WriteFile writes text to dir/name and returns its path.
func WriteFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// WriteTrace writes a seeded Lublin–Feitelson SWF trace of jobs jobs on 64
// processors at an offered load of 0.9 to dir/name and returns its path:
// the same arguments give the same bytes.
func WriteTrace(t testing.TB, dir, name string, jobs int, seed int64) string {
	t.Helper()
	cfg := workload.GenConfig{Jobs: jobs, Procs: 64, Load: 0.9, Seed: seed, Model: &workload.LublinAll}
	var b bytes.Buffer
	w, err := workload.NewSWFWriter(&b, cfg.Header())
	if err != nil {
		t.Fatal(err)
	}
	if err := workload.Generate(cfg, w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return WriteFile(t, dir, name, b.String())
}

// TierPartitions returns, as the [[table.partitions]] entries of a
// configuration's cluster table (table "cluster", or "clusters" for the
// last member of a cluster of clusters), two partitions on the node
// groups named: "low", SWF partition 1 and the default, and "high", SWF
// partition 2 with PriorityTier 1 — the two tiers of the preemption tests.
func TierPartitions(table string, groups ...string) string {
	gs := `"` + strings.Join(groups, `", "`) + `"`
	return "[[" + table + ".partitions]]\nname = \"low\"\ngroups = [" + gs + "]\nswf = 1\ndefault = true\n" +
		"[[" + table + ".partitions]]\nname = \"high\"\ngroups = [" + gs + "]\nswf = 2\npriority_tier = 1\n"
}

// WriteSWF writes jobs as an SWF trace with header h to dir/name and
// returns its path: a test that changes a real trace's jobs (partitions,
// sessions) runs the CLI on the result.
func WriteSWF(t testing.TB, dir, name string, h *workload.Header, jobs []workload.Job) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := workload.WriteSWF(f, h, jobs); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
