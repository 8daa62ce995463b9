package sim_test

import (
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// periodic starts jobs FCFS only at multiples of its interval, waking the
// engine for the next one while jobs wait: the shape of Slurm's bf_interval.
type periodic struct{ interval workload.Time }

func (p periodic) Name() string { return "periodic" }

func (p periodic) Schedule(v policy.View, d policy.Decisions) {
	now := v.Now()
	if now%p.interval != 0 {
		if v.Len() > 0 {
			d.WakeAt(now - now%p.interval + p.interval)
		}
		return
	}
	free := v.Free()
	i := 0
	for ; i < v.Len() && v.Job(i).Procs <= free; i++ {
		free -= v.Job(i).Procs
		d.Start(i)
	}
	if i < v.Len() {
		d.WakeAt(now + p.interval)
	}
}

func TestWakeAndSample(t *testing.T) {
	jobs := []workload.Job{
		job(1, 5, 2, 40, 40), // waits for the pass at 30, ends at 70
		job(2, 6, 4, 10, 10), // does not fit until 70; the pass after that is at 90
		job(3, 95, 1, 5, 5),  // queue empty before it: waits for 120
	}
	eng, err := sim.New(sim.Config{Procs: 4, Policy: periodic{30}})
	if err != nil {
		t.Fatal(err)
	}
	obs := &simtest.SampleRecorder{}
	if _, err := eng.Run(simtest.NewSource(jobs), obs); err != nil {
		t.Fatal(err)
	}
	want := map[int64]workload.Time{1: 30, 2: 90, 3: 120}
	for _, r := range obs.Records {
		if r.Start != want[r.Job.ID] {
			t.Errorf("job %d starts at %d, want %d", r.Job.ID, r.Start, want[r.Job.ID])
		}
	}
	// One sample per instant at which something happened, none for idle wakes.
	wantSamples := []sim.Sample{
		{Time: 5, Queued: 1, QueuedProcs: 2},
		{Time: 6, Queued: 2, QueuedProcs: 6},
		{Time: 30, Busy: 2, Running: 1, Queued: 1, QueuedProcs: 4},
		{Time: 60, Busy: 2, Running: 1, Queued: 1, QueuedProcs: 4},
		{Time: 70, Queued: 1, QueuedProcs: 4},
		{Time: 90, Busy: 4, Running: 1},
		{Time: 95, Busy: 4, Running: 1, Queued: 1, QueuedProcs: 1},
		{Time: 100, Queued: 1, QueuedProcs: 1},
		{Time: 120, Busy: 1, Running: 1},
		{Time: 125},
	}
	if len(obs.Samples) != len(wantSamples) {
		t.Fatalf("got %d samples %+v, want %d", len(obs.Samples), obs.Samples, len(wantSamples))
	}
	for i := range wantSamples {
		if obs.Samples[i] != wantSamples[i] {
			t.Errorf("sample %d: %+v, want %+v", i, obs.Samples[i], wantSamples[i])
		}
	}
}

// A policy that wakes the engine forever without starting anything is a
// bug the engine reports instead of spinning.
func TestWakeWithoutProgressPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("no panic")
		}
	}()
	eng, _ := sim.New(sim.Config{Procs: 4, Policy: stuck{}})
	eng.Run(simtest.NewSource([]workload.Job{job(1, 0, 1, 1, 1)}), &simtest.Recorder{})
}

type stuck struct{}

func (stuck) Name() string                               { return "stuck" }
func (stuck) Schedule(v policy.View, d policy.Decisions) { d.WakeAt(v.Now() + 1) }
