package workload

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
)

//go:generate go test -run TestSWFFieldsCode -update

// The fast path of parse is parseFast, in swffields.go, which
// TestSWFFieldsCode writes (see swfFieldsCode): it reads each field with
// the same few lines, written out once per field rather than in a loop.
// The functions here are its less common ways.

// Bytes parseFast compares with the first three of a field, shifted left by
// a byte (the comparison of a uint32 shifted needs no mask constant):
// "-1 " before another field, "-1\n" at the line's end.
const (
	minusOneBlank   = uint32('-'|'1'<<8|' '<<16) << 8
	minusOneNewline = uint32('-'|'1'<<8|'\n'<<16) << 8
)

// failed is the index fieldMore and lastField return for a line parseFast
// does not take: so negative that the few bytes each later field moves it
// on by leave it negative, so that one test at the end does for all.
const failed = -1 << 40

// fieldMore is parseFast's way for field f (0 to 16), at i, when it is
// not "-1" or an integer of up to fifteen digits followed by a space
// (after spaces, which the blocks skip themselves): it reads tabs before
// the field, a tab after it, and a short fraction inline, any other
// number the general way (see other). It puts an integer in t.vals[f],
// any other number in t.fields[f] (see other), and returns the index of
// the next field, or failed if the field is none parseFast takes, or if i
// is negative already. (It is the body of the loop that read all fields
// before the blocks.)
func (t *swfText) fieldMore(i, f int) int {
	if i < 0 {
		return failed
	}
	b := &t.buf
	i, w := t.fieldAt(i)
	if w<<40 == ('-'|'1'<<8|' '<<16)<<40 {
		// "-1 ", SWF's unknown.
		t.vals[f] = -1
		return i + 3
	}
	// Digits eight at a time: x holds the byte values minus '0'; the
	// first non-digit is the lowest byte of x above 9 (see swarDigits).
	x := w - 0x3030303030303030
	if nd := (x | (x + 0x7676767676767676)) & 0x8080808080808080; nd != 0 {
		// It ends the field if it is a blank, and then there is at
		// least one digit: w's first byte is not a blank.
		z := bits.TrailingZeros64(nd) & 56 // 8 × the number of digits
		c := byte(w >> z)
		if c == ' ' || c == '\t' {
			// z is 8 to 56: "& 63" only spares the code for shifts
			// of 64 and more.
			t.vals[f] = int64(swarDigits(x << ((64 - z) & 63)))
			return i + z>>3 + 1
		}
		if c == '.' && z != 0 {
			// A fraction ("489.00"): 1 to 7 digits after the point,
			// then a blank, make at most 14 digits in all, so the
			// value is scanNumber's: the digits as one integer, exact
			// in a float64, divided by a power of ten.
			p := i + z>>3 + 1
			w2 := load64(b, p)
			x2 := w2 - 0x3030303030303030
			nd2 := (x2 | (x2 + 0x7676767676767676)) & 0x8080808080808080
			// z2 is 0 without digits, or with eight (nd2 == 0).
			if z2 := bits.TrailingZeros64(nd2) & 56; z2 != 0 {
				if c := byte(w2 >> z2); c == ' ' || c == '\t' {
					fd := z2 >> 3
					m := swarDigits(x<<((64-z)&63))*pow10Int[fd] + swarDigits(x2<<((64-z2)&63))
					t.fields[f], t.ints[f] = float64(int64(m))/pow10[fd], false
					t.frac |= 1 << f
					return p + fd + 1
				}
			}
		}
	} else {
		// Eight digits: up to seven more in the next eight bytes.
		w2 := load64(b, i+8)
		x2 := w2 - 0x3030303030303030
		nd2 := (x2 | (x2 + 0x7676767676767676)) & 0x8080808080808080
		if d := bits.TrailingZeros64(nd2) >> 3; d < 8 {
			if c := byte(w2 >> (8 * d)); c == ' ' || c == '\t' {
				m := swarDigits(x)
				if d > 0 {
					m = m*pow10Int[d] + swarDigits(x2<<(64-8*d))
				}
				t.vals[f] = int64(m)
				return i + 8 + d + 1
			}
		}
	}
	// Any other field the general way.
	if i = t.other(f, i); i < 0 {
		return failed
	}
	return i
}

// fieldAt returns where the field at or after i starts, past the blanks
// before it (the line's indent, aligned columns, a tab), and its first
// eight bytes; at the end of the line or at a control byte, that byte's.
func (t *swfText) fieldAt(i int) (int, uint64) {
	w := load64(&t.buf, i)
	if byte(w) <= ' ' {
		i = skipBlanks(&t.buf, i)
		w = load64(&t.buf, i)
	}
	return i, w
}

