package workload

import (
	"fmt"
	"strings"
	"testing"
)

// parseBoth parses line with and without the integer fast path and fails
// the test if the job, the verdict or the error differ.
func parseBoth(t *testing.T, line string, strict bool) {
	t.Helper()
	var got, want Job
	fast := &SWFReader{path: "t.swf", strict: strict, line: 7}
	slow := &SWFReader{path: "t.swf", strict: strict, line: 7, general: true}
	fast.cl.seq, slow.cl.seq = 3, 3
	keptF, errF := fast.parse([]byte(line), &got)
	keptS, errS := slow.parse([]byte(line), &want)
	if keptF != keptS || fmt.Sprint(errF) != fmt.Sprint(errS) || got != want {
		t.Fatalf("line %q (strict %v): fast path gives kept=%v err=%v job=%+v, general loop kept=%v err=%v job=%+v",
			line, strict, keptF, errF, got, keptS, errS, want)
	}
}

// The integer fast path reads every line exactly as the general loop does,
// or leaves it to the general loop.
func TestParseIntsEqualsGeneral(t *testing.T) {
	lines := []string{
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",
		"  1\t0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1  ",
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1",                                                 // 17 fields
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1 7",                                            // 19 fields
		"1 0 5 100.5 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                            // a fraction
		"1 0 5 100 4.0 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                            // 4.0 in an integer field
		"1 0 5 +100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                             // a plus sign
		"1 0 5 1e3 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                              // an exponent
		"1 0 5 100 4 -7 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                              // negative, not -1
		"1 0 5 100 4 -0 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                              // minus zero
		"1 0 5 1234567890123456 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                 // 16 digits
		"1 0 5 999999999999999 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                  // 15 digits
		"1 0 5 100 4 - -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                               // a lone minus
		"1 0 5 100 4 -1 -1 4 200x -1 1 3 2 -1 1 -1 -1 -1",                                             // trailing junk
		"    1        0      0   3691  128   3436  6676   -1   3600  5904  1   2   2   2 -1 -1 -1 -1", // LANL's padding
		"    2      465      5   3362   32 489.00   988   32    900  1024  1   3   3   3  1 -1 -1 -1",
		"1         \t       0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",         // a tab inside a run of blanks
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1                         ", // trailing blanks
		"                1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",          // leading blanks
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1        \x00       ",       // a NUL after blanks
		"; a comment 1 2 3",
		"",
		"   ",
		"1 -5 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", // submit unset
		"1 0 5 0 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",    // zero run
		"1 0 5 100 0 -1 -1 0 200 -1 1 3 2 -1 1 -1 -1 -1",  // no processors
	}
	for _, strict := range []bool{false, true} {
		for _, l := range lines {
			parseBoth(t, l, strict)
		}
	}
}

// FuzzParseInts checks the fast path against the general loop on any line.
func FuzzParseInts(f *testing.F) {
	f.Add("1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", false)
	f.Add("1 0 5 100 4 -0 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", true)
	f.Add("1 0 5 1.5 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", false)
	f.Add("1 0 5 100 4 -7 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", true)
	f.Fuzz(func(t *testing.T, line string, strict bool) {
		if strings.ContainsAny(line, "\n\r") {
			return // readLine splits lines there
		}
		parseBoth(t, line, strict)
	})
}

// TestParseIntsEveryWidth drives the eight-bytes-at-once digit reader
// through every number width (1 to 17 digits), every kind of byte after a
// number (blank, tab, other punctuation below and above the digits, a
// letter, a high byte) and numbers near the line's end, against the
// general loop.
func TestParseIntsEveryWidth(t *testing.T) {
	digits := "98765432109876543"
	after := []string{" ", "\t", "  ", ".5 ", "/", "!", ":", "a", "~", "\x80", "\xff", "-"}
	for w := 1; w <= len(digits); w++ {
		num := digits[:w]
		for _, a := range after {
			for pos := range 18 {
				f := make([]string, 18)
				for k := range f {
					f[k] = "-1"
				}
				f[0], f[1], f[4], f[7] = "1", "0", "4", "4"
				f[pos] = num + strings.TrimRight(a, " \t")
				line := strings.Join(f, strings.Repeat(" ", 1+len(a)-len(strings.TrimRight(a, " \t"))))
				parseBoth(t, line, false)
				parseBoth(t, line, true)
				parseBoth(t, line+" ", false)
			}
		}
	}
}

// TestSwarDigits checks the eight-digit conversion for every width.
func TestSwarDigits(t *testing.T) {
	for _, s := range []string{"0", "7", "10", "99", "123", "4096", "10000", "654321", "1000001", "99999999", "00000001", "12345678"} {
		var b [8]byte
		copy(b[:], s)
		for i := len(s); i < 8; i++ {
			b[i] = ' '
		}
		x := uint64(0)
		for i := 7; i >= 0; i-- {
			x = x<<8 | uint64(b[i])
		}
		x -= 0x3030303030303030
		d := len(s)
		got := swarDigits(x << (64 - 8*d))
		var want uint64
		fmt.Sscan(s, &want)
		if got != want {
			t.Errorf("swarDigits(%q) = %d, want %d", s, got, want)
		}
	}
}
