package sim_test

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// sharedDir is ../shared beside the repository root.
const sharedDir = "../../shared"

func needShared(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(sharedDir, "reference")); err != nil {
		t.Skipf("skipping: %s/reference not found (it sits beside the repository in CI)", sharedDir)
	}
}

// referenceStarts reads a pyss output: job id → start time.
func referenceStarts(t testing.TB, path string) map[int64]int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[int64]int64)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == ';' {
			continue
		}
		fs := strings.Fields(line)
		id, _ := strconv.ParseInt(fs[0], 10, 64)
		sub, _ := strconv.ParseInt(fs[1], 10, 64)
		wait, _ := strconv.ParseInt(fs[2], 10, 64)
		out[id] = sub + wait
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReferenceStartTimes(t *testing.T) {
	needShared(t)
	traces := []string{"hpc2n", "NASA-iPSC-1993-3.1-cln", "log", "lublin_256", "LANL-CM5-1994-4.1-cln"}
	for _, kind := range []string{"norm", "exact"} {
		for _, tr := range traces {
			for _, pol := range []string{"fcfs", "easy", "cons", "depth1"} {
				name := fmt.Sprintf("%s/%s/%s", kind, tr, pol)
				t.Run(name, func(t *testing.T) {
					in := filepath.Join(sharedDir, "reference/inputs", kind, tr+".swf.gz")
					refPol := pol
					if pol == "depth1" {
						// The profile-based reservation-depth policy at depth 1
						// must give EASY's schedule.
						refPol = "easy"
					}
					ref := filepath.Join(sharedDir, "reference/outputs", fmt.Sprintf("pyss_%s_%s_%s.swf.gz", kind, tr, refPol))
					want := referenceStarts(t, ref)
					rd, err := workload.OpenSWF(in, workload.Rules{})
					if err != nil {
						t.Fatal(err)
					}
					defer rd.Close()
					var p policy.Policy = policy.FCFS{}
					switch pol {
					case "easy":
						p = &policy.EASY{Lookahead: policy.LookaheadAll}
					case "cons":
						p = &policy.Conservative{}
					case "depth1":
						p = &policy.Depth{Depth: 1, Lookahead: policy.LookaheadAll}
					}
					eng, err := sim.New(sim.Config{Procs: rd.Header().MachineSize(), Policy: p})
					if err != nil {
						t.Fatal(err)
					}
					col := &sim.Collector{}
					if _, err := eng.Run(rd, col); err != nil {
						t.Fatal(err)
					}
					got := make(map[int64]int64, len(col.Outcomes))
					for _, o := range col.Outcomes {
						got[o.Job.ID] = int64(o.Start)
					}
					if vs := sim.Verify(rd.Header().MachineSize(), col.Outcomes, verifyOpts(p)); len(vs) > 0 {
						t.Errorf("%d invariant violations, first: %v", len(vs), vs[0])
					}
					mism := 0
					for id, w := range want {
						if g, ok := got[id]; !ok || g != w {
							if mism < 5 {
								t.Errorf("job %d: start %d, reference %d (present %v)", id, g, w, ok)
							}
							mism++
						}
					}
					t.Logf("%s: %d jobs, %d mismatches against pyss", name, len(want), mism)
					if len(got) != len(want) {
						t.Errorf("simulated %d jobs, reference has %d", len(got), len(want))
					}
				})
			}
		}
	}
}
