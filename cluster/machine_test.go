package cluster

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// mustPanic runs f and fails the test unless it panics with a message that
// starts with "cluster:".
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s: no panic", what)
			return
		}
		if s := fmt.Sprint(r); !strings.HasPrefix(s, "cluster:") {
			t.Errorf("%s: panic %q lacks the package prefix", what, s)
		}
	}()
	f()
}

func rs(s string) []Range {
	r, err := ParseRanges(s)
	if err != nil {
		panic(err)
	}
	return r
}

// checkSpans checks the free list's invariant: sorted, disjoint,
// non-adjacent, non-empty, inside the machine, summing to Free().
func checkSpans(t *testing.T, m *Machine) {
	t.Helper()
	n := 0
	for i, s := range m.spans {
		if s.Lo < 0 || s.Hi > m.size || s.Lo >= s.Hi {
			t.Fatalf("bad free span %v in %v", s, m.spans)
		}
		if i > 0 && m.spans[i-1].Hi >= s.Lo {
			t.Fatalf("free spans %v and %v overlap or touch: %v", m.spans[i-1], s, m.spans)
		}
		n += s.Len()
	}
	if n != m.free {
		t.Fatalf("free spans %v hold %d processors, Free() says %d", m.spans, n, m.free)
	}
}

func TestAllocFirstFit(t *testing.T) {
	m := NewMachine(10)
	if m.Size() != 10 || m.Free() != 10 || !m.Fits(10) || m.Fits(11) {
		t.Fatalf("new machine: size %d free %d", m.Size(), m.Free())
	}
	a := m.Alloc(3, nil)
	b := m.Alloc(2, nil)
	c := m.Alloc(4, nil)
	for _, x := range []struct {
		got  []Range
		want string
	}{{a, "0-2"}, {b, "3-4"}, {c, "5-8"}} {
		if got := string(FormatRanges(nil, x.got)); got != x.want {
			t.Errorf("alloc: %q, want %q", got, x.want)
		}
	}
	if m.Free() != 1 {
		t.Errorf("free %d, want 1", m.Free())
	}
	m.Release(b) // free: 3-4, 9
	checkSpans(t, m)
	// The lowest free processors, across the gap, in order.
	d := m.Alloc(3, nil)
	if got := string(FormatRanges(nil, d)); got != "3-4 9" {
		t.Errorf("alloc across a gap: %q, want \"3-4 9\"", got)
	}
	if m.Free() != 0 || m.Fits(1) {
		t.Errorf("full machine: free %d", m.Free())
	}
	// Alloc appends to dst and returns it.
	m.Release(a)
	dst := []Range{{100, 101}}
	dst = m.Alloc(2, dst)
	if !reflect.DeepEqual(dst, []Range{{100, 101}, {0, 2}}) {
		t.Errorf("alloc appends: %v", dst)
	}
	checkSpans(t, m)
}

func TestReleaseCoalesces(t *testing.T) {
	// Start full, release pieces in different orders, and check the free
	// list after each step; at the end one span holds the whole machine.
	cases := []struct {
		name    string
		release []string
		spans   []string // free spans after each release
	}{
		{"isolated, then join next, join prev, join both",
			[]string{"4", "5-6", "3", "8-9", "7", "0-2"},
			[]string{"4", "4-6", "3-6", "3-6 8-9", "3-9", "0-9"}},
		{"from the top down", []string{"9", "8", "5-7", "0-4"}, []string{"9", "8-9", "5-9", "0-9"}},
		{"from the bottom up", []string{"0", "1-3", "4-9"}, []string{"0", "0-3", "0-9"}},
		{"several ranges at once", []string{"0-1 3 5-9", "2 4"}, []string{"0-1 3 5-9", "0-9"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := NewMachine(10)
			m.Alloc(10, nil)
			for i, r := range c.release {
				m.Release(rs(r))
				checkSpans(t, m)
				if got := string(FormatRanges(nil, m.spans)); got != c.spans[i] {
					t.Fatalf("after releasing %q: free %q, want %q", r, got, c.spans[i])
				}
			}
			if got := m.Alloc(10, nil); !reflect.DeepEqual(got, []Range{{0, 10}}) {
				t.Errorf("whole machine after coalescing: %v", got)
			}
		})
	}
}

