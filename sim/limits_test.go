package sim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestLimits checks that the engines refuse what is beyond schedsim's
// limits (workload.MaxMachineProcs, MaxTime, MaxMemKB) with an error that
// wraps workload.ErrLimit — never a panic, a hang or a wrong result — and
// accept what is at them.
func TestLimits(t *testing.T) {
	const max = workload.MaxTime
	exclusive := func() policy.ScoreD { return sdConfig(1, policy.Exclusive, 1) }
	gang := func() policy.ScoreD { return sdConfig(1, policy.Gang, 2) }
	runEngine := func(procs int, jobs ...workload.Job) error {
		eng, err := sim.New(sim.Config{Procs: procs, Policy: policy.FCFS{}})
		if err != nil {
			return err
		}
		_, err = eng.Run(simtest.NewSource(jobs), &simtest.Recorder{})
		return err
	}
	runSD := func(procs int, cfg policy.ScoreD, jobs ...workload.Job) error {
		eng, err := sim.NewScoreD(procs, cfg)
		if err != nil {
			return err
		}
		_, err = eng.Run(simtest.NewSource(jobs), &simtest.Recorder{})
		return err
	}
	federation := func(speed float64, jobs ...workload.Job) error {
		slow, err := cluster.MemberOf(&cluster.Spec{Groups: []cluster.NodeGroup{{Name: "slow", Count: 1, Cores: 1, Speed: speed}}})
		if err != nil {
			return err
		}
		eng, err := sim.New(sim.Config{Allocator: cluster.NewFederation([]cluster.FederationMember{slow}), Policy: policy.FCFS{}})
		if err != nil {
			return err
		}
		_, err = eng.Run(simtest.NewSource(jobs), &simtest.Recorder{})
		return err
	}
	tests := []struct {
		name string
		run  func() error
		want string // "" = no error; else in the message, which wraps ErrLimit
	}{
		{"New: 10^14 processors", func() error { return runEngine(100000000000000) }, "machine size 100000000000000"},
		{"New: one past the largest machine", func() error { return runEngine(workload.MaxMachineProcs + 1) }, "at most 67108864 processors"},
		{"NewScoreD: 10^14 processors", func() error { return runSD(100000000000000, exclusive()) }, "machine size 100000000000000"},
		{"NewScoreD: maximum CPU time past MaxTime", func() error {
			c := exclusive()
			c.Queues[0].MaxCPUSec = max + 1
			return runSD(4, c)
		}, "queue 0: a time limit"},
		{"NewScoreD: residence time past MaxTime", func() error {
			c := exclusive()
			c.Queues[0].ResidenceSec = 1 << 60
			return runSD(4, c)
		}, "queue 0: a time limit"},
		{"NewScoreD: state change past MaxTime", func() error {
			c := exclusive()
			c.Changes = []policy.QueueChange{{At: max + 1, Queue: 0, State: policy.Deactivated}}
			return runSD(4, c)
		}, "state change 1"},
		{"NewScoreD: memory limit past MaxMemKB", func() error {
			c := exclusive()
			c.MemKB = 1 << 60
			return runSD(4, c)
		}, "memory"},
		{"NewScoreD: disk limit past 2^56 KB", func() error {
			c := exclusive()
			c.DiskKB = 1<<56 + 1
			return runSD(4, c)
		}, "disk"},
		{"ScoreD exclusive: submit time 10^13 s", func() error {
			return runSD(4, exclusive(), job(1, 0, 1, 10, none), job(2, 1e13, 1, 10, none))
		}, "job 2: submit time 10000000000000 s"},
		{"ScoreD gang: submit time 10^13 s", func() error {
			return runSD(4, gang(), job(1, 1e13, 1, 10, none))
		}, "job 1: submit time"},
		{"ScoreD gang: run time 10^14 s", func() error {
			return runSD(4, gang(), job(1, 0, 1, 1e14, none))
		}, "job 1: run time"},
		{"ScoreD: requested time past MaxTime", func() error {
			return runSD(4, exclusive(), job(1, 0, 1, 10, max+1))
		}, "job 1: requested time"},
		{"ScoreD: memory past MaxMemKB", func() error {
			j := job(1, 0, 4, 10, none)
			j.ReqMemKB = 1e15
			return runSD(4, exclusive(), j)
		}, "job 1: memory"},
		{"ScoreD exclusive: jobs one after the other past MaxTime", func() error {
			return runSD(1, exclusive(), job(1, 0, 1, 4e10, none), job(2, 0, 1, 4e10, none), job(3, 0, 1, 4e10, none))
		}, "no run is simulated past 100000000000 s"},
		{"ScoreD gang: time sharing stretches past MaxTime", func() error {
			return runSD(1, gang(), job(1, 0, 1, 6e10, none), job(2, 0, 1, 6e10, none))
		}, "no run is simulated past"},
		{"ScoreD: a run ending at MaxTime", func() error {
			return runSD(1, gang(), job(1, 0, 1, 10, none), job(2, max-10, 1, 10, none))
		}, ""},
		{"Engine: jobs one after the other past MaxTime", func() error {
			return runEngine(1, job(1, 0, 1, 4e10, none), job(2, 0, 1, 4e10, none), job(3, 0, 1, 4e10, none))
		}, "the run reaches 120000000000 s"},
		{"Engine: a run ending at MaxTime", func() error {
			return runEngine(1, job(1, 0, 1, 10, none), job(2, max-10, 1, 10, none))
		}, ""},
		{"Engine: a slow member scales a run past MaxTime", func() error {
			return federation(cluster.MinSpeed, job(1, 0, 1, 1e9, none))
		}, "the run reaches 1000000000000 s"},
		{"Engine: a slow member within MaxTime", func() error {
			return federation(cluster.MinSpeed, job(1, 0, 1, 31039, none))
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, workload.ErrLimit) {
				t.Fatalf("error %v, want one with %q wrapping workload.ErrLimit", err, tc.want)
			}
		})
	}
}
