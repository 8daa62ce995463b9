package report

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
)

// intRoom is the room putInt needs from where it writes: the 20 bytes
// of the longest int64, math.MinInt64 (its eight-byte stores stay within
// them too).
const intRoom = 20

// putInt writes v in decimal at b[n:], as strconv.AppendInt(b[:n], v, 10)
// would append it, and returns the index after it; b must have intRoom
// bytes from n, which it may write past the digits. A jobs.csv row
// reserves the room of all its numbers at once (JobsCSV.JobDone), so
// that each is written with no check of its own. A single digit (a wait
// of 0, a job on one processor, a stretch of 1: a third of a row's
// numbers) is written here, inline in the caller; the others by
// putIntLong.
func putInt(b []byte, n int, v int64) int {
	if uint64(v) < 10 {
		b[n] = byte('0' + v)
		return n + 1
	}
	return putIntLong(b, n, v)
}

// putIntLong is putInt for any v. It calls nothing, so that it needs no
// stack frame: a row calls it up to ten times. Numbers below 10^4 (a job's
// processors, most runs) take four digits at once from digits4, and each
// run of eight digits of a larger one (times reach 10^8 and more) comes
// from digits8, each stored with one write, the leading zeros shifted
// out: a fraction of strconv's loop over pairs of digits. The numbers of
// nine digits at most, all of a row's but rare ones, come first, with no
// test of the sign (a negative one is above them as a uint64).
func putIntLong(b []byte, n int, v int64) int {
	u := uint64(v)
	for {
		if u < 1e4 {
			d := digits4(uint32(u))
			// The leading zeros are the low zero bytes of d, before '0' is
			// added; 0 keeps one (the bit set in the last byte). Masking
			// the shift, below 32 anyway, spares the compiler's check.
			z := uint(bits.TrailingZeros32(d|1<<24) >> 3)
			binary.LittleEndian.PutUint32(b[n:n+4], (d+ascii4)>>(8*z&31))
			return n + 4 - int(z)
		}
		if u < 1e8 {
			d := digits8(uint32(u))
			z := uint(bits.TrailingZeros64(d|1<<56) >> 3)
			binary.LittleEndian.PutUint64(b[n:n+8], (d+ascii8)>>(8*z&63))
			return n + 8 - int(z)
		}
		if u < 1e9 { // times of a trace up to 31 years
			hi := u / 1e8
			b[n] = byte('0' + hi)
			binary.LittleEndian.PutUint64(b[n+1:n+9], digits8(uint32(u-hi*1e8))+ascii8)
			return n + 9
		}
		if v >= 0 {
			break
		}
		// A negative number: its sign, then its magnitude as above.
		b[n] = '-'
		n++
		u, v = -u, 0 // math.MinInt64 too: 2^63 as a uint64
	}
	if u >= 1e16 {
		// 17 to 20 digits: the first four at most, then twice eight.
		top := u / 1e16
		d := digits4(uint32(top))
		z := uint(bits.TrailingZeros32(d|1<<24) >> 3)
		binary.LittleEndian.PutUint32(b[n:n+4], (d+ascii4)>>(8*z&31))
		n += 4 - int(z)
		u -= top * 1e16
		mid := u / 1e8
		binary.LittleEndian.PutUint64(b[n:n+8], digits8(uint32(mid))+ascii8)
		binary.LittleEndian.PutUint64(b[n+8:n+16], digits8(uint32(u-mid*1e8))+ascii8)
		return n + 16
	}
	// 10 to 16 digits: up to eight, then eight.
	hi := u / 1e8 // ≥ 10
	d := digits8(uint32(hi))
	z := uint(bits.TrailingZeros64(d|1<<56) >> 3)
	binary.LittleEndian.PutUint64(b[n:n+8], (d+ascii8)>>(8*z&63))
	n += 8 - int(z)
	binary.LittleEndian.PutUint64(b[n:n+8], digits8(uint32(u-hi*1e8))+ascii8)
	return n + 8
}

// ascii4 adds '0' to each of four digits.
const ascii4 = 0x30303030

