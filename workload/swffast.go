package workload

// parseInts is the fast path of parse, for the common line: exactly 18
// fields, each a plain integer (an optional '-' and 1 to 15 digits),
// separated by blanks. It fills r.fields and r.ints as the general loop
// would and reports true; on anything else (a comment, a fraction, a
// '+', an exponent, a long number, a wrong field count, a value strict
// mode rejects) it reports false without a word, and parse reads the line
// again the general way, which gives the same values or the error.
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
			return false
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
