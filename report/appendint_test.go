package report

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

func TestAppendInt(t *testing.T) {
	for _, v := range []int64{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 12345, 99999, 100000,
		1234567, 10000001, 12340005, 99999999, 100000000, 1089170657, 1000000000000005,
		1<<31 - 1, 1 << 40, 1e16 - 1, 1e16, math.MaxInt64, -1, -10, -12345, math.MinInt64} {
		if got, want := string(appendInt([]byte("x"), v)), "x"+strconv.FormatInt(v, 10); got != want {
			t.Errorf("appendInt(%d) = %q, want %q", v, got, want)
		}
	}
	// Every digit count, at both sides of each power of ten, into a
	// slice with and without room to spare.
	for p := int64(10); p > 0 && p <= math.MaxInt64/10; p *= 10 {
		for _, v := range []int64{p - 1, p, p + 1} {
			for _, b := range [][]byte{nil, make([]byte, 0, 64)} {
				if got, want := string(appendInt(b, v)), strconv.FormatInt(v, 10); got != want {
					t.Errorf("appendInt(%d) = %q, want %q", v, got, want)
				}
			}
		}
	}
}

// TestPutInt checks putInt against strconv on the edges of every path
// (one digit, four, eight, the split at 10^8 and at 10^16, negatives,
// math.MinInt64), at an offset, and that it writes nothing beyond its
// intRoom bytes.
func TestPutInt(t *testing.T) {
	vals := []int64{0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 99999999, 1e8, 1e8 + 1,
		999999999, 1e9, 1e9 + 7, 9999999999, 1e10, 1e15, 1e16 - 1, 1e16, 1e16 + 1, 1e17 + 12345,
		1e18, math.MaxInt64, math.MaxInt64 - 1, -1, -9, -10, -9999, -10000, -1e8, -1e16,
		math.MinInt64, math.MinInt64 + 1}
	for p := int64(10); p > 0 && p <= math.MaxInt64/10; p *= 10 {
		vals = append(vals, p-1, p, p+1, -p+1, -p, -p-1)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		vals = append(vals, int64(r.Uint64())>>r.IntN(64))
	}
	for _, v := range vals {
		want := strconv.FormatInt(v, 10)
		for _, at := range []int{0, 3} {
			b := make([]byte, at+intRoom+8)
			for i := range b {
				b[i] = 'x'
			}
			n := putInt(b, at, v)
			if got := string(b[at:n]); got != want {
				t.Fatalf("putInt(%d) at %d = %q, want %q", v, at, got, want)
			}
			for i := at + intRoom; i < len(b); i++ {
				if b[i] != 'x' {
					t.Fatalf("putInt(%d) at %d wrote byte %d, beyond its room", v, at, i)
				}
			}
		}
	}
}

// FuzzPutInt checks putInt against strconv on any int64.
func FuzzPutInt(f *testing.F) {
	for _, v := range []int64{0, 7, 1234, 1e8, 1089170657, math.MaxInt64, math.MinInt64} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		b := make([]byte, intRoom)
		if got, want := string(b[:putInt(b, 0, v)]), strconv.FormatInt(v, 10); got != want {
			t.Fatalf("putInt(%d) = %q, want %q", v, got, want)
		}
	})
}

// TestDigits4 checks digits4 on every v below 10^4.
func TestDigits4(t *testing.T) {
	for v := uint32(0); v < 1e4; v++ {
		want := []byte{byte(v / 1000), byte(v / 100 % 10), byte(v / 10 % 10), byte(v % 10)}
		d := digits4(v)
		for i := range 4 {
			if got := byte(d >> (8 * i)); got != want[i] {
				t.Fatalf("digits4(%d): digit %d is %d, want %d", v, i, got, want[i])
			}
		}
	}
}

// TestDigits8 checks digits8 on every v below 10^8 (every 997th unless
// simtest.Full), against a decimal counter.
func TestDigits8(t *testing.T) {
	step := uint32(simtest.Cases(1, 997))
	var want [8]byte // v's digits, most significant first
	counter := uint32(0)
	for v := uint32(0); v < 1e8; v += step {
		for ; counter < v; counter++ {
			for i := 7; ; i-- {
				if want[i]++; want[i] < 10 {
					break
				}
				want[i] = 0
			}
		}
		d := digits8(v)
		for i := range 8 {
			if got := byte(d >> (8 * i)); got != want[i] {
				t.Fatalf("digits8(%d): digit %d is %d, want %d", v, i, got, want[i])
			}
		}
	}
}

func TestAppendStretch(t *testing.T) {
	cases := []struct {
		turnaround, exec int64
		want             string
	}{
		{100, 100, "1"},
		{300, 100, "3"},
		{150, 100, "1.5"},
		{10, 3, "3.3333333333333335"},
		{999999, 1, "999999"},
		{1000000, 1, "1e+06"},
		{2000000, 2, "1e+06"},
		{1234567, 1, "1.234567e+06"},
	}
	for _, c := range cases {
		if got := string(appendStretch(nil, c.turnaround, c.exec)); got != c.want {
			t.Errorf("appendStretch(%d, %d) = %q, want %q", c.turnaround, c.exec, got, c.want)
		}
	}
}

