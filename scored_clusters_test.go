package schedsim

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim/simtest"
)

// fedTOML is a cluster of clusters of HPC2N's 240 processors for SCore-D's
// queues: 60, 40 and 20 hosts of 2 processors at speeds 1, 1.5 and 2,
// with 1, 2 and 0.5 GB each; queue 1's jobs may take 30 % of a host's
// memory.
const fedTOML = `[scored]
[[scored.queue]]
[[scored.queue]]
memory_percent = 30
[[clusters]]
[[clusters.groups]]
name = "a"
count = 60
cores = 2
memory_mb = 1024
[[clusters]]
[[clusters.groups]]
name = "b"
count = 40
cores = 2
speed = 1.5
memory_mb = 2048
[[clusters]]
[[clusters.groups]]
name = "c"
count = 20
cores = 2
speed = 2
memory_mb = 512
`

// TestScoreDClustersTrace runs SCore-D's queues on a cluster of three
// clusters (fedTOML) on HPC2N's first 3170 jobs — with CI=true also on
// LANL-CM5 as two clusters of 512 and 512 processors at speeds 1 and 2
// — in gang and exclusive mode, with a day of hosts down and a drain:
// schedsim verify passes (each job on its cluster, or on several when no
// one holds it; no processor twice in a row; the node events), two runs
// write the same bytes, every cluster runs jobs, and some job larger than
// every cluster ran on several.
func TestScoreDClustersTrace(t *testing.T) {
	type trace struct {
		path, toml, events string
		largest            int // the largest cluster's processors
	}
	dir := t.TempDir()
	traces := []trace{{filepath.Join("..", "shared", "traces", "HPC2N-2002-first3170.swf.gz"), fedTOML,
		"400000 DOWN 0-19 disk\n410000 DRAIN 100-109\n450000 RESUME 100-109\n500000 RESUME 0-19\n", 120}}
	if simtest.Full() {
		traces = append(traces, trace{filepath.Join("..", "shared", "traces", "LANL-CM5-1994-4.1-cln.swf.gz"),
			"[scored]\n[[scored.queue]]\n[[clusters]]\n[[clusters.groups]]\nname = \"slow\"\ncount = 128\ncores = 4\n[[clusters]]\n[[clusters.groups]]\nname = \"fast\"\ncount = 128\ncores = 4\nspeed = 2\n",
			"29894400 DOWN 0-25 fan\n29980800 RESUME 0-25\n", 512})
	}
	for ti, tr := range traces {
		if _, err := os.Stat(tr.path); err != nil {
			t.Skipf("skipping: %s not found (../shared is the project's shared data)", tr.path)
		}
		cfg := writeFile(t, dir, "fed"+strconv.Itoa(ti)+".toml", tr.toml)
		events := writeFile(t, dir, "hosts"+strconv.Itoa(ti)+".events", tr.events)
		for _, mode := range []string{"gang", "exclusive"} {
			t.Run(filepath.Base(tr.path)+"/"+mode, func(t *testing.T) {
				var first []byte
				for i := range 2 {
					sc := Default()
					sc.Trace, sc.Mode, sc.Config = tr.path, mode, cfg
					sc.NodeEvents, sc.OnNodeFail = events, "requeue"
					sc.Out = filepath.Join(dir, strconv.Itoa(ti)+mode+strconv.Itoa(i))
					if _, err := Run(context.Background(), &sc, Options{Warn: io.Discard}); err != nil {
						t.Fatal(err)
					}
					b, err := os.ReadFile(filepath.Join(sc.Out, "jobs.csv"))
					if err != nil {
						t.Fatal(err)
					}
					if i == 1 {
						if !bytes.Equal(b, first) {
							t.Fatal("two runs wrote different jobs.csv")
						}
						break
					}
					first = b
					var out bytes.Buffer
					if _, err := VerifyDir(sc.Out, 5, &out); err != nil {
						t.Fatalf("verify: %v\n%s", err, out.String())
					}
					sum, err := os.ReadFile(filepath.Join(sc.Out, "summary.json"))
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Contains(sum, []byte(`"clusters": [`)) || !bytes.Contains(sum, []byte("+clusters=")) {
						t.Error("summary.json does not record the clusters")
					}
				}
				if ti == 0 && !bytes.Contains(first, []byte("resource shortage at submission (queue 1): memory limit")) {
					t.Error("no job was refused for its cluster's memory")
				}
				used, spanned, requeued := usedClusters(t, first, tr.largest)
				if used < 2 || (ti == 0 && used < 3) {
					t.Errorf("jobs ran on %d clusters", used)
				}
				if spanned == 0 && ti == 0 {
					t.Error("no job larger than every cluster ran on several")
				}
				if requeued == 0 {
					t.Error("no job was requeued by the hosts' failure")
				}
			})
		}
	}
}

// usedClusters reads jobs.csv: on how many clusters (of HPC2N's fedTOML,
// or of two equal ones of largest processors) jobs started, how many jobs
// larger than the largest cluster ran, and how many were requeued.
func usedClusters(t *testing.T, jobs []byte, largest int) (used, spanned, requeued int) {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(jobs)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	bases := []int{0, 120, 200}
	if largest != 120 {
		bases = []int{0, largest}
	}
	seen := map[int]bool{}
	for _, r := range rows[1:] {
		if strings.Contains(r[col["metadata"]], "requeues=") {
			requeued++
		}
		rs, err := cluster.ParseRanges(r[col["allocated_resources"]])
		if err != nil || len(rs) == 0 {
			continue
		}
		if p, _ := strconv.Atoi(r[col["requested_number_of_resources"]]); p > largest {
			spanned++
		}
		k := 0
		for k+1 < len(bases) && rs[0].Lo >= bases[k+1] {
			k++
		}
		seen[k] = true
	}
	return len(seen), spanned, requeued
}

