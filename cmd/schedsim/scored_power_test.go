package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// switchingPower is a power description for HPC2N-2002's 240 processors:
// 60 nodes of 4 cores with a sleep state.
const switchingPower = `[[power.groups]]
name = "seth"
count = 60
cores = 4
watts = ["100:120:200"]
[[power.groups.sleep]]
watts = 10
switch_off = 60
switch_off_watts = 100
switch_on = 120
switch_on_watts = 150
`

// TestRunScoreDSwitching switches idle nodes off under SCore-D's queues on
// HPC2N-2002's first 3,170 jobs, in gang mode and in exclusive mode
// (--power-policy idle:10m): the run passes verify — no stint on a node
// off or switching, machine_states.csv's computing nodes those the stints
// hold —, switches nodes, uses less energy than the same run without
// switching, and writes the same bytes twice. verify catches a node
// switched off under running jobs. --power-policy plan is refused with its
// reason.
func TestRunScoreDSwitching(t *testing.T) {
	trace := hpc2nFirst(t)
	dir := t.TempDir()
	conf := writeFile(t, dir, "power.toml", switchingPower)
	kwh := func(out string) float64 {
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Energy struct{ KWh float64 } `json:"energy"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s.Energy.KWh
	}
	for _, mode := range []string{"gang", "exclusive"} {
		t.Run(mode, func(t *testing.T) {
			runTo := func(out string, extra ...string) {
				t.Helper()
				args := append([]string{"run", "--trace", trace, "-q", "--config", conf, "--mode", mode, "--plots=false", "--out", filepath.Join(dir, mode, out)}, extra...)
				if code, _, stderr := run(t, args...); code != exitOK {
					t.Fatalf("exit %d: %s", code, stderr)
				}
			}
			runTo("none")
			runTo("idle", "--power-policy", "idle:10m")
			runTo("idle-again", "--power-policy", "idle:10m")
			out := filepath.Join(dir, mode, "idle")
			if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
				t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
			}
			files := readDir(t, out)
			if n := bytes.Count(files["pstate_changes.csv"], []byte("\n")); n < 100 {
				t.Errorf("pstate_changes.csv has %d lines: the test does not exercise switching", n)
			}
			again := readDir(t, filepath.Join(dir, mode, "idle-again"))
			for name, b := range files {
				if !bytes.Equal(again[name], b) {
					t.Errorf("%s differs from one run to the next", name)
				}
			}
			if none, idle := kwh(filepath.Join(dir, mode, "none")), kwh(out); !(idle < 0.9*none) {
				t.Errorf("%g kWh switching idle nodes off, %g kWh without: want at least 10 %% less", idle, none)
			}
			// Every node switched off from 1 s on, under the jobs that
			// run: verify names them.
			bad := filepath.Join(dir, mode, "bad")
			if err := os.MkdirAll(bad, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, b := range files {
				if name == "pstate_changes.csv" {
					b = bytes.Replace(b, []byte("0,0-59,0\n"), []byte("0,0-59,0\n1,0-59,-2\n"), 1)
				}
				writeFile(t, bad, name, string(b))
			}
			code, stdout, _ := run(t, "verify", bad)
			if code == exitOK || !strings.Contains(stdout, "which was off or switching") {
				t.Errorf("verify of a run under nodes switched off: exit %d\n%.500s", code, stdout)
			}
		})
	}
	code, _, stderr := run(t, "run", "--trace", trace, "-q", "--config", conf, "--mode", "gang", "--power-policy", "plan", "--plots=false", "--out", filepath.Join(dir, "plan"))
	if code != exitUsage || !strings.Contains(stderr, "never plans a start") {
		t.Errorf("--power-policy plan with SCore-D: exit %d, %s", code, stderr)
	}
}

// TestRunScoreDSwitchingTimeUnit switches nodes off under SCore-D's
// queues in a run in milliseconds and in microseconds (the recorded Batsim
// workload on its platform, whose switch-off lasts 6.1 s): verify passes,
// and the switches keep their fraction of a second, which a run in
// seconds rounds (6 s).
func TestRunScoreDSwitchingTimeUnit(t *testing.T) {
	ref := filepath.Join("..", "..", "..", "shared", "reference", "batsim-energy")
	w, platform := filepath.Join(ref, "medium_late.json"), filepath.Join(ref, "platform.xml")
	if _, err := os.Stat(w); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", w)
	}
	dir := t.TempDir()
	for _, unit := range []string{"ms", "us"} {
		for _, mode := range []string{"gang", "exclusive"} {
			out := filepath.Join(dir, mode+"-"+unit)
			if code, _, stderr := run(t, "run", "--trace", w, "--power", platform, "--mode", mode, "--time-unit", unit, "--power-policy", "idle:60",
				"--out", out, "-q", "--plots=false"); code != exitOK {
				t.Fatalf("%s %s: exit %d: %s", mode, unit, code, stderr)
			}
			if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "801 jobs, all invariants hold") {
				t.Fatalf("%s %s: verify: exit %d:\n%s%s", mode, unit, code, stdout, stderr)
			}
			b, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			var s struct {
				Energy struct {
					NodeSeconds map[string]float64 `json:"node_seconds"`
				} `json:"energy"`
			}
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			off := s.Energy.NodeSeconds["switching_off"]
			if n := off / 6.1; off == 0 || math.Abs(n-math.Round(n)) > 1e-6 {
				t.Errorf("%s %s: %g node-seconds switching off: want a positive multiple of 6.1 s", mode, unit, off)
			}
		}
	}
}
