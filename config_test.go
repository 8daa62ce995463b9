package schedsim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/workload"
)

// writeFile writes text to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readmeConfig returns the example configuration of the README's "HPC
// Pack filters" section: the documentation is tested.
func readmeConfig(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "### The configuration file")
	if i < 0 {
		t.Fatal("README has no configuration file section")
	}
	s = s[i:]
	i = strings.Index(s, "```toml\n")
	j := strings.Index(s[i+8:], "```")
	if i < 0 || j < 0 {
		t.Fatal("README's configuration section has no toml block")
	}
	return s[i+8 : i+8+j]
}

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
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "### Minimum and maximum resources")
	if i < 0 {
		t.Fatal("README has no section on minimum and maximum resources")
	}
	s = s[i:]
	i = strings.Index(s, "```toml\n")
	if i < 0 {
		t.Fatal("the section has no toml block")
	}
	j := strings.Index(s[i+8:], "```")
	if j < 0 {
		t.Fatal("the section's toml block does not end")
	}
	cfg, err := loadRunConfig(writeFile(t, t.TempDir(), "grow.toml", s[i+8:i+8+j]))
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
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "### The cluster: nodes")
	if i < 0 {
		t.Fatal("README has no cluster section")
	}
	s = s[i:]
	i = strings.Index(s, "```toml\n")
	j := strings.Index(s[i+8:], "```")
	if i < 0 || j < 0 {
		t.Fatal("README's cluster section has no toml block")
	}
	path := writeFile(t, t.TempDir(), "c.toml", s[i+8:i+8+j])
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
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "## SCore-D queues")
	if i < 0 {
		t.Fatal("README has no SCore-D queues section")
	}
	s = s[i:]
	i = strings.Index(s, "```toml\n")
	j := strings.Index(s[i+8:], "```")
	if i < 0 || j < 0 {
		t.Fatal("README's SCore-D section has no toml block")
	}
	o := &runner{Scenario: &Scenario{Config: writeFile(t, t.TempDir(), "scored.toml", s[i+8:i+8+j])}}
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
