//go:build unix

package schedsim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
)

// unitFilterConfig is HPC Pack's job model for HPC2N's log as a Batsim
// workload, every time in it in seconds: templates (default and maximum
// run times, a rule on the requested time), the run-time filter, a quota
// per window, a license pool that keeps resources, a default hold period
// and a re-evaluation interval, and a submission program.
const unitFilterConfig = `[filters]
submission = ["require-runtime", "stamp"]
activation = ["quota", "licenses"]
default_hold = "7m"
reevaluate = "90s"
[licenses]
when_short = 2
[licenses.pool]
fluent = 3
[quota]
proc_seconds = 4e6
window = "1d"
[require_runtime]
template = "Short"
[templates.Short]
default_runtime = "25m"
max_runtime = "30h"
[templates.Long]
max_runtime = "3d"
licenses = "fluent:1"
[[template_rules]]
template = "Short"
max_estimate = "2h"
[[template_rules]]
template = "Long"
min_procs = 1
[programs.stamp]
path = "./stamp.sh"
`

// stampProgram is a submission filter program: it fails the jobs whose
// file says they were submitted at second 13 of a minute, and gives the
// jobs that ask for 1800 s or more one hour more (result 1).
const stampProgram = `#!/bin/sh
[ "$SCHEDSIM_FILTER_REVERT" = 1 ] && exit 0
grep -q 'SubmitTime="[^"]*:13 [AP]M"' "$1" && exit 2
n=$(sed -n 's/.* RuntimeSeconds="\([0-9]*\)".*/\1/p' "$1" | head -n 1)
[ -n "$n" ] && [ "$n" -ge 1800 ] || exit 0
sed -i "s/ RuntimeSeconds=\"$n\"/ RuntimeSeconds=\"$((n + 3600))\"/" "$1"
exit 1
`

// TestTimeUnitFilters: HPC Pack's filters and templates, whose times are
// seconds, in a run in ms: the job files and the programs see seconds,
// the settings count in ticks, so HPC2N's log in whole seconds replayed
// in ms gives the schedule in seconds ×1000 (the same jobs failed by the
// program and the templates, the same jobs held by the quota and kept
// waiting by the licenses, the same seconds in the notes), and both runs
// pass verify.
func TestTimeUnitFilters(t *testing.T) {
	n := int64(300)
	if simtest.Full() {
		n = 0
	}
	runs := unitRunsN(t, true, n, func(t *testing.T, sc *Scenario, unit, dir string) {
		if err := os.WriteFile(filepath.Join(dir, "stamp.sh"), []byte(stampProgram), 0o755); err != nil {
			t.Fatal(err)
		}
		sc.Config = writeFile(t, dir, "hpcpack.toml", unitFilterConfig)
		sc.Backfill = "easy"
	})
	// The run exercised each rule: jobs failed by the program and by a
	// template, held by the quota, kept waiting by the licenses.
	counts := map[string]int{}
	for _, r := range runs[1].rows {
		for _, k := range []string{"stamp", "allows at most", "held_sec=", "reserving_sec=", "submit=0,1"} {
			if strings.Contains(r.Metadata, k) {
				counts[k]++
			}
		}
	}
	for _, k := range []string{"stamp", "allows at most", "held_sec=", "reserving_sec=", "submit=0,1"} {
		if counts[k] == 0 {
			t.Errorf("no job's metadata has %q", k)
		}
	}
	t.Logf("%v", counts)
	// The notes' seconds carry the unit's decimals.
	frac := regexp.MustCompile(`_sec=\d+\.\d{3}\b`)
	for _, r := range runs[1].rows {
		if strings.Contains(r.Metadata, "_sec=") && !frac.MatchString(r.Metadata) {
			t.Fatalf("job %d: metadata %q has no seconds with 3 decimals", r.ID, r.Metadata)
		}
	}
}

// growProgram is a submission filter program that makes each job of more
// than one core malleable: half to twice its cores (at most 240).
const growProgram = `#!/bin/sh
[ "$SCHEDSIM_FILTER_REVERT" = 1 ] && exit 0
n=$(sed -n 's/.* MaxCores="\([0-9]*\)".*/\1/p' "$1" | head -n 1)
[ -n "$n" ] && [ "$n" -gt 1 ] || exit 0
hi=$((n * 2)); [ "$hi" -gt 240 ] && hi=240
sed -i "s/ MinCores=\"[0-9]*\"/ MinCores=\"$((n / 2))\"/; s/ MaxCores=\"[0-9]*\"/ MaxCores=\"$hi\"/" "$1"
exit 1
`

// TestTimeUnitGrow: growing jobs in a run in ms. A Batsim workload
// has no processor ranges, so a submission program gives them (MinCores
// and MaxCores in the job file); the jobs then start on their minimum and
// grow in ticks, a growth's end rounded up to the tick (policy.Span), and
// the activation filters' re-evaluations count in ticks. jobs.csv does
// not record growth, so the run's records are checked in the process by
// sim.Verify, with the growth steps; the run in seconds is checked the
// same way. A run in ms is not the run in seconds ×1000: its growths end
// at the ms, not the second.
func TestTimeUnitGrow(t *testing.T) {
	n := int64(300)
	if simtest.Full() {
		n = 0
	}
	dir := t.TempDir()
	trace := batsimOf(t, unitTrace, dir, n)
	if err := os.WriteFile(filepath.Join(dir, "grow.sh"), []byte(growProgram), 0o755); err != nil {
		t.Fatal(err)
	}
	config := writeFile(t, dir, "grow.toml", "[filters]\nsubmission = [\"widen\"]\nactivation = [\"licenses\"]\nreevaluate = \"45s\"\n"+
		"[licenses.pool]\nfluent = 200\n[templates.Default]\nlicenses = \"fluent:*\"\n[programs.widen]\npath = \"./grow.sh\"\n")
	for _, c := range []struct{ unit, speedup string }{{"s", "linear"}, {"ms", "linear"}, {"ms", "amdahl:0.1"}} {
		t.Run(c.unit+"-"+c.speedup, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.TimeUnit, sc.Plots, sc.Grow, sc.Speedup, sc.Config = trace, c.unit, false, true, c.speedup, config
			sc.Out = filepath.Join(t.TempDir(), "out")
			var col sim.Collector
			res, err := Run(context.Background(), &sc, Options{Observers: []sim.Observer{&col}, Warn: &bytes.Buffer{}})
			if err != nil {
				t.Fatal(err)
			}
			steps := 0
			for _, o := range col.Outcomes {
				steps += max(0, len(o.Steps)-1)
			}
			if steps == 0 {
				t.Fatal("no job grew")
			}
			speedup, _ := policy.ParseSpeedup(c.speedup)
			for _, v := range sim.Verify(res.Summary.Procs, col.Outcomes, sim.VerifyOptions{Speedup: speedup}) {
				t.Error(v)
			}
			if c.unit != "s" && res.Summary.TimeUnit != c.unit {
				t.Errorf("summary's time unit %q", res.Summary.TimeUnit)
			}
			t.Logf("%d jobs, %d growths, mean wait %.1f s", len(col.Outcomes), steps, res.Summary.Wait.Mean)
		})
	}
}
