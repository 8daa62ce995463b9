package workload

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// parseInts is the fast path of parse, for the common line: exactly 18
// fields, most of them plain integers (an optional '-' and 1 to 15
// digits), separated by blanks. It reads plain integers inline and any
// other number (a fraction such as LANL's "489.00") with scanNumber, fills
// r.fields and r.ints as the general loop would and reports true; on
// anything else (a comment, a field that is no number, a wrong field
// count, a value out of range or one strict mode rejects) it reports false
// without a word, and parse reads the line again the general way, which
// gives the error.
//
// It runs once per job and has no function call inside: the general loop
// spent most of a million-job read calling scanNumber and checking each
// value's range and sign, which plain integers of at most 15 digits cannot
// fail (they are below maxSWFValue = 1e15).
func (r *SWFReader) parseInts(line []byte) bool {
	n, i, end := 0, 0, len(line)
	for {
		// Blanks eight at a time (aligned SWF columns are padded with
		// runs of them), then one by one (a tab, the line's last bytes).
		for i+8 <= end {
			w := binary.LittleEndian.Uint64(line[i:]) ^ 0x2020202020202020
			nz := ((w & 0x7F7F7F7F7F7F7F7F) + 0x7F7F7F7F7F7F7F7F | w) & 0x8080808080808080
			if nz != 0 {
				i += bits.TrailingZeros64(nz) >> 3
				break
			}
			i += 8
		}
		for i < end && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= end {
			break
		}
		if n == 18 {
			return false
		}
		field := i
		neg := line[i] == '-'
		if neg {
			i++
		}
		start := i
		var m uint64
		if i+8 <= end {
			// Eight bytes at once: find the first non-digit and convert
			// the digits before it without a branch per digit.
			x := binary.LittleEndian.Uint64(line[i:]) - 0x3030303030303030
			if nd := (x | (x + 0x7676767676767676)) & 0x8080808080808080; nd != 0 {
				if d := bits.TrailingZeros64(nd) >> 3; d > 0 {
					m = swarDigits(x << (64 - 8*d))
					i += d
				}
				goto digitsRead
			}
		}
		for i < end {
			c := line[i] - '0'
			if c > 9 {
				break
			}
			m = m*10 + uint64(c)
			i++
		}
	digitsRead:
		if d := i - start; d == 0 || d > 15 || (i < end && line[i] != ' ' && line[i] != '\t') {
			// Not a plain integer ("489.00"): this field the general
			// way; a field that is no number at all leaves the whole line
			// to the general loop, which reports it.
			v, isInt, e, ok := scanNumber(line, field)
			if !ok || !(math.Abs(v) <= maxSWFValue) || (r.strict && v < 0 && v != Unknown) {
				return false
			}
			r.fields[n], r.ints[n] = v, isInt
			i = e
			n++
			continue
		}
		v := float64(m)
		if neg {
			if r.strict && m != 1 && m != 0 {
				return false // the general loop reports the negative value
			}
			v = -v
		}
		r.fields[n], r.ints[n] = v, true
		n++
	}
	return n == 18
}

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
	return (x*10000 + x>>32) & 0xFFFFFFFF
}
