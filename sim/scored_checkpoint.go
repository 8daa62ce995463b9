package sim

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"slices"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/scored"
	"github.com/schedsim/schedsim/workload"
)

// Checkpoints of ScoreD, as of Engine (see Config.CheckpointEvery): its
// whole state between two instants, copied by Snapshot and restored by
// RestoreScoreD, so that a killed run goes on to the same records.

// scoreDState mirrors ScoreD for encoding/gob.
type scoreDState struct {
	Procs, MPL, Queues int // the configuration's shape, checked on restore

	NowMs, VG     int64
	VGRem         uint64
	Queue         []scoreDQueueState
	Slots         []scoreDSlotState
	FreeIDs       []int32
	Running       []int32
	ExEnds, GEnds []eventState
	Holds         []eventState // the held jobs, at their release (ms)
	Ex            int
	ExM           []byte
	Rows, RowQ    []int
	ExQ, RunQ     []int
	MemQ, DiskQ   []int64
	NonEmpty      int
	GangP         int
	MemHeld       int64
	DiskHeld      int64
	CI            int
	Queued        int64
	GivenHi       uint64
	GivenLo       uint64
	TakenHi       uint64
	TakenLo       uint64
	Stats         Stats
	LastSeq       int64
	NextCk        workload.Time
	Nodes         *sdNodesState    // node events (SetNodeEvents), nil without
	Loop          *closedLoopState // a closed loop (SetClosedLoop), nil without
	Power         *sdPowerState    // switching nodes off (Config.Power), nil without
	Waiting       []int            // a cluster of clusters' waiting processors (Config.ScoreDClusters), nil without
}

type scoreDQueueState struct {
	State policy.QueueState
	Wait  []int32
}

type scoreDSlotState struct {
	Job                  workload.Job
	Queue                int
	WorkUs               int64
	Cut                  string
	CPUUs, ResUs, UsedUs int64
	StintAt, Target      int64
	Ver                  uint32
	Running, Gang        bool
	Row, RunIdx          int
	FirstMs, LastMs      int64
	Demotions, Susp      int
	Alloc                []cluster.Range
	MemKB, DiskKB        int64
	Holds                bool
	StintMs              int64
	Stints               []Stint
	Requeues             int
	StintAllocs          [][]cluster.Range
	Member               int32 // its cluster (Config.ScoreDClusters)
}

// snapshot copies the component's state between two instants
// (Engine.Snapshot of a SCore-D run).
func (e *sdCore) snapshot() (*Snapshot, error) {
	m, err := e.exM.MarshalBinary()
	if err != nil {
		return nil, err
	}
	s := &scoreDState{Procs: e.procs, MPL: e.mpl, Queues: len(e.queues),
		NowMs: e.nowMs, VG: e.vg, VGRem: e.vgRem,
		FreeIDs: slices.Clone(e.freeIDs), Running: slices.Clone(e.running),
		ExEnds: events(e.exEnds), GEnds: events(e.gEnds), Holds: events(e.holds),
		Ex: e.m.Ex, ExM: m, Rows: slices.Clone(e.m.Rows), RowQ: slices.Clone(e.m.RowQ),
		ExQ: slices.Clone(e.m.ExQ), RunQ: slices.Clone(e.m.RunQ), MemQ: slices.Clone(e.m.MemQ), DiskQ: slices.Clone(e.m.DiskQ),
		NonEmpty: e.m.NonEmpty, GangP: e.m.GangP, MemHeld: e.m.MemHeld, DiskHeld: e.m.DiskHeld, CI: e.ci, Queued: e.queuedProcs,
		GivenHi: e.given.hi, GivenLo: e.given.lo, TakenHi: e.taken.hi, TakenLo: e.taken.lo,
		Stats: *e.stats, LastSeq: e.lastSeq, NextCk: e.nextCk}
	if e.nd != nil {
		if s.Nodes, err = e.nd.save(); err != nil {
			return nil, err
		}
	}
	if e.eng.loop != nil {
		s.Loop = e.eng.loop.state()
	}
	if e.pw != nil {
		s.Power = e.pw.save()
	}
	if e.fed != nil {
		s.Waiting = slices.Clone(e.fed.waiting)
	}
	for i := range e.queues {
		q := &e.queues[i]
		s.Queue = append(s.Queue, scoreDQueueState{State: q.state, Wait: slices.Clone(q.live())})
	}
	s.Slots = make([]scoreDSlotState, len(e.slots))
	for i := range e.slots {
		x := &e.slots[i]
		s.Slots[i] = scoreDSlotState{Job: x.job, Queue: x.Queue, WorkUs: x.workUs, Cut: x.cut,
			CPUUs: x.cpuUs, ResUs: x.resUs, UsedUs: x.usedUs, StintAt: x.stintAt, Target: x.target,
			Ver: x.ver, Running: x.Running, Gang: x.Gang, Row: x.Row, RunIdx: x.runIdx,
			FirstMs: x.FirstMs, LastMs: x.LastMs, Demotions: x.demotions, Susp: x.susp,
			Alloc: slices.Clone(x.alloc), MemKB: x.MemKB, DiskKB: x.DiskKB, Holds: x.Holds,
			StintMs: x.stintMs, Stints: slices.Clone(x.stints), Requeues: x.requeues, StintAllocs: slices.Clone(x.allocs), Member: x.Member}
	}
	return &Snapshot{sd: s}, nil
}

