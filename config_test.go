package schedsim

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// writeFile writes text to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	return simtest.WriteFile(t, dir, name, text)
}

// readmeTOML returns the first TOML block after the heading section of
// the README: the documentation's examples are tested.
func readmeTOML(t *testing.T, section string) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, section)
	if i < 0 {
		t.Fatalf("README has no section %q", section)
	}
	s = s[i:]
	i = strings.Index(s, "```toml\n")
	if i < 0 {
		t.Fatalf("README's section %q has no toml block", section)
	}
	j := strings.Index(s[i+8:], "```")
	if j < 0 {
		t.Fatalf("README's section %q: the toml block does not end", section)
	}
	return s[i+8 : i+8+j]
}

// readmeConfig returns the example configuration of the README's "HPC
// Pack filters" section.
func readmeConfig(t *testing.T) string { return readmeTOML(t, "### The configuration file") }

func TestLoadRunConfig(t *testing.T) {
	dir := t.TempDir()
	c, err := loadRunConfig(writeFile(t, dir, "ok.toml", readmeConfig(t)))
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.build(nil, traceEpoch(&workload.Header{}))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if len(h.Submission) != 2 || len(h.Activation) != 2 || len(h.Templates) != 3 || len(h.Rules) != 2 {
		t.Errorf("built %d/%d filters, %d templates, %d rules", len(h.Submission), len(h.Activation), len(h.Templates), len(h.Rules))
	}
	if h.DefaultHold != 900 || h.Reevaluate != 60 || !h.HasActivation() {
		t.Errorf("hold %d reevaluate %d", h.DefaultHold, h.Reevaluate)
	}
	if s := h.Templates["SmallJob"]; s.Priority != 100 || !s.HasPriority || s.DefaultRun != 60 || len(s.Activation) != 1 {
		t.Errorf("SmallJob %+v", s)
	}

	bad := []struct {
		name, text, want string
	}{
		{"unknown key", "[filters]\ntimout = 3\n", "unknown key filters.timout"},
		{"hold too short", "[filters]\ndefault_hold = 30\n", "default_hold 30 s: must be between 60 s and 604800 s"},
		{"hold too long", "[filters]\ndefault_hold = \"8d\"\n", "must be between 60 s and 604800 s"},
		{"unknown filter", "[filters]\nactivation = [\"licences\"]\n", `"licences" is not an activation filter`},
		{"built-in without its section", "[filters]\nactivation = [\"licenses\"]\n", `"licenses" is not an activation filter`},
		{"wrong kind", "[max_size]\nprocs = 4\n[filters]\nactivation = [\"max-size\"]\n", `"max-size" is not an activation filter`},
		{"when short", "[licenses]\nwhen_short = 4\n", "want 1, 2 or 3"},
		{"rule to nowhere", "[[template_rules]]\ntemplate = \"Huge\"\n", `template "Huge", which is not defined`},
		{"bad duration", "[quota]\nproc_seconds = 5\nwindow = \"1w\"\n", `duration "1w"`},
		{"program without path", "[programs.x]\nargs = []\n", "programs.x.path"},
		{"revert is always made", "[programs.x]\npath = \"/bin/true\"\nrevert = false\n", "programs.x.revert: no longer a setting"},
		{"syntax", "[filters\n", "line 2"},
		{"deep nesting", "a = " + strings.Repeat("{b = ", 100) + "1" + strings.Repeat("}", 100) + "\n", "nested more than 64 deep"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadRunConfig(writeFile(t, dir, "bad.toml", tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if _, ok := err.(*InputError); !ok {
				t.Errorf("error %T is not a usage error (exit status 2)", err)
			}
		})
	}
}

// The README's [hpcpack] example loads and turns growth on with its model:
// the documentation is tested.
func TestReadmeGrowExample(t *testing.T) {
	cfg, err := loadRunConfig(writeFile(t, t.TempDir(), "grow.toml", readmeTOML(t, "### Minimum and maximum resources")))
	if err != nil {
		t.Fatal(err)
	}
	o := &runner{Scenario: &Scenario{}}
	g, err := o.growSettings(cfg)
	if err != nil || g == nil || g.Speedup.Name() != "amdahl:0.1" {
		t.Errorf("growth %+v, %v; want on with amdahl:0.1", g, err)
	}
}

// TestReadmeClusterExample loads the README's [cluster] example: the
// documentation is tested.
func TestReadmeClusterExample(t *testing.T) {
	path := writeFile(t, t.TempDir(), "c.toml", readmeTOML(t, "### The cluster: nodes"))
	cfg, err := loadRunConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	spec := cfg.Cluster.spec()
	if spec.Select != cluster.SelectConsRes || spec.Cores() != 128*32+4*72 || len(spec.Partitions) != 1 || spec.Partitions[0].MaxTime != 2*86400 {
		t.Errorf("README example read as %+v", spec)
	}
}

// TestReadmeScoreDConfig checks the README's SCore-D example configuration:
// the documentation is tested.
func TestReadmeScoreDConfig(t *testing.T) {
	o := &runner{Scenario: &Scenario{Config: writeFile(t, t.TempDir(), "scored.toml", readmeTOML(t, "## SCore-D queues"))}}
	c, err := o.scoreD()
	if err != nil {
		t.Fatal(err)
	}
	q0, q1 := c.Queues[0], c.Queues[1]
	if len(c.Queues) != 2 || q0.Mode.String() != "gang" || q1.Mode.String() != "exclusive" || q0.MaxCPUSec != 3600 || q0.ResidenceSec != 600 ||
		q0.MemPercent != 50 || q0.Group != 100 || q1.Group != -1 || !q1.Wait || q0.Wait || c.MPL != 2 || c.QuantumMs != 100 || c.SwitchMs != 5 ||
		c.MemKB != 33554432 || c.ProcsPerHost != 4 || len(c.Changes) != 2 || c.Map.QueueOf(1, 2) != 0 || c.Map.QueueOf(3, 2) != 1 {
		t.Errorf("README configuration read as %+v", c)
	}
	if got := scoredName(c); got != "scored(queues=2,mode=gang/exclusive,mpl=2,quantum=100ms,switch=5ms,preempt=suspend)" {
		t.Errorf("name %q", got)
	}
}

// TestProgramPaths: a program's relative path is relative to the
// configuration file's directory, wherever schedsim runs; a bare name is
// looked up in PATH; an absolute path stays. Each program answers with its
// own exit code, so the test sees which file ran.
func TestProgramPaths(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("skipping: the programs are shell scripts")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "conf", "filters"), 0o755); err != nil {
		t.Fatal(err)
	}
	exe := func(path string, code int) string {
		if err := os.WriteFile(path, []byte(fmt.Sprintf("#!/bin/sh\nexit %d\n", code)), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	exe(filepath.Join(dir, "conf", "filters", "f.sh"), 11)
	exe(filepath.Join(dir, "conf", "here.sh"), 12)
	abs := exe(filepath.Join(dir, "abs.sh"), 13)
	// Files of the same names in the working directory must not run.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		code       int
		status     hpcpack.Status
	}{
		{"beside the file", "filters/f.sh", 11, hpcpack.Exited},
		{"dot slash", "./here.sh", 12, hpcpack.Exited},
		{"parent", "../abs.sh", 13, hpcpack.Exited},
		{"absolute", abs, 13, hpcpack.Exited},
		{"bare name in PATH", "true", 0, hpcpack.Exited},
		{"bare name not in PATH", "here.sh", 0, hpcpack.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == "true" {
				if _, err := exec.LookPath("true"); err != nil {
					t.Skip("skipping: no true in PATH")
				}
			}
			conf := writeFile(t, filepath.Join(dir, "conf"), "c.toml", fmt.Sprintf("[programs.p]\npath = %q\n[filters]\nsubmission = [\"p\"]\n", tt.path))
			rel, err := filepath.Rel(wd, conf)
			if err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{conf, rel} {
				c, err := loadRunConfig(path)
				if err != nil {
					t.Fatal(err)
				}
				h, err := c.build(nil, time.Unix(0, 0))
				if err != nil {
					t.Fatal(err)
				}
				j := workload.Job{ID: 1, Procs: 1, Run: 1}
				r := h.Submission[0].FilterSubmission(&j)
				h.Close()
				if r.Status != tt.status || (r.Status == hpcpack.Exited && r.Code != tt.code) {
					t.Errorf("--config %s: result %+v, want %v %d", path, r, tt.status, tt.code)
				}
			}
		})
	}
}
