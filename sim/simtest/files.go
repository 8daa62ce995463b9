package simtest

import (
	"bytes"
	"os"
	"path/filepath"
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
