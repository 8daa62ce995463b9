package report

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strconv"
)

// digitPairs holds "00" to "99": appendInt writes two digits at a time.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// appendInt appends v in decimal, as strconv.AppendInt(b, v, 10) does. A
// jobs.csv row holds nine integers, times up to 10^9 and more among them:
// each run of eight digits is made at once by digits8 and stored with one
// write of eight bytes, the leading zeros shifted out, which costs a
// fraction of strconv's loop over pairs of digits.
func appendInt(b []byte, v int64) []byte {
	if uint64(v) >= 1e16 { // negative, or 17 digits and more
		if v < 0 {
			return strconv.AppendInt(b, v, 10)
		}
		return appendUint(b, uint64(v))
	}
	l := len(b)
	if cap(b)-l < 16 {
		b = slices.Grow(b, 16)
	}
	u := uint64(v)
	if u < 1e8 {
		d := digits8(uint32(u))
		// The leading zeros are the low zero bytes of d, before '0' is
		// added; 0 keeps one (the bit set in the last byte). Masking
		// the shift, below 64 anyway, spares the compiler's check.
		z := uint(bits.TrailingZeros64(d|1<<56) >> 3)
		binary.LittleEndian.PutUint64(b[l:l+8], (d+ascii8)>>(8*z&63))
		return b[:l+8-int(z)]
	}
	hi := u / 1e8 // ≥ 1
	switch {
	case hi < 10: // times of a trace up to 31 years
		b = b[:l+1]
		b[l] = byte('0' + hi)
		l++
	case hi < 100:
		b = b[:l+2]
		b[l], b[l+1] = digitPairs[2*hi], digitPairs[2*hi+1]
		l += 2
	default:
		d := digits8(uint32(hi))
		z := uint(bits.TrailingZeros64(d|1<<56) >> 3)
		binary.LittleEndian.PutUint64(b[l:l+8], (d+ascii8)>>(8*z&63))
		l += 8 - int(z)
	}
	binary.LittleEndian.PutUint64(b[l:l+8], digits8(uint32(u-hi*1e8))+ascii8)
	return b[:l+8]
}

// ascii8 adds '0' to each of eight digits.
const ascii8 = 0x3030303030303030

// digits8 returns the eight decimal digits of v < 10^8, with leading
// zeros, one per byte from the lowest byte (the first digit) up: the
// bytes of v written in little-endian order, once '0' is added to each.
// It splits v in two halves of four digits in 32-bit lanes, each half in
// two pairs in 16-bit lanes, each pair in two digits, every lane at once:
// x·10486>>20 is x/100 for x < 10^4, x·103>>10 is x/10 for x < 100, and
// no lane's product reaches the next lane's bits that the masks keep.
func digits8(v uint32) uint64 {
	x := uint64(v/10000) | uint64(v%10000)<<32
	hi := (x * 10486 >> 20) & 0x0000007F0000007F
	x = hi | (x-hi*100)<<16
	hi = (x * 103 >> 10) & 0x000F000F000F000F
	return hi | (x-hi*10)<<8
}

// appendUint appends u ≥ 1 in decimal, writing the digits straight into
// b's spare room, two at a time.
func appendUint(b []byte, u uint64) []byte {
	n := decimalDigits(u)
	l := len(b)
	if cap(b)-l < n {
		b = slices.Grow(b, n)
	}
	b = b[:l+n]
	i := l + n
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		b[i], b[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		b[i-2], b[i-1] = digitPairs[2*u], digitPairs[2*u+1]
	} else {
		b[i-1] = byte('0' + u)
	}
	return b
}

// decimalDigits returns the number of decimal digits of u (u ≥ 1).
func decimalDigits(u uint64) int {
	n := 1
	for u >= 10000 {
		u /= 10000
		n += 4
	}
	for u >= 10 {
		u /= 10
		n++
	}
	return n
}

