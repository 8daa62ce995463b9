package workload

import "math"

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
		for i < end {
			c := line[i] - '0'
			if c > 9 {
				break
			}
			m = m*10 + uint64(c)
			i++
		}
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