// TestScoreDClustersRefused checks what SCore-D's queues on a cluster of
// clusters refuse, with the reason.
func TestScoreDClustersRefused(t *testing.T) {
	trace := filepath.Join("..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", trace)
	}
	dir := t.TempDir()
	two := "[[clusters]]\n[[clusters.groups]]\nname = \"a\"\ncount = 60\ncores = 2\n[[clusters]]\n[[clusters.groups]]\nname = \"b\"\ncount = 30\ncores = 4\nspeed = 2\n"
	for _, tc := range []struct{ name, toml, events, want string }{
		{"assign at start", "[federation]\nassign = \"start\"\n" + two, "", "assigns a job its cluster at its submission"},
		{"hosts differ within a cluster", two + "[[clusters.groups]]\nname = \"b2\"\ncount = 2\ncores = 8\nspeed = 2\n", "", "identical hosts"},
		{"speeds differ within a cluster", two + "[[clusters.groups]]\nname = \"b2\"\ncount = 2\ncores = 4\nspeed = 3\n", "", "identical hosts"},
		{"node events on hosts that differ", two, "0 DOWN 1\n", "different cores"},
		{"switching nodes that straddle clusters", "[[clusters]]\n[[clusters.groups]]\nname = \"a\"\ncount = 61\ncores = 2\n[[clusters]]\n[[clusters.groups]]\nname = \"b\"\ncount = 61\ncores = 2\nspeed = 2\n" + switchPower(61), "", "not whole nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.Mode = trace, "gang"
			sc.Config = writeFile(t, dir, strings.ReplaceAll(tc.name, " ", "-")+".toml", tc.toml)
			if tc.events != "" {
				sc.NodeEvents = writeFile(t, dir, "ev", tc.events)
			}
			if strings.HasPrefix(tc.name, "switching") {
				sc.PowerPolicy = "idle:60"
			}
			_, err := Run(context.Background(), &sc, Options{Warn: io.Discard})
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want an InputError with %q", err, tc.want)
			}
		})
	}
}

// switchPower is a power model of nodes nodes of 4 cores with a sleep
// state, for switching nodes off.
func switchPower(nodes int) string {
	return "[[power.groups]]\nname = \"n\"\ncount = " + strconv.Itoa(nodes) + "\ncores = 4\nwatts = [\"100:120:200\"]\n" +
		"[[power.groups.sleep]]\nwatts = 10\nswitch_off = 60\nswitch_off_watts = 100\nswitch_on = 120\nswitch_on_watts = 150\n"
}

// TestScoreDClustersSwitching switches idle nodes off (--power-policy
// idle:10m) under SCore-D's queues on HPC2N's three clusters (fedTOML,
// hosts of 2 processors: 60 power nodes of 4 cores fall within the
// clusters), in gang and exclusive mode: verify passes (no job on a node
// off or switching, each job on its cluster), nodes are switched, and
// the run uses less energy than without switching.
func TestScoreDClustersSwitching(t *testing.T) {
	trace := filepath.Join("..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", trace)
	}
	dir := t.TempDir()
	cfg := writeFile(t, dir, "fed.toml", fedTOML+switchPower(60))
	for _, mode := range []string{"gang", "exclusive"} {
		t.Run(mode, func(t *testing.T) {
			kwh := map[string]float64{}
			for _, pol := range []string{"none", "idle:10m"} {
				sc := Default()
				sc.Trace, sc.Mode, sc.Config, sc.PowerPolicy, sc.Plots = trace, mode, cfg, pol, false
				sc.Out = filepath.Join(dir, mode+strings.ReplaceAll(pol, ":", "-"))
				if _, err := Run(context.Background(), &sc, Options{Warn: io.Discard}); err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if _, err := VerifyDir(sc.Out, 5, &out); err != nil {
					t.Fatalf("verify %s: %v\n%s", pol, err, out.String())
				}
				sum, err := os.ReadFile(filepath.Join(sc.Out, "summary.json"))
				if err != nil {
					t.Fatal(err)
				}
				var s struct {
					Energy struct{ KWh float64 } `json:"energy"`
				}
				if err := json.Unmarshal(sum, &s); err != nil {
					t.Fatal(err)
				}
				kwh[pol] = s.Energy.KWh
				if pol == "none" {
					continue
				}
				ps, err := os.ReadFile(filepath.Join(sc.Out, "pstate_changes.csv"))
				if err != nil {
					t.Fatal(err)
				}
				if n := bytes.Count(ps, []byte("\n")); n < 100 {
					t.Errorf("pstate_changes.csv has %d lines: the test does not exercise switching", n)
				}
			}
			if !(kwh["idle:10m"] < 0.9*kwh["none"]) {
				t.Errorf("%g kWh switching idle nodes off, %g kWh without: want at least 10 %% less", kwh["idle:10m"], kwh["none"])
			}
		})
	}
}
