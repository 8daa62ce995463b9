package hpcpack

import (
	"bytes"
	"encoding"
	"encoding/gob"
	"fmt"
	"maps"
	"slices"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/workload"
)

// Checkpoint state (sim.Config.CheckpointEvery). A Model saves what it
// carries from one call to the next: its notes about the jobs (their
// filter state, results and times), the running jobs whose growth was
// refused, and the state of each of its filters. A filter saves its state
// by implementing encoding.BinaryMarshaler and encoding.BinaryUnmarshaler:
// the built-in ones do (the license pool's licenses taken, the quota's
// usage, require-runtime's revert note; max-size keeps none), and so does
// ExecFilter, which keeps none: a filter program runs as a process of its
// own at every call, with the job file and its arguments, and what it
// keeps in files of its own is its business (a resumed run calls it again
// for the calls after the checkpoint). A run with a filter that does not
// implement them cannot be checkpointed (CanCheckpoint).

// stateful is what a filter implements to be checkpointed.
type stateful interface {
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

// CanCheckpoint returns nil if every filter of h saves its state, else an
// error naming the first that does not.
func (h *Model) CanCheckpoint() error {
	for _, f := range h.filters() {
		if _, ok := f.(stateful); !ok {
			name := fmt.Sprintf("%T", f)
			if n, ok := f.(interface{ Name() string }); ok {
				name = n.Name()
			}
			return fmt.Errorf("hpcpack: filter %s does not save its state (encoding.BinaryMarshaler)", name)
		}
	}
	return nil
}

// noteState is a jobNote, exported for encoding/gob.
type noteState struct {
	Seq                      int64
	State                    uint8
	Since, Next              workload.Time
	Resv                     int
	Tried                    int64
	Seen                     workload.Time
	Last                     Result
	LastBy                   string
	Blocked, Held, Reserving workload.Time
	Act                      [numCounts]int32
	Sub                      string
	Grow                     [numCounts]int32
	GrowNext                 workload.Time
	ResvAt                   []cluster.Range
}

type modelState struct {
	Notes    []noteState // by sequence
	GrowWait []int64
	Filters  [][]byte // by filters()
}

// MarshalBinary implements encoding.BinaryMarshaler: the notes about the
// jobs, in sequence order, and every filter's state.
func (h *Model) MarshalBinary() ([]byte, error) {
	var s modelState
	for _, seq := range slices.Sorted(maps.Keys(h.notes)) {
		n := h.notes[seq]
		s.Notes = append(s.Notes, noteState{Seq: seq, State: n.state, Since: n.since, Next: n.next, Resv: n.resv, Tried: n.tried,
			Seen: n.seen, Last: n.last, LastBy: n.lastBy, Blocked: n.blocked, Held: n.held, Reserving: n.reserving,
			Act: n.act, Sub: n.sub, Grow: n.grow, GrowNext: n.growNext, ResvAt: slices.Clone(n.resvAt)})
	}
	s.GrowWait = slices.Clone(h.growWait)
	for _, f := range h.filters() {
		st, ok := f.(stateful)
		if !ok {
			return nil, h.CanCheckpoint()
		}
		b, err := st.MarshalBinary()
		if err != nil {
			return nil, err
		}
		s.Filters = append(s.Filters, b)
	}
	return encode(s)
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler, on a Model built
// from the same configuration.
func (h *Model) UnmarshalBinary(b []byte) error {
	var s modelState
	if err := decode("model", b, &s); err != nil {
		return err
	}
	fs := h.filters()
	if len(s.Filters) != len(fs) {
		return fmt.Errorf("hpcpack: state of %d filters, the configuration has %d", len(s.Filters), len(fs))
	}
	h.setup()
	h.notes = make(map[int64]*jobNote, len(s.Notes))
	for _, n := range s.Notes {
		h.notes[n.Seq] = &jobNote{state: n.State, since: n.Since, next: n.Next, resv: n.Resv, tried: n.Tried, seen: n.Seen,
			last: n.Last, lastBy: n.LastBy, blocked: n.Blocked, held: n.Held, reserving: n.Reserving,
			act: n.Act, sub: n.Sub, grow: n.Grow, growNext: n.GrowNext, resvAt: n.ResvAt}
	}
	h.growWait = s.GrowWait
	for i, f := range fs {
		st, ok := f.(stateful)
		if !ok {
			return h.CanCheckpoint()
		}
		if err := st.UnmarshalBinary(s.Filters[i]); err != nil {
			return err
		}
	}
	return nil
}

type filteredState struct {
	Pass  int64
	Asked workload.Time
	Inner []byte
}

// MarshalBinary implements encoding.BinaryMarshaler: the pass number (which
// filter programs receive), the wake-up asked for, and Inner's state. The
// Model's state is saved by the engine, whose Admission it is.
func (f *Filtered) MarshalBinary() ([]byte, error) {
	in, ok := f.Inner.(stateful)
	if !ok {
		return nil, fmt.Errorf("hpcpack: policy %s does not save its state", f.Inner.Name())
	}
	b, err := in.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return encode(filteredState{Pass: f.pass, Asked: f.asked, Inner: b})
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (f *Filtered) UnmarshalBinary(b []byte) error {
	var s filteredState
	if err := decode("filtered", b, &s); err != nil {
		return err
	}
	in, ok := f.Inner.(stateful)
	if !ok {
		return fmt.Errorf("hpcpack: policy %s does not save its state", f.Inner.Name())
	}
	f.pass, f.asked = s.Pass, s.Asked
	return in.UnmarshalBinary(s.Inner)
}

type licenseState struct {
	Names []string
	Free  []int
	Held  []licenseHeld
	Prev  []licenseHeld
}

type licenseHeld struct {
	Seq  int64
	Reqs []LicenseRequest
}

func heldList(m map[int64][]LicenseRequest) []licenseHeld {
	var out []licenseHeld
	for _, seq := range slices.Sorted(maps.Keys(m)) {
		out = append(out, licenseHeld{seq, m[seq]})
	}
	return out
}

func heldMap(l []licenseHeld) map[int64][]LicenseRequest {
	m := make(map[int64][]LicenseRequest, len(l))
	for _, h := range l {
		m[h.Seq] = h.Reqs
	}
	return m
}

// MarshalBinary implements encoding.BinaryMarshaler: the free licenses and
// what each job holds.
func (p *LicensePool) MarshalBinary() ([]byte, error) {
	if p.free == nil {
		return nil, nil // no call yet
	}
	var s licenseState
	for _, name := range sortedKeys(p.free) {
		s.Names = append(s.Names, name)
		s.Free = append(s.Free, p.free[name])
	}
	s.Held, s.Prev = heldList(p.held), heldList(p.prev)
	return encode(s)
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (p *LicensePool) UnmarshalBinary(b []byte) error {
	if len(b) == 0 {
		p.free, p.held, p.prev = nil, nil, nil
		return nil
	}
	var s licenseState
	if err := decode("licenses", b, &s); err != nil {
		return err
	}
	if len(s.Free) != len(s.Names) {
		return fmt.Errorf("hpcpack: licenses state: %d names, %d counts", len(s.Names), len(s.Free))
	}
	p.free = make(map[string]int, len(s.Names))
	for i, name := range s.Names {
		if _, ok := p.Total[name]; !ok {
			return fmt.Errorf("hpcpack: licenses state: license %q is not in the pool", name)
		}
		p.free[name] = s.Free[i]
	}
	p.held, p.prev = heldMap(s.Held), heldMap(s.Prev)
	return nil
}

type quotaState struct {
	Users   []int
	Window  []int64
	Used    []float64
	Running [][]quotaRunState
	Undo    []quotaUndoState
}

type quotaRunState struct {
	Seq   int64
	Procs int
	Start workload.Time
}

type quotaUndoState struct {
	Seq   int64
	Old   quotaRunState
	Added float64
}

func runState(r quotaRun) quotaRunState { return quotaRunState{r.seq, r.procs, r.start} }
func (r quotaRunState) run() quotaRun   { return quotaRun{r.Seq, r.Procs, r.Start} }

// MarshalBinary implements encoding.BinaryMarshaler: every user's usage
// and running jobs, and the growths that could be reverted.
func (q *Quota) MarshalBinary() ([]byte, error) {
	var s quotaState
	for _, id := range sortedKeys(q.users) {
		u := q.users[id]
		s.Users = append(s.Users, id)
		s.Window = append(s.Window, u.window)
		s.Used = append(s.Used, u.used)
		runs := []quotaRunState{}
		for _, r := range u.running {
			runs = append(runs, runState(r))
		}
		s.Running = append(s.Running, runs)
	}
	for _, seq := range sortedKeys(q.undo) {
		d := q.undo[seq]
		s.Undo = append(s.Undo, quotaUndoState{Seq: seq, Old: runState(d.old), Added: d.added})
	}
	return encode(s)
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (q *Quota) UnmarshalBinary(b []byte) error {
	var s quotaState
	if err := decode("quota", b, &s); err != nil {
		return err
	}
	n := len(s.Users)
	if len(s.Window) != n || len(s.Used) != n || len(s.Running) != n {
		return fmt.Errorf("hpcpack: quota state: columns of different lengths")
	}
	q.users, q.undo = nil, nil
	if n > 0 {
		q.users = make(map[int]*quotaUser, n)
	}
	for i, id := range s.Users {
		u := &quotaUser{window: s.Window[i], used: s.Used[i]}
		for _, r := range s.Running[i] {
			u.running = append(u.running, r.run())
		}
		q.users[id] = u
	}
	if len(s.Undo) > 0 {
		q.undo = make(map[int64]quotaUndo, len(s.Undo))
	}
	for _, d := range s.Undo {
		q.undo[d.Seq] = quotaUndo{old: d.Old.run(), added: d.Added}
	}
	return nil
}

type requireRuntimeState struct {
	LastSeq int64
	LastOld string
	HasLast bool
}

// MarshalBinary implements encoding.BinaryMarshaler: the job last given
// the template, for a revert.
func (r *RequireRuntime) MarshalBinary() ([]byte, error) {
	return encode(requireRuntimeState{r.lastSeq, r.lastOld, r.hasLast})
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (r *RequireRuntime) UnmarshalBinary(b []byte) error {
	var s requireRuntimeState
	if err := decode("require-runtime", b, &s); err != nil {
		return err
	}
	r.lastSeq, r.lastOld, r.hasLast = s.LastSeq, s.LastOld, s.HasLast
	return nil
}

// MarshalBinary implements encoding.BinaryMarshaler: MaxSize keeps no
// state.
func (m *MaxSize) MarshalBinary() ([]byte, error) { return nil, nil }

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (m *MaxSize) UnmarshalBinary(b []byte) error { return noState(FilterMaxSize, b) }

// MarshalBinary implements encoding.BinaryMarshaler: a filter program
// keeps no state in schedsim (see the checkpoint notes above); its call
// statistics are wall-clock measures, not state.
func (x *ExecFilter) MarshalBinary() ([]byte, error) { return nil, nil }

// UnmarshalBinary implements encoding.BinaryUnmarshaler.
func (x *ExecFilter) UnmarshalBinary(b []byte) error { return noState(x.FilterName, b) }

func noState(name string, b []byte) error {
	if len(b) != 0 {
		return fmt.Errorf("hpcpack: %s keeps no state, got %d bytes", name, len(b))
	}
	return nil
}

func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decode(name string, b []byte, v any) error {
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("hpcpack: %s state: %w", name, err)
	}
	return nil
}
