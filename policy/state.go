package policy

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"maps"
	"slices"

	"github.com/schedsim/schedsim/workload"
)

// Checkpoint state. A policy or estimator whose run can be checkpointed
// (sim.Config.CheckpointEvery) implements encoding.BinaryMarshaler and
// encoding.BinaryUnmarshaler: MarshalBinary encodes what it carries from one
// pass to the next, and UnmarshalBinary, called on a new value with the same
// settings, restores it. Scratch memory and indexes a policy rebuilds from
// the View (EASY's backfill index) are not state.

// MarshalBinary implements encoding.BinaryMarshaler: FCFS keeps no state.
func (FCFS) MarshalBinary() ([]byte, error) { return nil, nil }

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (FCFS) UnmarshalBinary(b []byte) error { return noState("fcfs", b) }

// MarshalBinary implements encoding.BinaryMarshaler: EASY keeps no state
// between passes (its backfill index is rebuilt from the queue, and what
// its previous pass found is forgotten).
func (e *EASY) MarshalBinary() ([]byte, error) { return nil, nil }

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (e *EASY) UnmarshalBinary(b []byte) error {
	e.idxView, e.miss, e.wmiss, e.caps = nil, idxMiss{}, idxMiss{}, viewCaps{}
	return noState("easy", b)
}

// MarshalBinary implements encoding.BinaryMarshaler: Depth builds its
// profile anew at every pass.
func (p *Depth) MarshalBinary() ([]byte, error) { return nil, nil }

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (p *Depth) UnmarshalBinary(b []byte) error { return noState("depth", b) }

type conservativeState struct {
	Profile []byte
	Seq     []int64
	Procs   []int
	Dur     []workload.Time
	Start   []workload.Time
	Now     workload.Time
	Init    bool
}