func TestMachinePanics(t *testing.T) {
	mustPanic(t, "NewMachine(0)", func() { NewMachine(0) })
	mustPanic(t, "NewMachine(-3)", func() { NewMachine(-3) })
	m := NewMachine(10)
	a := m.Alloc(4, nil) // 0-3
	mustPanic(t, "over-allocation", func() { m.Alloc(7, nil) })
	mustPanic(t, "allocating 0", func() { m.Alloc(0, nil) })
	mustPanic(t, "allocating -1", func() { m.Alloc(-1, nil) })
	if m.Free() != 6 {
		t.Fatalf("a refused allocation changed the machine: free %d", m.Free())
	}
	m.Release(a)
	mustPanic(t, "double free", func() { m.Release(a) })
	b := m.Alloc(10, nil)
	m.Release(rs("2-4"))
	for _, bad := range []string{"3", "0-2", "4-6", "1-5", "2-4"} {
		mustPanic(t, "releasing free "+bad, func() { m.Release(rs(bad)) })
	}
	mustPanic(t, "release below 0", func() { m.Release([]Range{{-1, 1}}) })
	mustPanic(t, "release past the end", func() { m.Release([]Range{{8, 11}}) })
	mustPanic(t, "release of an empty range", func() { m.Release([]Range{{5, 5}}) })
	mustPanic(t, "release of a reversed range", func() { m.Release([]Range{{6, 5}}) })
	_ = b
}

func TestCanEverRun(t *testing.T) {
	m := NewMachine(8)
	m.Alloc(8, nil)
	if ok, why := m.CanEverRun(8); !ok || why != "" {
		t.Errorf("8 on a busy 8-processor machine: %v %q, want ok (it fits later)", ok, why)
	}
	ok, why := m.CanEverRun(9)
	if ok || !strings.Contains(why, "9") || !strings.Contains(why, "8") {
		t.Errorf("9 on 8: %v %q, want a reason naming both sizes", ok, why)
	}
}

func TestRanges(t *testing.T) {
	cases := []struct {
		rs   []Range
		text string
	}{
		{nil, ""},
		{[]Range{{0, 1}}, "0"},
		{[]Range{{0, 4}}, "0-3"},
		{[]Range{{0, 4}, {8, 9}, {10, 12}}, "0-3 8 10-11"},
		{[]Range{{0, 2}, {2, 4}}, "0-1 2-3"}, // adjacent ranges are kept apart
		{[]Range{{1023, 1024}}, "1023"},
	}
	for _, c := range cases {
		if got := string(FormatRanges(nil, c.rs)); got != c.text {
			t.Errorf("FormatRanges(%v) = %q, want %q", c.rs, got, c.text)
		}
		back, err := ParseRanges(c.text)
		if err != nil || !reflect.DeepEqual(back, c.rs) {
			t.Errorf("ParseRanges(%q) = %v, %v; want %v", c.text, back, err, c.rs)
		}
	}
	if got := string(FormatRanges([]byte("x:"), []Range{{3, 5}})); got != "x:3-4" {
		t.Errorf("FormatRanges appends: %q", got)
	}
	if got, err := ParseRanges("  1-2\t\n5 "); err != nil || !reflect.DeepEqual(got, []Range{{1, 3}, {5, 6}}) {
		t.Errorf("ParseRanges with extra space: %v, %v", got, err)
	}
	for _, bad := range []string{"a", "1-", "-1", "3-1", "1-2-3", "1,2", "0x1", "1 - 2"} {
		if got, err := ParseRanges(bad); err == nil {
			t.Errorf("ParseRanges(%q) = %v, want an error", bad, got)
		} else if !strings.HasPrefix(err.Error(), "cluster: ") {
			t.Errorf("ParseRanges(%q): error %q lacks the package prefix", bad, err)
		}
	}
}

// TestAppendProcEveryWidth checks appendProc against strconv at every digit
// width and around its boundaries, including the general path beyond 9999.
func TestAppendProcEveryWidth(t *testing.T) {
	vals := []int{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 1001, 4095, 9999, 10000, 10001, 99999, 123456789, -1}
	for v := 0; v < 20000; v += 7 {
		vals = append(vals, v)
	}
	for _, v := range vals {
		if got, want := string(appendProc([]byte("x"), v)), "x"+strconv.Itoa(v); got != want {
			t.Fatalf("appendProc(%d) = %q, want %q", v, got, want)
		}
	}
}