// appendStretch appends turnaround/exec (exec > 0) as
// strconv.AppendFloat(b, float64(turnaround)/float64(exec), 'g', -1, 64)
// does. When the quotient is a whole number below 10^6 (a job that did not
// wait has stretch 1), 'g' writes its decimal digits, without an exponent;
// the other quotients in (1, 10^6), most of the others, go through
// appendShortest, and what it declines through strconv.
func appendStretch(b []byte, turnaround, exec int64) []byte {
	f := float64(turnaround) / float64(exec)
	if f >= 0 && f < 1e6 {
		if w := int64(f); float64(w) == f {
			return appendInt(b, w)
		}
		if out, ok := appendShortest(b, f); ok {
			return out
		}
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// pow10 holds 10^0 to 10^19.
var pow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// appendShortest appends f as strconv.AppendFloat(b, f, 'g', -1, 64)
// does, and reports true, for f in (1, 10^6) that is not a whole number
// and whose shortest representation is not a tie; otherwise it returns b
// unchanged and false, and the caller asks strconv.
//
// 'g' writes the shortest decimal that parses back to f, the one closest
// to f if there are several (a tie goes to the even one: left to
// strconv), and for f below 10^6 it writes it without an exponent. The
// decimals that parse back to f are those in f's rounding interval, f ±
// half a unit in the last place, bounds included if f's significand is
// even (parsing rounds half to even); for f = m·2^-s with 2^52 ≤ m < 2^53
// and m not a power of two (f is not whole), that is [(2m−1)·2^-(s+1),
// (2m+1)·2^-(s+1)]. With p the number of f's integer digits and F = 17 −
// p, the decimals with F fractional digits in it are the d/10^F with d in
// [⌈(m·10^F − 10^F/2)/2^s⌉, ⌊(m·10^F + 10^F/2)/2^s⌋], computed exactly in
// 128 bits (m·10^F < 2^53·10^16 < 2^107), and there is at least one: the
// interval is a unit in the last place wide, 2^-s > f·2^-53 ≥
// 10^(p−1)·2^-53 > 10^-F. The shortest is then the coarsest multiple of
// 10^j in that range of d, and the closest to f among them is f·10^F
// rounded to a multiple of 10^j, which lies in the range whenever one
// does (the range is symmetric about f·10^F), unless f·10^F is exactly
// halfway between two of them. Its integer part is f's: the interval
// holds no whole number, as f is none.
func appendShortest(b []byte, f float64) ([]byte, bool) {
	if !(f > 1 && f < 1e6) {
		return b, false
	}
	fb := math.Float64bits(f)
	m := fb&(1<<52-1) | 1<<52
	s := uint(1075 - fb>>52) // f = m/2^s, 33 ≤ s ≤ 52
	mask := uint64(1)<<s - 1
	if m&mask == 0 { // f is whole (a power of two among them)
		return b, false
	}
	ip := m >> s // f's integer part, 1 ≤ ip < 10^6
	p := 1
	for p < 6 && ip >= pow10[p] {
		p++
	}
	t := pow10[17-p]
	xHi, xLo := bits.Mul64(m, t) // f·10^F = x/2^s
	lLo, borrow := bits.Sub64(xLo, t/2, 0)
	lHi := xHi - borrow
	uLo, carry := bits.Add64(xLo, t/2, 0)
	uHi := xHi + carry
	odd := m & 1
	// lo = ⌈l/2^s⌉, or one more if l/2^s is whole and excluded (m odd);
	// hi = ⌊u/2^s⌋, or one less if u/2^s is whole and excluded.
	lo := lHi<<(64-s) | lLo>>s
	if lLo&mask != 0 || odd != 0 {
		lo++
	}
	hi := uHi<<(64-s) | uLo>>s
	if uLo&mask == 0 && odd != 0 {
		hi--
	}
	// c = ⌊f·10^F/10^j⌋, last its digit dropped last and below whether
	// any digit dropped before it, or the bits of f·10^F below the
	// point, are not 0.
	c := xHi<<(64-s) | xLo>>s
	last, below := uint64(0), xLo&mask != 0
	if lo > hi {
		return b, false // cannot happen (see above)
	}
	// j digits dropped while the range, in units of 10^j, still holds a
	// multiple of 10.
	j := 0
	for j < 16 && hi/10 >= (lo+9)/10 {
		hi /= 10
		lo = (lo + 9) / 10
		q := c / 10
		below = below || last != 0
		last = c - q*10
		c = q
		j++
	}
	// Round to the nearest.
	if j == 0 {
		half := uint64(1) << (s - 1)
		r := xLo & mask
		if r == half {
			return b, false // a tie
		}
		if r > half {
			c++
		}
	} else {
		if last == 5 && !below {
			return b, false // a tie
		}
		if last >= 5 {
			c++
		}
	}
	fd := 17 - j - p // fractional digits
	if c < lo || c > hi || fd <= 0 {
		return b, false // cannot happen (see above)
	}
	frac := c - ip*pow10[fd]
	if frac >= pow10[fd] {
		return b, false // cannot happen (see above)
	}
	b = appendInt(b, int64(ip))
	b = append(b, '.')
	return appendPadded(b, frac, fd), true
}

// appendPadded appends v < 10^w (w ≤ 16) as exactly w decimal digits,
// with leading zeros.
func appendPadded(b []byte, v uint64, w int) []byte {
	if w <= 8 {
		return appendPadded8(b, uint32(v), w)
	}
	hi := v / 1e8
	return appendPadded8(appendPadded8(b, uint32(hi), w-8), uint32(v-hi*1e8), 8)
}

// appendPadded8 appends v < 10^w (1 ≤ w ≤ 8) as exactly w decimal
// digits, with leading zeros.
func appendPadded8(b []byte, v uint32, w int) []byte {
	l := len(b)
	if cap(b)-l < 8 {
		b = slices.Grow(b, 8)
	}
	binary.LittleEndian.PutUint64(b[l:l+8], (digits8(v)+ascii8)>>(8*uint(8-w)&63))
	return b[:l+w]
}