// restore puts the component in the state b (Snapshot.MarshalBinary of a
// SCore-D run) saved; the engine's closed loop too.
func (e *sdCore) restore(b []byte) error {
	var err error
	var s scoreDState
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&s); err != nil {
		return fmt.Errorf("sim: decoding the SCore-D engine state: %w", err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("sim: SCore-D engine state: "+format, args...)
	}
	if s.Procs != e.procs || s.MPL != e.mpl || s.Queues != len(e.queues) || len(s.Queue) != len(e.queues) {
		return bad("saved for %d processors, MPL %d and %d queues; configured %d, %d and %d",
			s.Procs, s.MPL, s.Queues, e.procs, e.mpl, len(e.queues))
	}
	n := len(s.Slots)
	for _, ids := range [][]int32{s.FreeIDs, s.Running} {
		for _, id := range ids {
			if id < 0 || int(id) >= n {
				return bad("slot %d of %d", id, n)
			}
		}
	}
	for _, q := range s.Queue {
		for _, id := range q.Wait {
			if id < 0 || int(id) >= n {
				return bad("slot %d of %d", id, n)
			}
		}
	}
	k := len(e.queues)
	if len(s.Rows) != e.mpl || len(s.RowQ) != k*e.mpl || len(s.ExQ) != k || len(s.RunQ) != k || len(s.MemQ) != k || len(s.DiskQ) != k {
		return bad("counters of the wrong shape")
	}
	if s.CI < 0 || s.CI > len(e.changes) {
		return bad("queue change %d of %d", s.CI, len(e.changes))
	}
	if err := e.exM.UnmarshalBinary(s.ExM); err != nil {
		return err
	}
	if e.exM.Size() != e.procs {
		return bad("machine of %d processors, configuration %d", e.exM.Size(), e.procs)
	}
	e.nowMs, e.vg, e.vgRem = s.NowMs, s.VG, s.VGRem
	for i, q := range s.Queue {
		e.queues[i].state, e.queues[i].wait, e.queues[i].head = q.State, q.Wait, 0
	}
	e.slots = make([]sdSlot, n)
	for i, x := range s.Slots {
		if x.Queue < 0 || x.Queue >= k || (x.Running && (x.Row < 0 || x.Row >= e.mpl)) {
			return bad("slot %d: queue %d, row %d", i, x.Queue, x.Row)
		}
		if x.Member != 0 && (e.fed == nil || x.Member < cluster.Spanning || int(x.Member) > len(e.fed.doms)) {
			return bad("slot %d: cluster %d", i, x.Member)
		}
		e.slots[i] = sdSlot{Job: scored.Job{Procs: x.Job.Procs, Seq: x.Job.Seq, WaitResources: x.Job.WaitResources,
			Queue: x.Queue, Running: x.Running, Gang: x.Gang, Row: x.Row, FirstMs: x.FirstMs, LastMs: x.LastMs,
			MemKB: x.MemKB, DiskKB: x.DiskKB, Holds: x.Holds, Member: x.Member},
			job: x.Job, workUs: x.WorkUs, cut: x.Cut,
			cpuUs: x.CPUUs, resUs: x.ResUs, usedUs: x.UsedUs, stintAt: x.StintAt, target: x.Target,
			ver: x.Ver, runIdx: x.RunIdx, demotions: x.Demotions, susp: x.Susp, alloc: x.Alloc,
			stintMs: x.StintMs, stints: x.Stints, requeues: x.Requeues, allocs: x.StintAllocs}
	}
	for i, id := range s.Running {
		if x := &e.slots[id]; !x.Running || x.runIdx != i {
			return bad("running job %d in slot %d is not marked running there", x.job.ID, id)
		}
	}
	e.freeIDs, e.running = s.FreeIDs, s.Running
	if e.exEnds, err = unevents(s.ExEnds, n); err != nil {
		return bad("%v", err)
	}
	if e.gEnds, err = unevents(s.GEnds, n); err != nil {
		return bad("%v", err)
	}
	if e.holds, err = unevents(s.Holds, n); err != nil {
		return bad("%v", err)
	}
	e.m.Ex, e.m.Rows, e.m.RowQ, e.m.ExQ, e.m.RunQ, e.m.MemQ, e.m.DiskQ = s.Ex, s.Rows, s.RowQ, s.ExQ, s.RunQ, s.MemQ, s.DiskQ
	e.m.NonEmpty, e.m.GangP, e.m.MemHeld, e.m.DiskHeld, e.ci, e.queuedProcs = s.NonEmpty, s.GangP, s.MemHeld, s.DiskHeld, s.CI, s.Queued
	e.given, e.taken = u128{s.GivenHi, s.GivenLo}, u128{s.TakenHi, s.TakenLo}
	*e.stats, e.lastSeq, e.nextCk = s.Stats, s.LastSeq, s.NextCk
	e.savedNodes = s.Nodes // SetNodeEvents takes them over
	if (s.Power != nil) != (e.pw != nil) {
		return bad("saved with switching nodes off %v, resumed with %v", s.Power != nil, e.pw != nil)
	}
	if e.pw != nil {
		if err := e.pw.restore(s.Power); err != nil {
			return err
		}
	}
	if (e.fed != nil) != (s.Waiting != nil) {
		return bad("saved with a cluster of clusters %v, resumed with one %v", s.Waiting != nil, e.fed != nil)
	}
	if e.fed != nil {
		if len(s.Waiting) != len(e.fed.waiting) {
			return bad("saved with %d clusters, resumed with %d", len(s.Waiting), len(e.fed.waiting))
		}
		copy(e.fed.waiting, s.Waiting)
		for i := range e.slots {
			if x := &e.slots[i]; x.Holds {
				e.fed.hold(x, 1)
			}
		}
	}
	if s.Loop != nil {
		if e.eng.loop, err = restoreClosedLoop(s.Loop); err != nil {
			return bad("%v", err)
		}
	}
	e.resumed = true
	return nil
}
