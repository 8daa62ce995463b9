package simtest

import (
	"errors"
	"reflect"
	"testing"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// Checkpointer is an engine that saves its state at its checkpoints and
// can be resumed from it: *sim.Engine (sim.Restore) and *sim.ScoreD
// (sim.RestoreScoreD).
type Checkpointer interface {
	Run(src sim.Source, obs sim.Observer) (sim.Stats, error)
	MarshalBinary() ([]byte, error)
}

// Resumer returns the engine of one leg of RunResumed: a new one when
// state is nil, else one restored from state; either way set to call stop
// at every checkpoint.
type Resumer func(state []byte, stop func(workload.Time) error) (Checkpointer, error)

// errStop is what RunResumed's stop returns: the run stops at the
// checkpoint, as a process killed there would.
var errStop = errors.New("simtest: stopped at a checkpoint")

// RunResumed runs jobs as a process killed at every checkpoint and
// resumed from the state it saved there would: each leg runs on an engine
// from resume until its next checkpoint, saves the engine's state and
// stops; the next leg is restored from that state. The records of every
// leg go to obs. The stats of the leg that ends the run must be want (an
// uninterrupted run's). It returns how many times the run was resumed.
func RunResumed(t testing.TB, jobs []workload.Job, obs sim.Observer, want sim.Stats, resume Resumer) int {
	t.Helper()
	var e Checkpointer
	var state, saved []byte
	stop := func(workload.Time) error {
		b, err := e.MarshalBinary()
		if err != nil {
			return err
		}
		saved = b
		return errStop
	}
	for resumes := 0; ; resumes++ {
		var err error
		if e, err = resume(state, stop); err != nil {
			t.Fatal(err)
		}
		st, err := e.Run(&Source{Jobs: jobs}, obs)
		if err == nil {
			if !reflect.DeepEqual(st, want) {
				t.Fatalf("stats after %d resumes:\n got %+v\nwant %+v", resumes, st, want)
			}
			return resumes
		}
		if !errors.Is(err, errStop) {
			t.Fatal(err)
		}
		state = saved
	}
}

// EngineResumer is RunResumed's Resumer for sim.Engine: cfg's engine
// (sim.New, or sim.Restore from a state) with a checkpoint every every
// seconds of simulated time.
func EngineResumer(cfg func() sim.Config, every workload.Time) Resumer {
	return func(state []byte, stop func(workload.Time) error) (Checkpointer, error) {
		c := cfg()
		c.CheckpointEvery, c.OnCheckpoint = every, stop
		if state == nil {
			return sim.New(c)
		}
		return sim.Restore(c, state)
	}
}

// SameRecords fails t at the first record of got that differs from
// want's, in order; how says what got went through ("after resuming").
func SameRecords(t testing.TB, got, want []sim.Record, how string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("record %d %s:\n got %+v %+v\nwant %+v %+v", i, how, got[i], *got[i].Job, want[i], *want[i].Job)
		}
	}
}