// FuzzRanges: whatever ParseRanges accepts formats to text that parses back
// to the same ranges.
func FuzzRanges(f *testing.F) {
	for _, s := range []string{"", "0", "0-3 8 10-11", "5 3", "1-1", " 7-9  "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRanges(s)
		if err != nil {
			return
		}
		text := FormatRanges(nil, r)
		back, err := ParseRanges(string(text))
		if err != nil {
			t.Fatalf("%q parsed to %v, formatted to %q, which does not parse: %v", s, r, text, err)
		}
		if !reflect.DeepEqual(back, r) {
			t.Fatalf("%q parsed to %v, formatted to %q, parsed back to %v", s, r, text, back)
		}
	})
}

// TestMachineOracle compares the machine with a bitmap on random sequences of
// allocations and releases: an allocation takes the lowest free processors,
// a release frees exactly its processors, a refused operation panics and
// leaves the machine unchanged.
func TestMachineOracle(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 0xc1))
		size, steps := 1+r.IntN(64), 400
		if seed%5 == 0 {
			// Many free spans: taking the lowest ones and inserting
			// between them moves the spans through their array.
			size, steps = 64+r.IntN(2048), 1500
		}
		m := NewMachine(size)
		busy := make([]bool, size)
		var held [][]Range
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d, machine of %d: %s", seed, size, fmt.Sprintf(format, args...))
		}
		for step := range steps {
			free := 0
			for _, b := range busy {
				if !b {
					free++
				}
			}
			if m.Free() != free {
				fail("step %d: Free() = %d, bitmap %d", step, m.Free(), free)
			}
			checkSpans(t, m)
			switch op := r.IntN(10); {
			case op < 5 && free > 0: // allocate
				n := 1 + r.IntN(free)
				got := m.Alloc(n, nil)
				var want []Range
				for p := 0; p < size && n > 0; p++ {
					if busy[p] {
						continue
					}
					busy[p] = true
					n--
					if k := len(want); k > 0 && want[k-1].Hi == p {
						want[k-1].Hi++
					} else {
						want = append(want, Range{p, p + 1})
					}
				}
				if !reflect.DeepEqual(got, want) {
					fail("step %d: Alloc gave %v, lowest free are %v", step, got, want)
				}
				held = append(held, got)
			case op < 9 && len(held) > 0: // release a random holding
				k := r.IntN(len(held))
				m.Release(held[k])
				for _, x := range held[k] {
					for p := x.Lo; p < x.Hi; p++ {
						busy[p] = false
					}
				}
				held = append(held[:k], held[k+1:]...)
			case op == 9: // a refused operation: over-allocation or releasing a free processor
				before := string(FormatRanges(nil, m.spans))
				var p int
				for p = 0; p < size && busy[p]; p++ {
				}
				if p < size && r.IntN(2) == 0 {
					func() {
						defer func() { _ = recover() }()
						m.Release([]Range{{p, p + 1}})
						fail("step %d: releasing free processor %d did not panic", step, p)
					}()
				} else {
					func() {
						defer func() { _ = recover() }()
						m.Alloc(free+1, nil)
						fail("step %d: allocating %d with %d free did not panic", step, free+1, free)
					}()
				}
				if after := string(FormatRanges(nil, m.spans)); after != before {
					fail("step %d: a refused operation changed the free list from %q to %q", step, before, after)
				}
			}
		}
	}
}

// TestMachineSteadyStateNoAlloc checks that once a machine's free list has
// had its largest size, allocating and releasing allocate nothing: not
// when the free list fragments, nor when every processor is taken and the
// list starts over.
func TestMachineSteadyStateNoAlloc(t *testing.T) {
	const size = 512
	m := NewMachine(size)
	r := rand.New(rand.NewPCG(3, 4))
	pool := make([][]Range, size) // every holding's ranges, reused
	for i := range pool {
		pool[i] = make([]Range, 0, 32)
	}
	held := 0 // pool[:held] are held
	step := func() {
		if free := m.Free(); free > 0 && (held == 0 || r.IntN(2) == 0) {
			n := 1 + r.IntN(min(free, 32))
			if r.IntN(8) == 0 {
				n = free // take everything: the free list empties
			}
			if n > 32 {
				n = 32
			}
			pool[held] = m.Alloc(n, pool[held][:0])
			held++
			return
		}
		k := r.IntN(held)
		m.Release(pool[k])
		held--
		pool[k], pool[held] = pool[held], pool[k]
	}
	for range 20000 {
		step()
	}
	if n := testing.AllocsPerRun(20, func() {
		for range 2000 {
			step()
		}
	}); n != 0 {
		t.Fatalf("2,000 allocations and releases allocate %v times", n)
	}
}
