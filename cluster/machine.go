// Package cluster models the simulated hardware and its allocation state.
//
// Today a cluster is one Machine: P identical processors numbered 0..P-1,
// allocated first-fit from the lowest free number so that every job has
// known processors (for Batsim's allocated_resources column and Gantt charts).
package cluster

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Range is a half-open range of processor numbers [Lo, Hi).
type Range struct {
	Lo, Hi int
}

// Len returns the number of processors in r.
func (r Range) Len() int { return r.Hi - r.Lo }

// Machine is a pool of identical processors and which of them are free.
// The zero value is not usable; call NewMachine.
type Machine struct {
	size int
	free int
	// spans are the free ranges, sorted, disjoint and non-adjacent. They
	// sit at the end of base, their backing array: taking the lowest
	// spans moves their start instead of moving every span after them,
	// and the room left at the front is reused when the end runs out.
	spans []Range
	base  []Range
}

// NewMachine returns a machine of size processors, all free.
// It panics if size is not positive: callers check user input first.
func NewMachine(size int) *Machine {
	if size <= 0 {
		panic(fmt.Sprintf("cluster: machine size %d is not positive", size))
	}
	spans := []Range{{0, size}}
	return &Machine{size: size, free: size, spans: spans, base: spans}
}

// Size returns the number of processors.
func (m *Machine) Size() int { return m.size }

// Free returns the number of idle processors.
func (m *Machine) Free() int { return m.free }

// Fits reports whether n processors are free now (Slurm's RUN_NOW test).
func (m *Machine) Fits(n int) bool { return n <= m.free }

// CanEverRun reports whether a job of n processors fits the machine at all
// (Slurm's TEST_ONLY test); if not, reason says why.
func (m *Machine) CanEverRun(n int) (ok bool, reason string) {
	if n > m.size {
		return false, fmt.Sprintf("needs %d processors, machine has %d", n, m.size)
	}
	return true, ""
}

// Alloc takes n processors, lowest numbers first, appends their ranges to dst
// and returns it. It panics if fewer than n are free: an over-allocation is a
// simulator bug, never an input problem.
func (m *Machine) Alloc(n int, dst []Range) []Range {
	if n <= 0 || n > m.free {
		panic(fmt.Sprintf("cluster: allocating %d processors with %d free of %d", n, m.free, m.size))
	}
	m.free -= n
	k := 0
	for n > 0 {
		s := &m.spans[k]
		if s.Len() <= n {
			dst = append(dst, *s)
			n -= s.Len()
			k++
			continue
		}
		dst = append(dst, Range{s.Lo, s.Lo + n})
		s.Lo += n
		n = 0
	}
	m.spans = m.spans[k:]
	return dst
}

// room makes room for one more span at the end of m.spans: in the room
// Alloc left at the front of base, or in a new, larger array.
func (m *Machine) room() {
	if len(m.spans) < cap(m.spans) {
		return
	}
	full := m.base[:cap(m.base)]
	switch off := cap(full) - cap(m.spans); {
	case len(m.spans) == 0 && cap(full) > 0:
		m.spans = full[:0] // every processor was taken: start over
		return
	case len(m.spans) > 0 && off > 0 && &full[off] == &m.spans[0]:
		n := copy(full, m.spans)
		m.spans = full[:n]
		return
	}
	base := make([]Range, 2*len(m.spans)+4)
	n := copy(base, m.spans)
	m.base, m.spans = base, base[:n]
}

// Release returns processors taken by Alloc. It panics if any of them is
// already free.
func (m *Machine) Release(rs []Range) {
	for _, r := range rs {
		m.release(r)
	}
}

func (m *Machine) release(r Range) {
	if r.Lo < 0 || r.Hi > m.size || r.Lo >= r.Hi {
		panic(fmt.Sprintf("cluster: releasing bad range %v of a %d-processor machine", r, m.size))
	}
	// i is the first free span starting after r (a binary search written
	// out: sort.Search's closure call per probe was most of its cost).
	i, hi := 0, len(m.spans)
	for i < hi {
		h := int(uint(i+hi) >> 1)
		if m.spans[h].Lo < r.Hi {
			i = h + 1
		} else {
			hi = h
		}
	}
	if i > 0 && m.spans[i-1].Hi > r.Lo {
		panic(fmt.Sprintf("cluster: releasing %v, which overlaps free %v", r, m.spans[i-1]))
	}
	m.free += r.Len()
	joinPrev := i > 0 && m.spans[i-1].Hi == r.Lo
	joinNext := i < len(m.spans) && m.spans[i].Lo == r.Hi
	switch {
	case joinPrev && joinNext:
		m.spans[i-1].Hi = m.spans[i].Hi
		m.spans = append(m.spans[:i], m.spans[i+1:]...)
	case joinPrev:
		m.spans[i-1].Hi = r.Hi
	case joinNext:
		m.spans[i].Lo = r.Lo
	default:
		m.room()
		m.spans = m.spans[:len(m.spans)+1]
		copy(m.spans[i+1:], m.spans[i:])
		m.spans[i] = r
	}
}