// FuzzAppendStretch checks appendStretch against strconv on any operands.
func FuzzAppendStretch(f *testing.F) {
	f.Add(int64(100), int64(100))
	f.Add(int64(7), int64(3))
	f.Add(int64(3000000), int64(3))
	f.Fuzz(func(t *testing.T, turnaround, exec int64) {
		if exec <= 0 {
			return
		}
		want := strconv.AppendFloat(nil, float64(turnaround)/float64(exec), 'g', -1, 64)
		if got := appendStretch(nil, turnaround, exec); string(got) != string(want) {
			t.Fatalf("appendStretch(%d, %d) = %q, want %q", turnaround, exec, got, want)
		}
		if got, want := appendInt(nil, turnaround), strconv.AppendInt(nil, turnaround, 10); string(got) != string(want) {
			t.Fatalf("appendInt(%d) = %q, want %q", turnaround, got, want)
		}
	})
}

func TestAppendShortestCases(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    float64
		ok   bool // appendShortest formats f itself
	}{
		{"one third plus one", 4.0 / 3, true},
		{"short fraction", 1.5, true},
		{"one digit after the point", 2.25, true},
		{"sixteen digits", 1.2857142857142858, true},
		{"largest below 10^6", math.Nextafter(1e6, 0), true},
		{"just above 1", math.Nextafter(1, 2), true},
		{"just above 10", math.Nextafter(10, 11), true},
		{"just below 10", math.Nextafter(10, 0), true},
		{"just below 100000", math.Nextafter(1e5, 0), true},
		{"whole, not a power of two", 3, false},
		{"whole, six digits", 999999, false},
		{"odd significand, exact bound", 1 + 3.0/(1<<52), true},
		{"tie between two shortest", 1 + 1.0/(1<<17), false},
		{"power of two", 2, false},
		{"power of two, large", 1 << 19, false},
		{"one", 1, false},
		{"below one", 0.75, false},
		{"10^6", 1e6, false},
		{"above 10^6", 1234567.5, false},
		{"NaN", math.NaN(), false},
		{"infinity", math.Inf(1), false},
		{"negative", -1.5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := appendShortest([]byte("x"), tc.f)
			if ok != tc.ok {
				t.Fatalf("appendShortest(%v) ok = %v, want %v", tc.f, ok, tc.ok)
			}
			want := "x"
			if ok {
				want = "x" + strconv.FormatFloat(tc.f, 'g', -1, 64)
			}
			if string(got) != want {
				t.Errorf("appendShortest(%v) = %q, want %q", tc.f, got, want)
			}
		})
	}
}

// TestAppendShortestRandom compares appendShortest with strconv on floats
// in (1, 10^6) with random significands, and on floats a few units in the
// last place from every power of ten and of two in that range, where the
// number of integer digits, the interval's shape or the digits' carries
// change.
func TestAppendShortestRandom(t *testing.T) {
	n := simtest.Cases(2_000_000, 100_000)
	r := rand.New(rand.NewPCG(11, 12))
	check := func(f float64) bool {
		got, ok := appendShortest(nil, f)
		if !ok {
			return false
		}
		if want := strconv.AppendFloat(nil, f, 'g', -1, 64); string(got) != string(want) {
			t.Fatalf("appendShortest(%b) = %q, want %q", f, got, want)
		}
		return true
	}
	fast, below := 0, 0
	for range n {
		// A random exponent from 2^0 to 2^19 and a random significand.
		f := math.Float64frombits(uint64(1023+r.IntN(20))<<52 | r.Uint64()&(1<<52-1))
		if f < 1e6 {
			below++
		}
		if check(f) {
			fast++
		}
	}
	// Every float below 10^6 but whole numbers and ties (which need f to
	// have few significant bits) takes the fast path.
	if fast < below-below/100000 || fast > below {
		t.Errorf("appendShortest formatted %d of %d random floats below 10^6, want nearly all", fast, below)
	}
	for _, x := range []float64{1, 2, 4, 8, 16, 10, 100, 1000, 1e4, 1e5, 1e6, 1 << 19, 3, 7, 999999, 99999.5} {
		g, h := x, x
		for range 64 {
			g, h = math.Nextafter(g, 0), math.Nextafter(h, 2e6)
			check(g)
			check(h)
		}
	}
	// Short decimals, and those a unit in the last place away.
	for range n / 10 {
		d := r.Uint64N(1e6) + 1
		k := r.IntN(6)
		f := float64(d) / float64(pow10[k])
		check(f)
		check(math.Nextafter(f, 0))
		check(math.Nextafter(f, 2e6))
	}
}

