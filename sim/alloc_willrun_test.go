package sim_test

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
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
			if _, err := eng.Run(rd, col); err != nil {
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
			next, exact, late := 0, 0, 0
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
			if exact == 0 {
				t.Error("no prediction was exact: the test checks nothing")
			}
		})
	}
}
