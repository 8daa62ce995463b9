package policy

import (
	"math"
	"sort"

	"github.com/schedsim/schedsim/workload"
)

// walkMirror lets EASY walk a short backfill window without asking the View
// for every job. At normal load a pass happens at almost every submission
// and end, and each walks the few dozen jobs behind the head; most of them
// are rejected at once because they need more processors than are free.
// Reading them through View.Job cost an interface call and a cache miss
// per job, which made the walk the largest cost of a run.
//
// The mirror holds the processors and estimate of every queued job, in
// queue order, in one dense slice. It follows the queue from pass to pass
// without reading it again: EASY knows every job the engine starts (it
// starts them), jobs that join come at the tail (the queue is in
// submission order, arrivalOrdered), and a pass removes the jobs it started
// when it ends. Its head and tail are checked against the View at every
// walk, and it is rebuilt when they differ. The mirror only filters: a job
// it passes is checked again, on the View's own job, by backfill.
type walkMirror struct {
	view View       // the run the mirror follows; nil: rebuild before use
	buf  []mirrored // buf[off:] are the queued jobs, ents[k] is queue index k
	off  int
	hit  []int // queue indices backfilled in the current pass, increasing
}

// The mirror pays for its upkeep at every pass only when walks are long:
// EASY starts using it for a window of mirrorOn jobs or more, and keeps it
// until the window falls below mirrorOff (so that a queue hovering around
// one length does not rebuild it again and again). Shorter windows are
// walked on the View.
const (
	mirrorOn  = 32
	mirrorOff = 16
)

// mirrored is one queued job as the walk needs it, in 16 bytes. Estimates
// and processor counts beyond 32 bits are cut to the largest int32: the
// mirror then lets the job through to backfill, which decides on the real
// values.
type mirrored struct {
	seq   int64
	est   int32 // ≤ 0: none (never backfilled)
	procs int32
}

// clamp32 returns v cut to the largest int32.
func clamp32(v int64) int32 { return int32(min(v, math.MaxInt32)) }

// ents returns the mirrored queue.
func (m *walkMirror) ents() []mirrored { return m.buf[m.off:] }

// rebuild mirrors the whole queue of v.
func (m *walkMirror) rebuild(v View) {
	m.view = v
	m.buf, m.off = m.buf[:0], 0
	m.extend(v, 0)
}

// extend appends the queued jobs from index k to the end of v's queue.
func (m *walkMirror) extend(v View, k int) {
	n := v.Len()
	if k < n && len(m.buf) == cap(m.buf) && m.off > 0 {
		// Reuse the room the removed head jobs left instead of growing.
		m.buf = m.buf[:copy(m.buf, m.buf[m.off:])]
		m.off = 0
	}
	for ; k < n; k++ {
		j := v.Job(k)
		m.buf = append(m.buf, mirrored{seq: j.Seq, est: clamp32(int64(j.Estimate)), procs: clamp32(int64(j.Procs))})
	}
}

// sync brings the mirror up to date at the start of a pass whose queue
// (before the pass started anything) is v's: it appends the jobs that joined
// since the previous pass. It reports false if the mirror does not describe
// v's queue, which is then not mirrored any more.
func (m *walkMirror) sync(v View) bool {
	if m.view == nil || m.view != v {
		return false
	}
	q := m.ents()
	n := v.Len()
	if len(q) > n {
		m.view = nil
		return false
	}
	// Jobs that joined: everything after the mirror's last job.
	m.extend(v, len(q))
	m.hit = m.hit[:0]
	return true
}

// check reports whether the mirror's head job h and last job are v's.
func (m *walkMirror) check(v View, h int) bool {
	q := m.ents()
	n := v.Len()
	return len(q) == n && q[h].seq == v.Job(h).Seq && q[n-1].seq == v.Job(n-1).Seq
}

// end removes the jobs the pass started: the h jobs ahead of the head, and
// the backfilled ones (m.hit). The backfilled jobs sit between the head and
// the end of the walk, so the jobs from the head up to the last of them are
// packed towards the back, which costs no more than the walk did.
func (m *walkMirror) end(h int) {
	q := m.ents()
	if k := len(m.hit); k > 0 {
		// Move each run of kept jobs between two removed ones back, in
		// one copy, from the last run to the first.
		w := m.hit[k-1] + 1 // end of the kept jobs' new place
		for j := k - 1; j >= 0; j-- {
			lo := h
			if j > 0 {
				lo = m.hit[j-1] + 1
			}
			w -= copy(q[w-(m.hit[j]-lo):], q[lo:m.hit[j]])
		}
		h += k
		m.hit = m.hit[:0]
	}
	m.off += h
}

// walk is EASY's plain backfill walk over queue indices [first, end) with
// the mirror as a filter: the same jobs are started, in the same order, as
// by calling backfill on every index.
//
// It returns the processors left free and the extra processors left after
// the walk.
func (m *walkMirror) walk(v View, d Decisions, first, end int, now, shadow workload.Time, free, extra int) (int, int) {
	q := m.ents()[:end]
	for i := first; i < len(q) && free > 0; i++ {
		j := &q[i]
		p := int(j.procs)
		if p > free || j.est <= 0 || (now+workload.Time(j.est) > shadow && p > extra) {
			continue // backfill would not start it
		}
		var started bool
		free, extra, started = backfillStarted(v, d, i, now, shadow, free, extra)
		if started {
			m.hit = append(m.hit, i)
		}
	}
	return free, extra
}

// after returns the first queue index in [first, end) of a job whose Seq
// is above seq (end if none): the mirror is in Seq order.
func (m *walkMirror) after(first, end int, seq int64) int {
	q := m.ents()
	return first + sort.Search(end-first, func(k int) bool { return q[first+k].seq > seq })
}
