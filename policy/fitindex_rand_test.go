package policy

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// fitModel is a fitIndex together with the queue it indexes, for checking
// the index against a scan of the queue.
type fitModel struct {
	x    fitIndex
	jobs []workload.Job // in Seq order; removed ones have live false
	live []bool
	next int64 // next Seq to add
}

func newFitModel() *fitModel {
	m := &fitModel{}
	m.x.reset()
	return m
}

// lowLive returns the smallest Seq still queued, or the next Seq.
func (m *fitModel) lowLive() int64 {
	for i, j := range m.jobs {
		if m.live[i] {
			return j.Seq
		}
	}
	return m.next
}

func (m *fitModel) add(gap int64, procs int, est workload.Time) {
	j := workload.Job{Seq: m.next + gap, Procs: procs, Estimate: est}
	m.next = j.Seq + 1
	m.jobs = append(m.jobs, j)
	m.live = append(m.live, true)
	m.x.add(&m.jobs[len(m.jobs)-1], m.lowLive())
}

func (m *fitModel) remove(k int) {
	if len(m.jobs) == 0 {
		return
	}
	k %= len(m.jobs)
	m.live[k] = false
	m.x.remove(m.jobs[k].Seq)
}

// scan is the backfill test over every queued job with Seq in [lo, hi]: the
// first with an estimate, procs ≤ free, and procs ≤ lim or estimate ≤
// horizon.
func (m *fitModel) scan(lo, hi int64, free, lim int32, horizon int64) int64 {
	for i, j := range m.jobs {
		if !m.live[i] || j.Seq < lo || j.Seq > hi || j.Estimate <= 0 || j.Procs > noProcs-1 {
			continue
		}
		p, e := int64(j.Procs), int64(j.Estimate)
		if p <= int64(free) && (p <= int64(lim) || e <= horizon) {
			return j.Seq
		}
	}
	return -1
}

// check compares firstAny with a scan of the queue and with first over
// every Seq added, and first over the window [lo, hi] with a scan of it.
func (m *fitModel) check(t *testing.T, lo, hi int64, free, lim int32, horizon int64) {
	t.Helper()
	got := m.x.firstAny(free, lim, horizon)
	if other := m.x.first(0, m.next, free, lim, horizon); got != other {
		t.Fatalf("firstAny(%d, %d, %d) = %d, first over every Seq finds %d", free, lim, horizon, got, other)
	}
	if free >= noProcs {
		return // an empty position may pass: the scan knows no positions
	}
	if want := m.scan(math.MinInt64, math.MaxInt64, free, lim, horizon); got != want {
		t.Fatalf("firstAny(%d, %d, %d) = %d, a scan finds %d", free, lim, horizon, got, want)
	}
	if got, want := m.x.first(lo, hi, free, lim, horizon), m.scan(lo, hi, free, lim, horizon); got != want {
		t.Fatalf("first(%d, %d, %d, %d, %d) = %d, a scan finds %d", lo, hi, free, lim, horizon, got, want)
	}
}

// pickWindow returns a search window: every Seq, or bounds near queued
// jobs' Seqs, either side of them, before every job and past the last,
// and now and then an empty one (lo > hi).
func (m *fitModel) pickWindow(r *rand.Rand) (lo, hi int64) {
	at := func() int64 {
		if len(m.jobs) == 0 || r.IntN(6) == 0 {
			return r.Int64N(m.next+2) - 1
		}
		return m.jobs[r.IntN(len(m.jobs))].Seq + int64(r.IntN(3)) - 1
	}
	switch r.IntN(4) {
	case 0:
		return math.MinInt64, math.MaxInt64
	case 1:
		return at(), math.MaxInt64
	}
	lo, hi = at(), at()
	if r.IntN(8) > 0 && lo > hi {
		lo, hi = hi, lo
	}
	return lo, hi
}

// pickEdge returns a processor count, an estimate or a query value near the
// edges: 0, 1, powers of two and their neighbours, or any in [lo, hi].
func pickEdge(r *rand.Rand, lo, hi int64) int64 {
	switch r.IntN(4) {
	case 0:
		return lo + r.Int64N(hi-lo+1)
	case 1:
		return min(max(int64(1)<<r.IntN(12)+int64(r.IntN(3))-1, lo), hi)
	case 2:
		return lo
	}
	return min(max(int64(r.IntN(40)), lo), hi)
}