// digits4 returns the four decimal digits of v < 10^4, with leading
// zeros, one per byte from the lowest byte (the first digit) up, as
// digits8 does for eight: two pairs in 16-bit lanes, each pair split in
// two digits, both lanes at once (x·103>>10 is x/10 for x < 100, and a
// lane's product, below 2^14, stays in its lane).
func digits4(v uint32) uint32 {
	x := v/100 | (v%100)<<16
	hi := (x * 103 >> 10) & 0x000F000F
	return hi | (x-hi*10)<<8
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

// stretchRoom is the room putStretch needs from where it writes: the 24
// bytes of the longest float64 in 'g' form, "-2.2250738585072014e-308".
const stretchRoom = 24

// putStretch writes turnaround/exec (exec > 0) at b[n:] as
// strconv.AppendFloat(b[:n], float64(turnaround)/float64(exec), 'g', -1,
// 64) would append it, and returns the index after it; b must have
// stretchRoom bytes from n. When the quotient is a whole number below
// 10^6 (a job that did not wait has stretch 1), 'g' writes its decimal
// digits, without an exponent; the other quotients in (1, 10^6), most of
// the others, go through putShortest, and what it declines through
// strconv.
func putStretch(b []byte, n int, turnaround, exec int64) int {
	f := float64(turnaround) / float64(exec)
	if f >= 0 && f < 1e6 {
		if w := int64(f); float64(w) == f {
			return putInt(b, n, w)
		}
		if end, ok := putShortest(b, n, f); ok {
			return end
		}
	}
	var s [stretchRoom]byte
	return n + copy(b[n:n+stretchRoom], strconv.AppendFloat(s[:0], f, 'g', -1, 64))
}

// pow10 holds 10^0 to 10^19.
var pow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// putShortest writes f at b[n:] (which has stretchRoom bytes) as
// strconv.AppendFloat(b[:n], f, 'g', -1, 64) would append it, returns the
// index after it and reports true, for f in (1, 10^6) that is not a whole number
// and whose shortest representation is not a tie; otherwise it returns n
// and false, and the caller asks strconv.
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
func putShortest(b []byte, n int, f float64) (int, bool) {
	if !(f > 1 && f < 1e6) {
		return n, false
	}
	fb := math.Float64bits(f)
	m := fb&(1<<52-1) | 1<<52
	s := uint(1075 - fb>>52) // f = m/2^s, 33 ≤ s ≤ 52
	mask := uint64(1)<<s - 1
	if m&mask == 0 { // f is whole (a power of two among them)
		return n, false
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
		return n, false // cannot happen (see above)
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
			return n, false // a tie
		}
		if r > half {
			c++
		}
	} else {
		if last == 5 && !below {
			return n, false // a tie
		}
		if last >= 5 {
			c++
		}
	}
	fd := 17 - j - p // fractional digits
	if c < lo || c > hi || fd <= 0 {
		return n, false // cannot happen (see above)
	}
	frac := c - ip*pow10[fd]
	if frac >= pow10[fd] {
		return n, false // cannot happen (see above)
	}
	n = putInt(b, n, int64(ip))
	b[n] = '.'
	return putPadded(b, n+1, frac, fd), true
}

// putPadded writes v < 10^w (w ≤ 16) at b[n:] as exactly w decimal
// digits, with leading zeros, and returns the index after them; it may
// write up to 16 bytes.
func putPadded(b []byte, n int, v uint64, w int) int {
	if w <= 8 {
		return putPadded8(b, n, uint32(v), w)
	}
	hi := v / 1e8
	return putPadded8(b, putPadded8(b, n, uint32(hi), w-8), uint32(v-hi*1e8), 8)
}

// putPadded8 writes v < 10^w (1 ≤ w ≤ 8) at b[n:] as exactly w decimal
// digits, with leading zeros, and returns the index after them; it
// writes eight bytes.
func putPadded8(b []byte, n int, v uint32, w int) int {
	binary.LittleEndian.PutUint64(b[n:n+8], (digits8(v)+ascii8)>>(8*uint(8-w)&63))
	return n + w
}
