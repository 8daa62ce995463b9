package schedsim

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScenarioHolds: a scenario's holds file (a path relative to the
// scenario) keeps the jobs it names from starting before their time under
// every policy, the fidelity comparison puts them in the class "held",
// and a bad line is an input error naming the file, the line and the
// column.
func TestScenarioHolds(t *testing.T) {
	dir := t.TempDir()
	// Four jobs of 1 processor on a machine of 4: without holds all start
	// at their submission.
	trace := "; MaxProcs: 4\n" +
		"1 0 0 100 1 -1 -1 1 200 -1 1 1 1 -1 -1 -1 -1 -1\n" +
		"2 10 500 100 1 -1 -1 1 200 -1 1 2 1 -1 -1 -1 -1 -1\n" +
		"3 20 0 100 1 -1 -1 1 200 -1 1 3 1 -1 -1 -1 -1 -1\n" +
		"4 30 70 100 1 -1 -1 1 200 -1 1 4 1 -1 -1 -1 -1 -1\n"
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("t.swf", trace)
	write("h.txt", "# job, earliest start\n2 510\n4 100\n9 5\n")
	write("bad.txt", "2 510\n4 x\n")
	for _, policy := range []string{"backfill = \"off\"", "backfill = \"easy\"", "backfill = \"conservative\"", "backfill = \"hpcpack\"", "backfill = \"slurm\"",
		"mode = \"gang\"", "mode = \"exclusive\""} {
		t.Run(policy, func(t *testing.T) {
			write("s.toml", "trace = \"t.swf\"\nholds = \"h.txt\"\n"+policy+"\n")
			sc, err := LoadScenario(filepath.Join(dir, "s.toml"), Default())
			if err != nil {
				t.Fatal(err)
			}
			f, err := Fidelity(context.Background(), &sc, FidelityOptions{}, Options{Warn: &strings.Builder{}})
			if err != nil {
				t.Fatal(err)
			}
			if f.Overall.Jobs != 4 || f.Overall.SimulatedMeanWait != float64(0+500+0+70)/4 {
				t.Errorf("%d jobs, simulated mean wait %v, want 4 and the recorded %v", f.Overall.Jobs, f.Overall.SimulatedMeanWait, f.Overall.RecordedMeanWait)
			}
			var held, notHeld int
			for _, c := range f.Classes {
				if c.By == "hold" && c.Class == "held" {
					held = c.Jobs
				}
				if c.By == "hold" && c.Class == "not held" {
					notHeld = c.Jobs
				}
			}
			if held != 2 || notHeld != 2 {
				t.Errorf("held %d, not held %d, want 2 and 2", held, notHeld)
			}
		})
	}
	write("s.toml", "trace = \"t.swf\"\nholds = \"bad.txt\"\n")
	sc, err := LoadScenario(filepath.Join(dir, "s.toml"), Default())
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), &sc, Options{Warn: &strings.Builder{}})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `bad.txt:2: column "hold_until"`) {
		t.Fatalf("err %v, want an input error naming bad.txt:2 and the column", err)
	}
}