// MarshalBinary implements encoding.BinaryMarshaler: the plan and its
// availability profile.
func (c *Conservative) MarshalBinary() ([]byte, error) {
	s := conservativeState{Now: c.now, Init: c.init}
	if c.init {
		prof, err := c.prof.MarshalBinary()
		if err != nil {
			return nil, err
		}
		s.Profile = prof
	}
	for _, p := range c.plan {
		s.Seq = append(s.Seq, p.seq)
		s.Procs = append(s.Procs, p.procs)
		s.Dur = append(s.Dur, p.dur)
		s.Start = append(s.Start, p.start)
	}
	return encodeState(s)
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (c *Conservative) UnmarshalBinary(b []byte) error {
	var s conservativeState
	if err := decodeState("conservative", b, &s); err != nil {
		return err
	}
	n := len(s.Seq)
	if len(s.Procs) != n || len(s.Dur) != n || len(s.Start) != n {
		return fmt.Errorf("policy: conservative state: plan columns of different lengths")
	}
	c.now, c.init = s.Now, s.Init
	c.calKeep = false // the kept plans' profile is not saved: the next pass plans anew
	if s.Init {
		if err := c.prof.UnmarshalBinary(s.Profile); err != nil {
			return err
		}
	}
	c.plan = c.plan[:0]
	for i := range n {
		c.plan = append(c.plan, planned{seq: s.Seq[i], procs: s.Procs[i], dur: s.Dur[i], start: s.Start[i]})
	}
	return nil
}

type slurmState struct {
	Dirty  bool
	Expect int
	Wake   workload.Time
	// Pending: no pass came at or after Wake yet (Slurm.bfDue).
	Pending bool
	Init    bool
	// --bf-ended phase's clock: the drift, the next cycle instant, and
	// the running jobs' completion offsets (by Seq).
	PhaseD    int64
	PhaseNext workload.Time
	PhaseInit bool
	PhaseSeq  []int64
	PhaseEnd  []int64
}

// MarshalBinary implements encoding.BinaryMarshaler: whether a backfill
// cycle is due, the wake-up asked for and the cycles' sub-second drift
// (the profile is built anew at every cycle).
func (s *Slurm) MarshalBinary() ([]byte, error) {
	st := slurmState{Dirty: s.dirty, Expect: s.expect, Wake: s.wake, Pending: s.wake > s.last, Init: s.init,
		PhaseD: s.ph.d, PhaseNext: s.ph.next, PhaseInit: s.ph.init}
	for _, seq := range slices.Sorted(maps.Keys(s.ph.end)) {
		st.PhaseSeq = append(st.PhaseSeq, seq)
		st.PhaseEnd = append(st.PhaseEnd, s.ph.end[seq])
	}
	return encodeState(st)
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (s *Slurm) UnmarshalBinary(b []byte) error {
	var st slurmState
	if err := decodeState("slurm", b, &st); err != nil {
		return err
	}
	s.dirty, s.expect, s.wake, s.init = st.Dirty, st.Expect, st.Wake, st.Init
	s.last = s.wake // only how the two compare matters
	if st.Pending {
		s.last = s.wake - 1
	}
	if len(st.PhaseSeq) != len(st.PhaseEnd) {
		return fmt.Errorf("policy: slurm state: phase columns of different lengths")
	}
	s.ph = phaseClock{d: st.PhaseD, next: st.PhaseNext, init: st.PhaseInit}
	for i, seq := range st.PhaseSeq {
		s.ph.started(seq, st.PhaseEnd[i])
	}
	if s.init {
		s.p = s.SlurmParams.inTicks()
	}
	return nil
}

// MarshalBinary implements encoding.BinaryMarshaler: perfect estimates
// keep no state.
func (Perfect) MarshalBinary() ([]byte, error) { return nil, nil }

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (Perfect) UnmarshalBinary(b []byte) error { return noState("perfect", b) }

type correctionsState struct {
	Seq   []int64
	First []workload.Time
	N     []int
}

func (c *corrections) state() correctionsState {
	var s correctionsState
	for _, seq := range slices.Sorted(maps.Keys(c.m)) {
		st := c.m[seq]
		s.Seq = append(s.Seq, seq)
		s.First = append(s.First, st.first)
		s.N = append(s.N, st.n)
	}
	return s
}

func (c *corrections) restore(s correctionsState) error {
	if len(s.First) != len(s.Seq) || len(s.N) != len(s.Seq) {
		return fmt.Errorf("policy: correction state: columns of different lengths")
	}
	c.m = nil
	if len(s.Seq) > 0 {
		c.m = make(map[int64]correctionState, len(s.Seq))
	}
	for i, seq := range s.Seq {
		c.m[seq] = correctionState{first: s.First[i], n: s.N[i]}
	}
	return nil
}

// MarshalBinary implements encoding.BinaryMarshaler: the corrections of
// the running jobs that outlived their predictions.
func (f *Factor) MarshalBinary() ([]byte, error) { return encodeState(f.corr.state()) }

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (f *Factor) UnmarshalBinary(b []byte) error {
	var s correctionsState
	if err := decodeState("factor", b, &s); err != nil {
		return err
	}
	return f.corr.restore(s)
}

type predictState struct {
	Corrections correctionsState
	User        []int
	Last        [][2]workload.Time
}

// MarshalBinary implements encoding.BinaryMarshaler: every user's last two
// run times and the corrections of the running jobs.
func (p *Predict) MarshalBinary() ([]byte, error) {
	s := predictState{Corrections: p.corr.state()}
	for _, u := range slices.Sorted(maps.Keys(p.hist)) {
		s.User = append(s.User, u)
		s.Last = append(s.Last, *p.hist[u])
	}
	return encodeState(s)
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (p *Predict) UnmarshalBinary(b []byte) error {
	var s predictState
	if err := decodeState("predict", b, &s); err != nil {
		return err
	}
	if len(s.Last) != len(s.User) {
		return fmt.Errorf("policy: predict state: columns of different lengths")
	}
	p.hist = nil
	if len(s.User) > 0 {
		p.hist = make(map[int]*[2]workload.Time, len(s.User))
	}
	for i, u := range s.User {
		h := s.Last[i]
		p.hist[u] = &h
	}
	return p.corr.restore(s.Corrections)
}

func noState(name string, b []byte) error {
	if len(b) != 0 {
		return fmt.Errorf("policy: %s keeps no state, got %d bytes", name, len(b))
	}
	return nil
}

func encodeState(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeState(name string, b []byte, v any) error {
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("policy: %s state: %w", name, err)
	}
	return nil
}

type orderedState struct {
	Inner, Order []byte
}

// MarshalBinary implements encoding.BinaryMarshaler: the inner policy's
// state and the order's (an order that keeps state, an Updater such as
// MultiFactor, must implement encoding.BinaryMarshaler too). It returns an
// error if either cannot be saved.
func (o *Ordered) MarshalBinary() ([]byte, error) {
	var s orderedState
	inner, ok := o.Inner.(interface{ MarshalBinary() ([]byte, error) })
	if !ok {
		return nil, fmt.Errorf("policy: %s does not save its state", o.Inner.Name())
	}
	var err error
	if s.Inner, err = inner.MarshalBinary(); err != nil {
		return nil, err
	}
	if _, upd := o.Order.(Updater); upd {
		ord, ok := o.Order.(interface{ MarshalBinary() ([]byte, error) })
		if !ok {
			return nil, fmt.Errorf("policy: order %s does not save its state", o.Order.Name())
		}
		if s.Order, err = ord.MarshalBinary(); err != nil {
			return nil, err
		}
	}
	return encodeState(s)
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (o *Ordered) UnmarshalBinary(b []byte) error {
	var s orderedState
	if err := decodeState("ordered", b, &s); err != nil {
		return err
	}
	inner, ok := o.Inner.(interface{ UnmarshalBinary([]byte) error })
	if !ok {
		return fmt.Errorf("policy: %s does not restore its state", o.Inner.Name())
	}
	if err := inner.UnmarshalBinary(s.Inner); err != nil {
		return err
	}
	if _, upd := o.Order.(Updater); upd {
		ord, ok := o.Order.(interface{ UnmarshalBinary([]byte) error })
		if !ok {
			return fmt.Errorf("policy: order %s does not restore its state", o.Order.Name())
		}
		return ord.UnmarshalBinary(s.Order)
	}
	if len(s.Order) > 0 {
		return fmt.Errorf("policy: order %s keeps no state, got %d bytes", o.Order.Name(), len(s.Order))
	}
	return nil
}

type multiFactorState struct {
	Capacity int
	Init     bool
	CalcAt   workload.Time
	User     []int // user of each index
	Usage    []float64
	Share    []float64
	Pending  []Ended
}

// MarshalBinary implements encoding.BinaryMarshaler: the users' decayed
// usage and fair-share factors, and the ended jobs not yet charged.
func (m *MultiFactor) MarshalBinary() ([]byte, error) {
	s := multiFactorState{Capacity: m.capacity, Init: m.init, CalcAt: m.calcAt, Usage: m.usage, Share: m.share, Pending: m.pending}
	s.User = make([]int, len(m.users))
	for _, u := range slices.Sorted(maps.Keys(m.users)) {
		i := m.users[u]
		if i < 0 || i >= len(s.User) {
			return nil, fmt.Errorf("policy: multifactor user %d at index %d of %d", u, i, len(s.User))
		}
		s.User[i] = u
	}
	return encodeState(s)
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (m *MultiFactor) UnmarshalBinary(b []byte) error {
	var s multiFactorState
	if err := decodeState("multifactor", b, &s); err != nil {
		return err
	}
	if len(s.Usage) != len(s.User) || len(s.Share) != len(s.User) {
		return fmt.Errorf("policy: multifactor state: columns of different lengths")
	}
	m.capacity, m.init, m.calcAt, m.usage, m.share, m.pending = s.Capacity, s.Init, s.CalcAt, s.Usage, s.Share, s.Pending
	m.users = make(map[int]int, len(s.User))
	for i, u := range s.User {
		m.users[u] = i
	}
	return nil
}