// FormatRanges writes ranges as Batsim's interval set: "0-3 8 10-11"
// (inclusive bounds, space-separated).
func FormatRanges(b []byte, rs []Range) []byte {
	for i, r := range rs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendProc(b, r.Lo)
		if r.Hi-1 > r.Lo {
			b = append(b, '-')
			b = appendProc(b, r.Hi-1)
		}
	}
	return b
}

// appendProc appends processor number v ≥ 0 in decimal. Every row of
// jobs.csv has one or more; numbers below 10,000 (most machines) are
// written without strconv's general path.
func appendProc(b []byte, v int) []byte {
	switch {
	case v < 0 || v >= 10000:
		return strconv.AppendInt(b, int64(v), 10)
	case v < 10:
		return append(b, byte('0'+v))
	case v < 100:
		return append(b, byte('0'+v/10), byte('0'+v%10))
	case v < 1000:
		return append(b, byte('0'+v/100), byte('0'+v/10%10), byte('0'+v%10))
	}
	return append(b, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}

// ParseRanges parses Batsim's interval-set notation, the inverse of FormatRanges.
func ParseRanges(s string) ([]Range, error) {
	var out []Range
	for _, f := range strings.Fields(s) {
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("cluster: bad interval %q", f)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("cluster: bad interval %q", f)
			}
		}
		out = append(out, Range{a, b + 1})
	}
	return out, nil
}

// TakeFree takes every free processor within r out of the pool, appends
// the ranges it took to dst and returns it. The engine uses it to take the
// processors of down and drained nodes out of service; Release puts them
// back. It panics if r is not within the machine.
func (m *Machine) TakeFree(r Range, dst []Range) []Range {
	if r.Lo < 0 || r.Hi > m.size || r.Lo > r.Hi {
		panic(fmt.Sprintf("cluster: taking bad range %v of a %d-processor machine", r, m.size))
	}
	// i is the first free span ending after r.Lo.
	i := sort.Search(len(m.spans), func(i int) bool { return m.spans[i].Hi > r.Lo })
	for i < len(m.spans) && m.spans[i].Lo < r.Hi {
		s := m.spans[i]
		lo, hi := max(s.Lo, r.Lo), min(s.Hi, r.Hi)
		dst = append(dst, Range{lo, hi})
		m.free -= hi - lo
		switch {
		case lo == s.Lo && hi == s.Hi:
			m.spans = append(m.spans[:i], m.spans[i+1:]...)
		case lo == s.Lo:
			m.spans[i].Lo = hi
			i++
		case hi == s.Hi:
			m.spans[i].Hi = lo
			i++
		default: // r splits the span in two
			m.room()
			m.spans = m.spans[:len(m.spans)+1]
			copy(m.spans[i+2:], m.spans[i+1:])
			m.spans[i].Hi = lo
			m.spans[i+1] = Range{hi, s.Hi}
			i += 2
		}
	}
	return dst
}

// FreeIn returns the number of idle processors within r.
func (m *Machine) FreeIn(r Range) int {
	i := sort.Search(len(m.spans), func(i int) bool { return m.spans[i].Hi > r.Lo })
	n := 0
	for ; i < len(m.spans) && m.spans[i].Lo < r.Hi; i++ {
		n += min(m.spans[i].Hi, r.Hi) - max(m.spans[i].Lo, r.Lo)
	}
	return n
}

// AllocIn takes n processors within r, lowest numbers first, as Alloc does
// on the whole machine, appends their ranges to dst and returns it. It
// panics if fewer than n are free within r.
func (m *Machine) AllocIn(n int, r Range, dst []Range) []Range {
	if n <= 0 {
		panic(fmt.Sprintf("cluster: allocating %d processors", n))
	}
	i := sort.Search(len(m.spans), func(i int) bool { return m.spans[i].Hi > r.Lo })
	left := n
	for ; i < len(m.spans) && m.spans[i].Lo < r.Hi; i++ {
		lo, hi := max(m.spans[i].Lo, r.Lo), min(m.spans[i].Hi, r.Hi)
		if hi-lo >= left {
			// The n lowest free processors within r end at lo+left.
			return m.TakeFree(Range{r.Lo, lo + left}, dst)
		}
		left -= hi - lo
	}
	panic(fmt.Sprintf("cluster: allocating %d processors within %d-%d with %d free there", n, r.Lo, r.Hi-1, n-left))
}
