package sim_test

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestWillRunNeverLate checks Slurm's WILL_RUN prediction on whole traces
// under EASY with exact estimates: the start predicted for a job at its
// submission, from the jobs running then and their (exact) ends, is never
// later than its real start, since jobs that start later only take
// resources away; and a job that started at once was predicted to.
func TestWillRunNeverLate(t *testing.T) {
	needShared(t)
	for _, tr := range []string{"lublin_256", "hpc2n"} {
		t.Run(tr, func(t *testing.T) {
			rd, err := workload.OpenSWF(filepath.Join(sharedDir, "reference/inputs/exact", tr+".swf.gz"), workload.Rules{})
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			size := rd.Header().MachineSize()
			spec := cluster.SinglePool(size)
			al, _ := spec.NewAllocator()
			eng, err := sim.New(sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Allocator: al})
			if err != nil {
				t.Fatal(err)
			}
			col := &sim.Collector{}
			st, err := eng.Run(rd, col)
			if err != nil {
				t.Fatal(err)
			}
			var ran []sim.Outcome
			for _, o := range col.Outcomes {
				if o.State != sim.Rejected {
					ran = append(ran, o)
				}
			}
			bySubmit := append([]sim.Outcome(nil), ran...)
			sort.SliceStable(bySubmit, func(a, b int) bool { return bySubmit[a].Job.Seq < bySubmit[b].Job.Seq })
			byStart := append([]sim.Outcome(nil), ran...)
			sort.SliceStable(byStart, func(a, b int) bool { return byStart[a].Start < byStart[b].Start })
			var active []sim.Outcome
			next, exact, late, wrong := 0, 0, 0, 0
			var held []cluster.Held
			for _, o := range bySubmit {
				now := o.Job.Submit
				for next < len(byStart) && byStart[next].Start < now {
					active = append(active, byStart[next])
					next++
				}
				k := 0
				for _, a := range active {
					if a.End > now {
						active[k] = a
						k++
					}
				}
				active = active[:k]
				a, _ := spec.NewAllocator()
				held = held[:0]
				for _, r := range active {
					req := cluster.RequestOf(&r.Job)
					a.Commit(req, r.Alloc)
					held = append(held, cluster.Held{End: r.End, Req: req, Alloc: r.Alloc})
				}
				pred, _ := cluster.WillRun(a, now, cluster.RequestOf(&o.Job), held, nil)
				if !o.HasPrediction || o.Predicted != pred {
					if wrong < 5 {
						t.Errorf("job %d: the engine predicted %d (%v), WillRun on the replayed state %d", o.Job.ID, o.Predicted, o.HasPrediction, pred)
					}
					wrong++
				}
				switch {
				case pred > o.Start:
					if late < 5 {
						t.Errorf("job %d: predicted start %d at submission %d, started at %d", o.Job.ID, pred, now, o.Start)
					}
					late++
				case o.Start == now && pred != now:
					t.Errorf("job %d started at its submission %d, predicted %d", o.Job.ID, now, pred)
				case pred == o.Start:
					exact++
				}
			}
			t.Logf("%s: %d jobs, %d predicted exactly, %d predicted late", tr, len(ran), exact, late)
			if st.Predicted != int64(len(ran)) || st.PredictedMet != int64(exact) {
				t.Errorf("stats: %d predictions, %d met; want %d, %d (never late, so met only when exact)", st.Predicted, st.PredictedMet, len(ran), exact)
			}
			if exact == 0 {
				t.Error("no prediction was exact: the test checks nothing")
			}
		})
	}
}

func TestPredictedStart(t *testing.T) {
	tests := []struct {
		name string
		spec *cluster.Spec
		pol  policy.Policy
		jobs []workload.Job
		want map[int64]workload.Time // job → predicted start
	}{
		{"idle nodes: now", twoNodes(cluster.SelectLinear), policy.FCFS{}, []workload.Job{
			job(1, 5, 4, 10, 10),
		}, map[int64]workload.Time{1: 5}},
		{"linear: after the running job's estimate", twoNodes(cluster.SelectLinear), policy.FCFS{}, []workload.Job{
			job(1, 0, 5, 50, 100),
			job(2, 10, 4, 10, 10),
		}, map[int64]workload.Time{1: 0, 2: 100}},
		{"cons_res: memory, not cores", twoNodes(cluster.SelectConsRes), policy.FCFS{}, []workload.Job{
			memJob(1, 0, 1, 100, 100, 7*gbKB),
			memJob(2, 0, 1, 30, 40, 7*gbKB),
			memJob(3, 1, 1, 10, 10, 2*gbKB),
		}, map[int64]workload.Time{1: 0, 2: 0, 3: 40}},
		{"queue ahead not counted: FCFS starts later than predicted", twoNodes(cluster.SelectConsRes), policy.FCFS{}, []workload.Job{
			job(1, 0, 8, 10, 10),
			job(2, 1, 8, 10, 10),
			job(3, 2, 1, 10, 10),
		}, map[int64]workload.Time{1: 0, 2: 10, 3: 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			al, err := tc.spec.NewAllocator()
			if err != nil {
				t.Fatal(err)
			}
			eng, err := sim.New(sim.Config{Policy: tc.pol, Allocator: al})
			if err != nil {
				t.Fatal(err)
			}
			col := &sim.Collector{}
			st, err := eng.Run(simtest.NewSource(tc.jobs), col)
			if err != nil {
				t.Fatal(err)
			}
			met := int64(0)
			for _, o := range col.Outcomes {
				if want, ok := tc.want[o.Job.ID]; !ok || !o.HasPrediction || o.Predicted != want {
					t.Errorf("job %d: predicted %d (%v), want %d (%v)", o.Job.ID, o.Predicted, o.HasPrediction, want, ok)
				}
				if o.Start <= o.Predicted {
					met++
				}
			}
			if st.Predicted != int64(len(tc.jobs)) || st.PredictedMet != met {
				t.Errorf("stats: %d predictions, %d met; want %d, %d", st.Predicted, st.PredictedMet, len(tc.jobs), met)
			}
		})
	}
}

func TestNoPredictionWithoutAllocator(t *testing.T) {
	rec, st := simtest.Simulate(t, 4, policy.FCFS{}, []workload.Job{job(1, 0, 2, 10, 10), job(2, 0, 4, 10, 10)})
	for _, r := range rec.Records {
		if r.HasPrediction {
			t.Errorf("job %d has a prediction without an allocator", r.Job.ID)
		}
	}
	if st.Predicted != 0 {
		t.Errorf("stats count %d predictions without an allocator", st.Predicted)
	}
}
