package report

import (
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
// jobs.csv row holds ten integers; writing the digits straight into b's
// spare room, two at a time and without a scratch copy, costs about half
// of strconv's general path.
func appendInt(b []byte, v int64) []byte {
	if v < 0 {
		return strconv.AppendInt(b, v, 10)
	}
	if v < 10 {
		return append(b, byte('0'+v))
	}
	u := uint64(v)
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
// wait has stretch 1) that is its decimal digits: both operands are exact
// in a float64, so is their quotient, and 'g' writes whole numbers below
// 10^6 without an exponent. Everything else goes through strconv.
func appendStretch(b []byte, turnaround, exec int64) []byte {
	if turnaround >= 0 && turnaround < 1<<53 && exec < 1<<53 && turnaround%exec == 0 {
		if q := turnaround / exec; q < 1e6 {
			return appendInt(b, q)
		}
	}
	return strconv.AppendFloat(b, float64(turnaround)/float64(exec), 'g', -1, 64)
}