// lastField is parseFast's way for the last field when it is not "-1" or
// a short integer right before the line's '\n': it reads the field as
// fieldMore does, but lets the line's end end it too, then checks that
// only blanks and '\r's come before the '\n', and returns the index after
// the '\n', or failed.
func (t *swfText) lastField(i int) int {
	if i < 0 {
		return failed
	}
	b := &t.buf
	i, w := t.fieldAt(i)
	x := w - 0x3030303030303030
	nd := (x | (x + 0x7676767676767676)) & 0x8080808080808080
	z := bits.TrailingZeros64(nd) & 56
	if c := byte(w >> 16); w<<48 == ('-'|'1'<<8)<<48 && (c == '\n' || c == ' ' || c == '\r' || c == '\t') {
		t.vals[17] = -1
		i += 2
	} else if c := byte(w >> z); z != 0 && (c == '\n' || c == ' ' || c == '\r' || c == '\t') {
		t.vals[17] = int64(swarDigits(x << ((64 - z) & 63)))
		i += z >> 3
	} else if i = t.other(17, i); i < 0 {
		return failed
	}
	// After the last field, only blanks, then the line's end.
	if b[i&(swfBufSize-1)] == '\n' {
		return i + 1
	}
	i = skipBlanks(b, i)
	for b[i&(swfBufSize-1)] == '\r' {
		i++
	}
	if b[i&(swfBufSize-1)] != '\n' {
		return failed // fewer than 18 fields, or more, or a control byte
	}
	return i + 1
}

// other is parseFast's way for a field it does not read inline, f at i:
// scanNumber reads it, up to the line's end, into t.fields and t.ints,
// and other returns the index after it, or -1 if it is no number
// parseFast may take, or no field at all (the line ended): parse then
// reads the line the general way, which reports it.
func (t *swfText) other(f, i int) int {
	n := t.lineEnd(i)
	if i >= n {
		return -1
	}
	v, isInt, end, ok := scanNumber(t.buf[:n], i)
	if !ok || !(math.Abs(v) <= maxSWFValue) || (t.strict && v < 0 && v != Unknown) {
		return -1
	}
	t.fields[f], t.ints[f] = v, isInt
	t.frac |= 1 << f
	return end
}

// lineEnd returns the end of the text of the line that i is in, from i
// on: the index of its '\n' less the '\r's before it, or -1 if the line
// is not whole in buf.
func (t *swfText) lineEnd(i int) int {
	e := bytes.IndexByte(t.buf[i:t.end], '\n')
	if e < 0 {
		return -1
	}
	return trimCR(&t.buf, i, i+e)
}

// skipBlanks returns the index of the first byte of b at or after i that is
// not a blank (space or tab): spaces eight at a time, tabs one by one. The
// NUL after the text in b stops it there at the latest.
func skipBlanks(b *[swfBufSize + 8]byte, i int) int {
	for {
		w := load64(b, i) ^ 0x2020202020202020
		if w == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(w) >> 3
		if b[i&(swfBufSize-1)] != '\t' {
			return i
		}
		i++
	}
}

// load64 returns the eight bytes of b from i on, little-endian. parseFast
// never loads from past the NUL after the text, which is at most at
// swfBufText+1, so i < swfBufSize: masking i with swfBufSize-1 changes
// nothing but shows the compiler that the load is in bounds, which saves a
// check per load. (After a field parseFast does not take, i is negative,
// and the mask keeps the loads of the fields after it in buf.)
func load64(b *[swfBufSize + 8]byte, i int) uint64 {
	return binary.LittleEndian.Uint64(b[i&(swfBufSize-1):])
}

// digitsEnd returns x, the bytes of w minus '0' (see swarDigits), z, 8 ×
// the number of digits w starts with, and c, the byte after them,
// byte(w>>z): all for fewer than seven digits; for seven or eight, z is
// 56, and c the eighth byte, which may be a digit. Without digits, c is
// the first byte or'ed with mark: with mark 0x80, c is then no blank or
// '\n', and a caller that finds one after the digits need not check that
// there are any (mark 0 for the second word of a number, which may have
// no more digits). (The bit set above the eighth byte spares the test for
// no non-digit: the compiler then counts the zeros with one instruction.)
func digitsEnd(w uint64, mark byte) (x uint64, z int, c byte) {
	x = w - 0x3030303030303030
	nd := (x | (x + 0x7676767676767676)) & 0x8080808080808080
	z = bits.TrailingZeros64(nd>>7 | 1<<56)
	return x, z, byte((w | uint64(mark)) >> z)
}

// pow10Int holds the powers of ten parseFast scales the first digits of a
// number by: the first eight of a longer integer, those before the point of
// a fraction.
var pow10Int = [8]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7}

// swarDigits converts eight digit values (0 to 9), one per byte with the
// most significant in the lowest byte (a little-endian load of the text,
// minus '0'), into their number.
//
// A byte of x below the first non-digit is its digit; subtracting '0'
// from the bytes at and after the first non-digit may borrow, but only
// into later bytes, which the caller shifts out (leading zero digits
// take their place). The first non-digit is the lowest byte of x that is
// above 9: adding 0x76 sets its high bit (x ≤ 9 stays below 0x80 and
// carries nothing), or it already had it (a byte below '0' wrapped).
//
// Each step multiplies by 1 + 10^k·2^s, s the width of a lane: a lane of
// the product holds itself plus 10^k times the lane below it, the more
// significant digits; shifted down and masked, every other lane holds a
// number of twice as many digits. No lane overflows (99, 9999 and
// 99999999 fit in 8, 16 and 32 bits), and what spills past bit 63 is
// dropped.
func swarDigits(x uint64) uint64 {
	x = (x * (10<<8 + 1)) >> 8 & 0x00FF00FF00FF00FF    // pairs: 10·d0 + d1, …
	x = (x * (100<<16 + 1)) >> 16 & 0x0000FFFF0000FFFF // quads
	return (x * (10000<<32 + 1)) >> 32                 // all eight
}
