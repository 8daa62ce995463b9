package schedsim

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLoadScenario(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, text string
		check      func(t *testing.T, sc Scenario)
		wantErr    string
	}{
		{name: "policy keys", text: "backfill = \"off\"\nlookahead = 100\nreservation_depth = \"all\"\nsjbf = true\n", check: func(t *testing.T, sc Scenario) {
			if sc.Backfill != "off" || sc.Lookahead != "100" || sc.ReservationDepth != "all" || !sc.SJBF {
				t.Errorf("read %+v", sc)
			}
			if sc.Order != "fcfs" || sc.Format != "csv" {
				t.Errorf("defaults lost: order %q format %q", sc.Order, sc.Format)
			}
		}},
		{name: "relative paths", text: "trace = \"t.swf\"\nout = \"res\"\nnode_events = \"/abs/n.txt\"\n", check: func(t *testing.T, sc Scenario) {
			if sc.Trace != filepath.Join(dir, "t.swf") || sc.Out != filepath.Join(dir, "res") || sc.NodeEvents != "/abs/n.txt" {
				t.Errorf("paths %q %q %q", sc.Trace, sc.Out, sc.NodeEvents)
			}
		}},
		{name: "embedded options", text: "mode = \"gang\"\nmpl = 4\nquantum = \"100ms\"\ngrow = true\nnode_size = 8\n", check: func(t *testing.T, sc Scenario) {
			if sc.Mode != "gang" || sc.MPL != 4 || sc.Quantum != "100ms" || !sc.Grow || sc.NodeSize != 8 {
				t.Errorf("read %+v", sc)
			}
		}},
		{name: "config tables in the file", text: "backfill = \"easy\"\n[licenses]\npool = { fluent = 8 }\n", check: func(t *testing.T, sc Scenario) {
			if filepath.Base(sc.Config) != "config tables in the file.toml" {
				t.Errorf("config %q, want the file itself", sc.Config)
			}
		}},
		{name: "unknown key", text: "lookahed = 3\n", wantErr: "unknown key lookahed"},
		{name: "syntax", text: "backfill = \n", wantErr: "line 1"},
		{name: "wrong type", text: "procs = \"many\"\n", wantErr: "procs"},
		{name: "deep nesting", text: "a = " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n", wantErr: "nested more than 64 deep"},
		{name: "both configs", text: "config = \"other.toml\"\n[licenses]\npool = { a = 1 }\n", wantErr: "give one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, tt.name+".toml", tt.text)
			sc, err := LoadScenario(path, Default())
			if tt.wantErr != "" {
				var ie *InputError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ie) {
					t.Fatalf("error %v, want an InputError containing %q", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), path) {
					t.Errorf("error %q does not name the file", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, sc)
		})
	}
}

// TestCanonicalRoundTrip: a scenario decoded from its canonical form is the
// same scenario (checkpoints rely on it).
func TestCanonicalRoundTrip(t *testing.T) {
	sc := Default()
	sc.Trace, sc.Lookahead, sc.QueueStates, sc.Mode = "x.swf", "all", []string{"1=deactivated@10"}, "gang"
	dir := t.TempDir()
	path := filepath.Join(dir, "ck")
	c := &checkpointFile{Scenario: sc.Canonical()}
	if err := writeCheckpoint(path, c); err != nil {
		t.Fatal(err)
	}
	back, err := CheckpointScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Canonical()) != string(sc.Canonical()) {
		t.Errorf("round trip:\n%s\n%s", back.Canonical(), sc.Canonical())
	}
}

// TestHashFollowsInputs: the scenario hash changes when a file it names
// changes, and not otherwise.
func TestHashFollowsInputs(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, dir, "slurm.conf", "NodeName=n[1-4] CPUs=8\n")
	sc := Default()
	sc.SlurmConf = conf
	h1, err := sc.Hash()
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := sc.Hash()
	if h1 != h2 {
		t.Fatal("hash is not deterministic")
	}
	if err := os.WriteFile(conf, []byte("NodeName=n[1-4] CPUs=16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h3, _ := sc.Hash(); h3 == h1 {
		t.Error("hash unchanged after slurm.conf was edited")
	}
	sc.SlurmConf = filepath.Join(dir, "missing.conf")
	if _, err := sc.Hash(); err == nil {
		t.Error("no error for a missing input file")
	}
}

func FuzzLoadScenario(f *testing.F) {
	f.Add("backfill = \"off\"\n")
	f.Add("lookahead = 100\n[licenses]\npool = { a = 1 }\n")
	f.Add("a = [[[[{b = \"]]]\"}]]]]\n")
	f.Add("x = '''\n[[[\n'''\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		path := filepath.Join(dir, "f.toml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		sc, err := LoadScenario(path, Default())
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an InputError", err)
			}
			return
		}
		_ = sc.Canonical()
	})
}

// TestHashPolicyFiles: a scenario's hash covers the files an external
// policy's command line names, so that a sweep does not keep the result
// of a program that changed.
func TestHashPolicyFiles(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "p.py", "print('a')\n")
	sc := Default()
	sc.PolicyExec = "python3 '" + script + "' --flag"
	h1, err := sc.Hash()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "p.py", "print('b')\n")
	h2, err := sc.Hash()
	if err != nil {
		t.Fatal(err)
	}
	if h1 == h2 {
		t.Error("the hash did not change with the policy's script")
	}
}

// TestPolicyOptionsWithoutExec: --policy-timeout and --policy-log without
// --policy-exec are said to do nothing.
func TestPolicyOptionsWithoutExec(t *testing.T) {
	sc := Default()
	sc.PolicyTimeout = "5s"
	res, err := Run(context.Background(), &sc, Options{Warn: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	want := "--policy-timeout and --policy-log apply to --policy-exec: they have no effect"
	if !slices.Contains(res.Summary.Warnings, want) {
		t.Errorf("warnings %q, want %q", res.Summary.Warnings, want)
	}
}