// TestAppendStretchRandom compares appendStretch with strconv on the
// quotients of millions of (turnaround, exec) pairs as runs give them
// (turnaround = wait + exec, times from a second to years), and on pairs
// no run gives: huge operands, exec of 1, turnaround below exec or
// negative.
func TestAppendStretchRandom(t *testing.T) {
	n := simtest.Cases(3_000_000, 100_000)
	r := rand.New(rand.NewPCG(7, 8))
	logUniform := func(max float64) int64 { return int64(math.Exp(r.Float64() * math.Log(max))) }
	for i := range n {
		var turnaround, exec int64
		switch i % 8 {
		case 0, 1, 2, 3: // a job that waited
			exec = logUniform(1e7)
			turnaround = exec + logUniform(1e9) - 1
		case 4: // exec of 1
			exec = 1
			turnaround = logUniform(1e7)
		case 5: // huge operands, about 2^53 and beyond
			exec = int64(r.Uint64N(1<<54)) + 1
			turnaround = exec + int64(r.Uint64N(1<<55))
		case 6: // any int64
			exec = int64(r.Uint64()>>1) + 1
			turnaround = int64(r.Uint64())
		case 7: // turnaround below exec, or negative
			exec = logUniform(1e7) + 1
			turnaround = r.Int64N(2*exec) - exec
		}
		want := strconv.AppendFloat(nil, float64(turnaround)/float64(exec), 'g', -1, 64)
		if got := appendStretch(nil, turnaround, exec); string(got) != string(want) {
			t.Fatalf("appendStretch(%d, %d) = %q, want %q", turnaround, exec, got, want)
		}
	}
}

// BenchmarkAppendStretch formats the stretches of jobs that waited, with
// appendStretch ("fast") and with strconv.
func BenchmarkAppendStretch(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	pairs := make([][2]int64, 1024)
	for i := range pairs {
		exec := int64(math.Exp(r.Float64()*math.Log(1e5))) + 1
		pairs[i] = [2]int64{exec + int64(math.Exp(r.Float64()*math.Log(1e6))), exec}
	}
	buf := make([]byte, 0, 64)
	b.Run("fast", func(b *testing.B) {
		for i := range b.N {
			p := pairs[i&1023]
			buf = appendStretch(buf[:0], p[0], p[1])
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for i := range b.N {
			p := pairs[i&1023]
			buf = strconv.AppendFloat(buf[:0], float64(p[0])/float64(p[1]), 'g', -1, 64)
		}
	})
}

// FuzzAppendShortest checks appendShortest against strconv on any float:
// what it formats must be strconv's text, and it must format every float
// in (1, 10^6) with a fractional part but ties. A tie needs f·10^F (F ≤
// 16, f = m/2^s, s ≥ 33) to be a multiple of 2^(s−1), so m has at least
// 16 trailing zero bits.
func FuzzAppendShortest(f *testing.F) {
	f.Add(math.Float64bits(4.0 / 3))
	f.Add(math.Float64bits(1 + 1.0/(1<<17)))
	f.Add(math.Float64bits(math.Nextafter(1e6, 0)))
	f.Add(math.Float64bits(27.77475212959084))
	f.Fuzz(func(t *testing.T, fb uint64) {
		x := math.Float64frombits(fb)
		got, ok := appendShortest(nil, x)
		if !ok {
			if x > 1 && x < 1e6 && x != math.Trunc(x) && bits.TrailingZeros64(fb) < 16 {
				t.Fatalf("appendShortest(%b) declined a float with many significant bits", x)
			}
			return
		}
		if want := strconv.AppendFloat(nil, x, 'g', -1, 64); string(got) != string(want) {
			t.Fatalf("appendShortest(%b) = %q, want %q", x, got, want)
		}
	})
}

// The append forms below are the put functions with the room they need
// grown first, for the tests, which compare them with strconv.

// appendInt appends v in decimal, as strconv.AppendInt(b, v, 10) does
// (see putInt).
func appendInt(b []byte, v int64) []byte {
	l := len(b)
	if cap(b)-l < intRoom {
		b = slices.Grow(b, intRoom)
	}
	return b[:putInt(b[:cap(b)], l, v)]
}

// appendStretch appends turnaround/exec (exec > 0) as
// strconv.AppendFloat(b, float64(turnaround)/float64(exec), 'g', -1, 64)
// does (see putStretch).
func appendStretch(b []byte, turnaround, exec int64) []byte {
	l := len(b)
	if cap(b)-l < stretchRoom {
		b = slices.Grow(b, stretchRoom)
	}
	return b[:putStretch(b[:cap(b)], l, turnaround, exec)]
}

// appendShortest appends f as strconv.AppendFloat(b, f, 'g', -1, 64)
// does, and reports true, when putShortest does; otherwise it returns b
// unchanged and false.
func appendShortest(b []byte, f float64) ([]byte, bool) {
	l := len(b)
	if cap(b)-l < stretchRoom {
		b = slices.Grow(b, stretchRoom)
	}
	n, ok := putShortest(b[:cap(b)], l, f)
	return b[:n], ok
}