// TestFitIndexFirstAnyRandom checks firstAny against a scan over many
// random queues (gaps in Seq, removals that move the index's base, jobs
// without an estimate or with too many processors) and queries at the
// edges: free 0, 1, powers of two and their neighbours, and the largest;
// lim below 0, above free and equal to it; horizons below every estimate,
// equal to one, and the largest; and first over windows of every Seq or
// bounded near queued jobs.
func TestFitIndexFirstAnyRandom(t *testing.T) {
	for seed := uint64(1); seed <= 120; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		m := newFitModel()
		maxProcs := int64(1) << r.IntN(12)
		maxEst := int64(1 + r.IntN(5000))
		steps := 200 + r.IntN(3000)
		for step := 0; step < steps; step++ {
			switch k := r.IntN(10); {
			case k < 5:
				procs := int(pickEdge(r, 1, maxProcs))
				est := workload.Time(pickEdge(r, -2, maxEst))
				switch r.IntN(40) {
				case 0:
					procs = math.MaxInt32 // too many: never backfilled
				case 1:
					procs = 0
				}
				gap := int64(0)
				if r.IntN(8) == 0 {
					gap = r.Int64N(3000)
				}
				m.add(gap, procs, est)
			case k < 8:
				m.remove(r.IntN(len(m.jobs) + 1))
			default:
				free := int32(pickEdge(r, 0, 2*maxProcs))
				switch r.IntN(20) {
				case 0:
					free = math.MaxInt32 - 1
				case 1:
					free = math.MaxInt32
				}
				lim := free
				if r.IntN(3) > 0 {
					lim = int32(pickEdge(r, -1, int64(free)+1))
				}
				horizon := pickEdge(r, -1, maxEst+1)
				switch r.IntN(10) {
				case 0:
					horizon = math.MaxInt64
				case 1:
					if len(m.jobs) > 0 {
						horizon = int64(m.jobs[r.IntN(len(m.jobs))].Estimate)
					}
				}
				lo, hi := m.pickWindow(r)
				m.check(t, lo, hi, free, lim, horizon)
			}
		}
	}
}

// FuzzFitIndexFirstAny reads operations from the input, 8 bytes each: add a
// job (procs, estimate, Seq gap), remove one, or query; every query must
// agree with a scan and with first. A query's last byte picks a window for
// first as well: 0 for every Seq, else one of the Seqs used so far (low
// nibble the start, high nibble the length, in sixteenths).
func FuzzFitIndexFirstAny(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 3, 0, 10, 0, 0, 0, 0, 2, 4, 0, 0, 0, 20, 0, 0})
	f.Add([]byte{
		0, 1, 0, 100, 0, 0, 0, 0, // small, long
		0, 8, 0, 5, 0, 0, 0, 0, // large, short
		0, 5, 0, 7, 0, 0, 0, 0, // in the band of free 6
		2, 6, 0, 0, 0, 0, 50, 0, // free 6, lim 0, horizon 50
		1, 2, 0, 0, 0, 0, 0, 0, // remove the band job
		2, 6, 0, 0, 0, 0, 50, 0,
	})
	f.Add([]byte{
		0, 1, 0, 9, 0, 0, 0, 0, // small, short
		0, 4, 0, 9, 0, 0, 0, 0,
		0, 1, 0, 9, 0, 0, 0, 0,
		2, 4, 0, 0, 0, 0, 50, 0x21, // free 4, window from the second
		2, 4, 0, 0, 0, 0, 50, 0x1a, // a window past every job
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		m := newFitModel()
		for len(data) >= 8 {
			op, a, b, c := data[0]%3, binary.BigEndian.Uint16(data[1:]), binary.BigEndian.Uint16(data[3:]), binary.BigEndian.Uint16(data[5:])
			w := int64(data[7])
			data = data[8:]
			switch op {
			case 0:
				if len(m.jobs) < 5000 {
					m.add(int64(c%64), int(a), workload.Time(int16(b)))
				}
			case 1:
				m.remove(int(a))
			default:
				lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
				if w != 0 {
					lo = m.next * (w & 15) / 16
					hi = lo + m.next*(w>>4)/16
				}
				m.check(t, lo, hi, int32(a), int32(int16(b)), int64(int16(c)))
			}
		}
	})
}
