package workload

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
)

// parseFast is the fast path of parse, for the common line: 18 numbers
// separated by blanks, most of them plain integers (digits only, or "-1").
// It reads plain integers of up to 15 digits inline, as int64 into t.vals,
// short fractions (LANL's "489.00") inline too, as float64 into t.fields,
// and any other number (a negative number other than -1, a long fraction)
// with scanNumber into t.fields and t.ints; it marks the fields it put in
// t.fields in t.frac. On anything else (a comment, a blank line, a field
// that is no number, a wrong field count, a value out of range or one
// strict mode rejects, a line not whole in buf) it returns -1 without a
// word, and parse reads the line again the general way, which gives the
// error.
//
// It reads the line that starts at s in t.buf where it is, and finds its
// end itself: the field after which, past blanks and '\r's, comes a '\n';
// it returns the index after that '\n'. Finding the end first would cost
// a search per line. Per field it costs a few instructions, and the loop
// has no bounds checks to speak of: every field is read with one or two
// 8-byte loads whatever its position, which may reach past the line into
// the text after it, or past the text (the NUL after it stops every run
// of digits and of blanks at the latest). The values of plain integers are
// exact (below 10^15 < 2^53), so an int64 is what the general loop's
// float64 converts back to.
func (t *swfText) parseFast(s int) int {
	b := &t.buf
	t.frac = 0
	i := s
	// Each way through the loop counts its field itself (f++ before each
	// continue) rather than in a post statement: with one increment that
	// all the ways share, the compiler loads the SWAR constants again on
	// the way of "-1", which costs about 5% of the loop.
	for f := 0; f < 17; {
		w := load64(b, i)
		if byte(w) <= ' ' {
			// Blanks before the field (the line's indent, aligned
			// columns, a tab), or the end of the line, or a control byte.
			i = skipBlanks(b, i)
			w = load64(b, i)
		}
		if w<<40 == ('-'|'1'<<8|' '<<16)<<40 {
			// "-1 ", SWF's unknown: most fields of most traces. (The
			// first three bytes compared in place, not masked: with a
			// mask the compiler reloaded six constants after this branch.)
			t.vals[f] = -1
			i += 3
			f++
			continue
		}
		// Digits eight at a time: x holds the byte values minus '0'; the
		// first non-digit is the lowest byte of x above 9 (see swarDigits).
		x := w - 0x3030303030303030
		if nd := (x | (x + 0x7676767676767676)) & 0x8080808080808080; nd != 0 {
			// It ends the field if it is a blank, and then there is
			// at least one digit: w's first byte is not a blank.
			z := bits.TrailingZeros64(nd) & 56 // 8 × the number of digits
			c := byte(w >> z)
			if c == ' ' || c == '\t' {
				// z is 8 to 56: "& 63" only spares the code for shifts
				// of 64 and more.
				t.vals[f] = int64(swarDigits(x << ((64 - z) & 63)))
				i += z>>3 + 1
				f++
				continue
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
						i = p + fd + 1
						f++
						continue
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
					i += 8 + d + 1
					f++
					continue
				}
			}
		}
		// Any other field the general way.
		if i = t.other(f, i); i < 0 {
			return -1
		}
		f++
	}
	// The last field, which the line's end may end: "-1" and short
	// integers inline, anything else the general way. (Apart from the
	// loop, so that the loop's fields need not look for the end.)
	w := load64(b, i)
	if byte(w) <= ' ' {
		i = skipBlanks(b, i)
		w = load64(b, i)
	}
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
		return -1
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
		return -1 // fewer than 18 fields, or more, or a control byte
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
// check per load.
func load64(b *[swfBufSize + 8]byte, i int) uint64 {
	return binary.LittleEndian.Uint64(b[i&(swfBufSize-1):])
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
func swarDigits(x uint64) uint64 {
	x = (x*10 + x>>8) & 0x00FF00FF00FF00FF   // pairs: 10·d0 + d1, …
	x = (x*100 + x>>16) & 0x0000FFFF0000FFFF // quads
	return uint64(uint32(x*10000 + x>>32))
}
