package sim_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

var update = flag.Bool("update", false, "rewrite the schedules of testdata/scenarios/*.txt with the engine's")

// TestScenarioFiles runs every scenario of testdata/scenarios (the format
// is simtest.Scenario's) and compares the schedule with the one the file
// gives, which was checked by hand. go test ./sim -run TestScenarioFiles
// -update writes the engine's schedule into the files: check the diff by
// hand before committing it.
func TestScenarioFiles(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "scenarios", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no scenario files in testdata/scenarios")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := simtest.ParseScenario(path, data)
			if err != nil {
				t.Fatal(err)
			}
			got := s.Run(t)
			switch {
			case *update:
				if !s.HasSchedule || got != s.Want {
					if err := os.WriteFile(path, s.WithSchedule(got), 0o644); err != nil {
						t.Fatal(err)
					}
					t.Logf("%s: schedule rewritten; check it by hand", path)
				}
			case !s.HasSchedule:
				t.Errorf("%s has no schedule yet: run go test ./sim -run TestScenarioFiles -update and check the one it writes by hand", path)
			case got != s.Want:
				t.Errorf("%s: the engine's schedule differs from the file's (go test -update rewrites it):\n got:\n%s\nwant:\n%s", path, got, s.Want)
			}
		})
	}
}
