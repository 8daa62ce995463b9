package schedsim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

// sharedTraces holds the real traces beside the repository (../shared).
const sharedTraces = "../shared/traces"

// sharedTrace returns the path of a trace of ../shared/traces, or skips
// the test without it.
func sharedTrace(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(sharedTraces, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipping: %s not found (the shared traces sit beside the repository, at ../shared)", p)
	}
	return p
}

// pythonExample is the command line of a Python example policy.
func pythonExample(t *testing.T, name string) string {
	return "exec '" + simtest.Python3(t) + "' policy/external/python/examples/" + name + ".py"
}

// runVerified runs sc into dir/name, checks that schedsim verify finds the
// result clean, and returns its jobs.csv.
func runVerified(t *testing.T, sc Scenario, dir, name string) []byte {
	t.Helper()
	sc.Out, sc.Plots = filepath.Join(dir, name), false
	if _, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}}); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out bytes.Buffer
	rs, err := VerifyDir(sc.Out, 20, &out)
	if err != nil {
		t.Fatalf("%s: verify: %v", name, err)
	}
	if len(rs) == 0 || rs[0].Violations != 0 {
		t.Fatalf("%s: verify: %+v\n%s", name, rs, out.String())
	}
	b, err := os.ReadFile(filepath.Join(sc.Out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExternalNodeEvents: the Python EASY example, told of the node events
// through the protocol (node_events, back, the stopped jobs), replays
// HPC2N under failures, drains and a whole-machine outage, with the jobs
// killed or requeued: verify finds the result clean, and every job runs
// where and when the built-in EASY (lookahead all) runs it, byte for byte
// in jobs.csv. The log shows that jobs were stopped and that drains changed
// what running jobs give back.
func TestExternalNodeEvents(t *testing.T) {
	trace := sharedTrace(t, "HPC2N-2002-first3170.swf.gz")
	easy := pythonExample(t, "easy")
	for _, action := range []string{"kill", "requeue"} {
		t.Run(action, func(t *testing.T) {
			dir := t.TempDir()
			sc := Default()
			sc.Trace = trace
			sc.NodeEvents, sc.NodeSize, sc.OnNodeFail = "testdata/external/hpc2n-events.nodes", 2, action
			builtin := sc
			builtin.Backfill, builtin.Lookahead = "easy", "all"
			want := runVerified(t, builtin, dir, "builtin")
			ext := sc
			ext.PolicyExec, ext.PolicyLog = easy, filepath.Join(dir, "policy.log")
			got := runVerified(t, ext, dir, "external")
			if !bytes.Equal(got, want) {
				t.Errorf("jobs.csv of the Python EASY differs from the built-in EASY's")
			}
			log, err := os.ReadFile(ext.PolicyLog)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{
				`"machine":{"procs":240,"node_events":true}`,
				`"node_events":true}`, // the client asks for them
				`{"time":2505600,"state":"down","nodes":[[60,89]],"reason":"power","stopped":[1206,1207,1208,1209,1210],"requeued":` + map[string]string{"kill": "false", "requeue": "true"}[action],
				`"back":[[744,16],[745,0],[746,0],[747,8]]`,
			} {
				if !strings.Contains(string(log), w) {
					t.Errorf("the policy log lacks %s", w)
				}
			}
		})
	}
}

// TestExternalNodes: the Python FCFS and EASY examples schedule HPC2N on a
// cluster of nodes, asking schedsim's node selector where a job fits (the
// protocol's ask) and learning where each started job went and what it
// holds (placed): whole nodes (linear), and cores within two groups of
// nodes (cons_res) with node events. verify finds every result clean, and
// each is the built-in policy's, byte for byte in jobs.csv.
func TestExternalNodes(t *testing.T) {
	trace := sharedTrace(t, "HPC2N-2002-first3170.swf.gz")
	tests := []struct {
		name, config, events string
	}{
		{"linear", "testdata/external/hpc2n-linear.toml", ""},
		{"cons_res+events", "testdata/external/hpc2n-consres.toml", "testdata/external/hpc2n-consres-events.nodes"},
	}
	for _, tt := range tests {
		for _, pol := range []string{"fcfs", "easy"} {
			t.Run(tt.name+"/"+pol, func(t *testing.T) {
				dir := t.TempDir()
				sc := Default()
				sc.Trace, sc.Config, sc.NodeEvents = trace, tt.config, tt.events
				builtin := sc
				builtin.Backfill, builtin.Lookahead = map[string]string{"fcfs": "off", "easy": "easy"}[pol], "all"
				want := runVerified(t, builtin, dir, "builtin")
				ext := sc
				ext.PolicyExec, ext.PolicyLog = pythonExample(t, pol), filepath.Join(dir, "policy.log")
				got := runVerified(t, ext, dir, "external")
				if !bytes.Equal(got, want) {
					t.Errorf("jobs.csv of the Python %s differs from the built-in policy's", pol)
				}
				log, err := os.ReadFile(ext.PolicyLog)
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range []string{`"groups":[{"name":`, `"placed":true`, `{"type":"fits","pass":1,`} {
					if !strings.Contains(string(log), w) {
						t.Errorf("the policy log lacks %s", w)
					}
				}
			})
		}
	}
}

// TestExternalCalendar: under reservations (a partial nightly maintenance,
// one for a user), a start window and per-user limits, which the engine
// enforces whatever the policy (as slurmctld does whatever the scheduler
// plugin), the Python FCFS and EASY examples ask which jobs may start and
// are told why the others may not: verify finds their results clean.
// Without the limits, the Python FCFS is the built-in FCFS byte for byte.
// (With them they differ by design: the protocol checks a job's limits
// before its processors, as Slurm does, so FCFS passes over a job a limit
// holds whatever its size; the built-in FCFS is blocked by such a job when
// the limit began to hold it within the pass and it is also too big for
// the free processors.)
func TestExternalCalendar(t *testing.T) {
	trace := sharedTrace(t, "HPC2N-2002-first3170.swf.gz")
	const calendar = "testdata/external/hpc2n-calendar.toml"
	b, err := os.ReadFile(calendar)
	if err != nil {
		t.Fatal(err)
	}
	noLimits, _, ok := strings.Cut(string(b), "[[limit]]")
	if !ok {
		t.Fatalf("%s has no [[limit]]", calendar)
	}
	for _, pol := range []string{"fcfs", "easy"} {
		t.Run(pol, func(t *testing.T) {
			dir := t.TempDir()
			sc := Default()
			sc.Trace, sc.Config = trace, calendar
			sc.PolicyExec, sc.PolicyLog = pythonExample(t, pol), filepath.Join(dir, "policy.log")
			runVerified(t, sc, dir, "limits")
			log, err := os.ReadFile(sc.PolicyLog)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{`"machine":{"procs":240,"calendar":true}`, `,"limit"]`, `,"reservation"]`, `,"start window"]`} {
				if !strings.Contains(string(log), w) {
					t.Errorf("the policy log lacks %s", w)
				}
			}
			if pol != "fcfs" {
				return
			}
			sc.Config, sc.PolicyLog = writeFile(t, dir, "calendar.toml", noLimits), ""
			got := runVerified(t, sc, dir, "external")
			builtin := sc
			builtin.PolicyExec, builtin.Backfill = "", "off"
			if want := runVerified(t, builtin, dir, "builtin"); !bytes.Equal(got, want) {
				t.Error("without limits, jobs.csv of the Python FCFS differs from the built-in FCFS's")
			}
		})
	}
}

// TestExternalSwitching: with idle nodes switched off after 10 minutes and
// on again for the queue (--power-policy idle:10m, a sleep state of the
// README's power model), the Python FCFS and EASY examples, told of the
// switches as node events ("off", "on"), schedule HPC2N as the built-in
// policies do (jobs.csv byte for byte), and verify finds no job on a node
// off or switching.
func TestExternalSwitching(t *testing.T) {
	trace := sharedTrace(t, "HPC2N-2002-first3170.swf.gz")
	for _, pol := range []string{"fcfs", "easy"} {
		t.Run(pol, func(t *testing.T) {
			dir := t.TempDir()
			sc := Default()
			sc.Trace, sc.Config, sc.PowerPolicy = trace, "testdata/external/hpc2n-power.toml", "idle:10m"
			builtin := sc
			builtin.Backfill, builtin.Lookahead = map[string]string{"fcfs": "off", "easy": "easy"}[pol], "all"
			want := runVerified(t, builtin, dir, "builtin")
			ext := sc
			ext.PolicyExec, ext.PolicyLog = pythonExample(t, pol), filepath.Join(dir, "policy.log")
			got := runVerified(t, ext, dir, "external")
			if !bytes.Equal(got, want) {
				t.Errorf("jobs.csv of the Python %s differs from the built-in policy's", pol)
			}
			log, err := os.ReadFile(ext.PolicyLog)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{`"node_events":true}`, `{"time":600,"state":"off","nodes":[[`, `"state":"on","nodes":[[`} {
				if !strings.Contains(string(log), w) {
					t.Errorf("the policy log lacks %s", w)
				}
			}
		})
	}
}

// TestExternalImmediate: with LANL-CM5's queue 6 immediate, the Python
// FCFS and EASY examples, which never hear of its jobs, schedule the
// other queues' first jobs as the built-in policies do (jobs.csv byte for
// byte), and verify finds every immediate job started at its submission.
func TestExternalImmediate(t *testing.T) {
	trace := sharedTrace(t, "LANL-CM5-1994-4.1-cln.swf.gz")
	for _, pol := range []string{"fcfs", "easy"} {
		t.Run(pol, func(t *testing.T) {
			dir := t.TempDir()
			sc := Default()
			sc.Trace, sc.MaxJobs, sc.ImmediateQueues = trace, 5000, "6"
			sc.PolicyExec = pythonExample(t, pol)
			got := runVerified(t, sc, dir, "external")
			if n := bytes.Count(got, []byte(",immediate=1 ")); n != 512 {
				t.Errorf("%d immediate jobs in jobs.csv, want queue 6's 512", n)
			}
			builtin := sc
			builtin.PolicyExec = ""
			builtin.Backfill, builtin.Lookahead = map[string]string{"fcfs": "off", "easy": "easy"}[pol], "all"
			if want := runVerified(t, builtin, dir, "builtin"); !bytes.Equal(got, want) {
				t.Errorf("jobs.csv of the Python %s differs from the built-in's", pol)
			}
		})
	}
}
