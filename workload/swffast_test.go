package workload

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// testTexts are the text buffers of the readers tests make by hand (see
// handReader), shared (the tests of this package run one at a time) since
// a buffer is large.
var testTexts [2]*swfText

// handReader returns a reader, as newSWFReader makes one, of no input,
// with testTexts[k] for its buffer.
func handReader(k int, strict, general bool) *SWFReader {
	if testTexts[k] == nil {
		testTexts[k] = new(swfText)
	}
	t := testTexts[k]
	t.strict = strict
	return &SWFReader{path: "t.swf", swfText: t, general: general}
}

// nextText is the text testLine puts after a line, as the next line of a
// trace: a parser that reads past the line's end finds numbers there.
const nextText = "2 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\n3 0 5 100 4"

// testLine puts line in r's buffer, as readLine would find it in a trace,
// followed by nextText, and returns the arguments of parseFast for it;
// n-s is less than len(line) if the line does not fit.
func testLine(r *SWFReader, line string) (s, n, e int) {
	s = len(nextText) % 7 // not at the buffer's start
	n = s + copy(r.buf[s:swfBufText-len(nextText)-1], line)
	r.buf[n] = '\n'
	end := n + 1 + copy(r.buf[n+1:], nextText)
	r.buf[end] = 0
	r.pos, r.end = s, end
	return s, n, n
}

// fastOK reports whether parseFast takes line, which testLine puts in
// r's buffer.
func fastOK(r *SWFReader, line string) bool {
	s, n, e := testLine(r, line)
	if n-s < len(line) {
		return false
	}
	next := r.parseFast(s)
	if next >= 0 && next != e+1 {
		panic(fmt.Sprintf("parseFast(%q) ends the line at %d, not at %d", line, next, e+1))
	}
	return next == e+1
}

// parseLine parses line, followed by a '\n', as Next does: with parseFast
// in place if it can, else the general way, without the '\r's at its end.
func parseLine(r *SWFReader, line string, j *Job) (bool, error) {
	if !r.general && fastOK(r, line) {
		return r.fill(j)
	}
	return r.parse([]byte(strings.TrimRight(line, "\r")), j)
}

// parseBoth parses line with and without the fast path and fails the test
// if the job (negative zeros included), the verdict, the error or the
// counts differ.
func parseBoth(t *testing.T, line string, strict bool) {
	t.Helper()
	var got, want Job
	fast, slow := handReader(0, strict, false), handReader(1, strict, true)
	fast.line, slow.line = 7, 7
	fast.cl.seq, slow.cl.seq = 3, 3
	keptF, errF := parseLine(fast, line, &got)
	keptS, errS := parseLine(slow, line, &want)
	if keptF != keptS || fmt.Sprint(errF) != fmt.Sprint(errS) || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) || fast.cl.stats != slow.cl.stats {
		t.Fatalf("line %q (strict %v): fast path gives kept=%v err=%v job=%+v stats=%+v, general loop kept=%v err=%v job=%+v stats=%+v",
			line, strict, keptF, errF, got, fast.cl.stats, keptS, errS, want, slow.cl.stats)
	}
}

// fields18 returns an SWF line of baseFields with field n (1-based) set to
// v, joined by sep.
func fields18(n int, v, sep string) string {
	f := baseFields
	if n > 0 {
		f[n-1] = v
	}
	return strings.Join(f[:], sep)
}

// The fast path reads every line exactly as the general loop does, or
// leaves it to the general loop.
func TestParseFastEqualsGeneral(t *testing.T) {
	lines := []string{
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",
		"  1\t0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1  ",
		"1\t0\t5\t100\t4\t-1\t-1\t4\t200\t-1\t1\t3\t2\t-1\t1\t-1\t-1\t-1",                             // tabs only
		"1 0 5 100 4 -1\t-1 4 200 -1 1 3 2 -1 1 -1 -1 -1\t",                                           // "-1" before a tab
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1",                                                 // 17 fields
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1 7",                                            // 19 fields
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1 -1",                                           // 19, the last "-1"
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1 ;",                                            // 19, the last no number
		"1 0 5 100.5 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                            // a fraction
		"1 0 5 100 4.0 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                            // 4.0 in an integer field
		"1 0 5 100 4.5 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                            // 4.5 in an integer field
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 489.00",                                          // a fraction at the end
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1.0",                                            // -1.0
		"1 0 5 +100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                             // a plus sign
		"1 0 5 1e3 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                              // an exponent
		"1 0 5 100 4 -7 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                              // negative, not -1
		"1 0 5 100 4 -12345678901 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                    // a long negative
		"1 0 5 100 4 -0 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                              // minus zero in a float field
		"1 -0 -0 -0 4 -1 -1 4 200 -1 -0 3 2 -1 1 -1 -0 -00",                                           // minus zero everywhere
		"-0 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                             // minus zero job number
		"1 0 5 100 4 -10 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                             // "-1" then a digit
		"1 0 5 100 4 -1x -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                             // "-1" then junk
		"1 0 5 100 4 -1-1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                            // "-1-1"
		"1 0 5 100 4 --1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                             // two signs
		"1 0 5 1234567890123456 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                 // 16 digits
		"1 0 5 1000000000000000 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                 // 10^15, the largest value
		"1 0 5 1000000000000001 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                 // just above
		"1 0 5 999999999999999 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                  // 15 digits
		"1 0 5 000000000000000000042 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                            // leading zeros
		"1 0 5 100 4 - -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                               // a lone minus
		"1 0 5 100 4 -1 -1 4 200x -1 1 3 2 -1 1 -1 -1 -1",                                             // trailing junk
		"1 0 5 100 4 -1 -1 4 12345678x -1 1 3 2 -1 1 -1 -1 -1",                                        // junk after 8 digits
		"1 0 5 100 4 -1 -1 4 123456789x -1 1 3 2 -1 1 -1 -1 -1",                                       // junk after 9 digits
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 12345678",                                        // 8 digits at the end
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 123456789012345",                                 // 15 digits at the end
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 1234567890123456",                                // 16 digits at the end
		"    1        0      0   3691  128   3436  6676   -1   3600  5904  1   2   2   2 -1 -1 -1 -1", // LANL's padding
		"    2      465      5   3362   32 489.00   988   32    900  1024  1   3   3   3  1 -1 -1 -1",
		"1         \t       0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                       // a tab inside a run of blanks
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1                         ",               // trailing blanks
		"1 0 5 1x0 4        -1    -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                              // aligned columns after a field parseFast leaves
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1 1x     7    8",                          // and after the last field
		"   12345678 123456789012345      123456789 1 1 -1 -1 1 12345678 -1 1 1 1 1 1 -1 -1 -1", // long integers in columns
		"1 0\t\t5  \t 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                 // blanks and tabs mixed
		"1 0 \xa05 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                                    // a high byte, a space once its high bit is set
		"\xa0\xa0\xa0\xa0\xa0\xa0\xa0\xa0\xa0\xa0\xa0\xa0\xa0\xa0\xa0\xa0",
		"                1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",    // leading blanks
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1        \x00       ", // a NUL after blanks
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\x00",                // a NUL right after
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\r",                  // a CR left over
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\r",                  // CRLF
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1 \r\r",               // blank, CRs
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\r ",                 // CR, blank
		"1 0 5 100\r 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                  // a CR inside
		"1 0 5 100\r4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",                   // a CR inside
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\v",                  // a vertical tab
		"1\x0b0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1 -1",              // a control byte as a separator
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 \x00",                  // a NUL as the last field
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 \xff",                  // a high byte as the last field
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\xff",
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -\x31",
		"; a comment 1 2 3",
		";1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",
		"",
		"   ",
		"\t",
		"-1 ",
		"1 -5 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",     // submit unset (strict: negative)
		"1 -1 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",     // submit unknown
		"1 0 5 0 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",        // zero run
		"1 0 5 100 0 -1 -1 0 200 -1 1 3 2 -1 1 -1 -1 -1",      // no processors
		"1 0 5 100 4 -1 -1 4 200 -1 3 3 2 -1 1 -1 -1 -1",      // partial status
		"1 0 5 300 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1",      // overrun
		"1 0.4 5 99.5 4 -1 -1 4 200.5 -1 1 3 2 -1 1 -1 -1 -1", // rounded times
	}
	// Lines of every length from 180 to 200 bytes, the last field at the
	// very end.
	for pad := 180; pad <= 200; pad++ {
		l := strings.Repeat(" ", pad) + fields18(0, "", " ")
		lines = append(lines, l, l+" ", fields18(18, "1"+strings.Repeat("0", 14), " ")+strings.Repeat(" ", pad))
		lines = append(lines, strings.Repeat(" ", pad)+fields18(18, "12345678901", " "))
	}
	for _, strict := range []bool{false, true} {
		for _, l := range lines {
			parseBoth(t, l, strict)
		}
	}
}

// The fast path takes what it is for: integer lines and lines with some
// other numbers, whatever their blanks; it leaves the rest.
func TestParseFastVerdicts(t *testing.T) {
	for _, c := range []struct {
		line string
		want string // "ints" (all in r.vals), "mixed" (some in r.fields) or "no"
	}{
		{"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", "ints"},
		{"  1\t0 5 100\t4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1 \t ", "ints"},
		{"1 0 5 100 4 -1\t-1 4 200 -1 1 3 2 -1 1 -1 -1 -1", "mixed"}, // "-1" and a tab: scanNumber
		{"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\t", "ints"}, // but not at the end
		{"    1        0      0   3691  128   3436  6676   -1   3600  5904  1   2   2   2 -1 -1 -1 -1", "ints"},
		{"1 123456789 5 123456789012345 4 -1 -1 4 12345678 -1 1 3 2 -1 1 -1 -1 -1", "ints"},
		{"   12345678 123456789012345      123456789 1 1 -1 -1 1 12345678 -1 1 1 1 1 1 -1 -1 -1", "ints"},
		{"1 0 5 1x0 4        -1    -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", "no"},
		{"    2      465      5   3362   32 489.00   988   32    900  1024  1   3   3   3  1 -1 -1 -1", "mixed"},
		{"1 0.5 5 1234567.1234567 4.0 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 9.5", "mixed"},
		{"1 0 5 100 4 -7 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", "mixed"},
		{"1 0 5 100 4 -0 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", "mixed"},
		{"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 1000000000000000", "mixed"},
		{"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1", "no"},
		{"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1 -1", "no"},
		{"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 x", "no"},
		{"; 1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", "no"},
		{"", "no"},
		{strings.Repeat(" ", 240) + "1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", "ints"},
		{"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\r", "ints"},
		{"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 7\r\r", "ints"},
		{"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\r ", "no"},
		{"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 12.5", "mixed"},
		{"1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1\r-1", "no"},
	} {
		r := handReader(0, false, false)
		got := "no"
		if fastOK(r, c.line) {
			got = "ints"
			if r.frac != 0 {
				got = "mixed"
			}
		}
		if got != c.want {
			t.Errorf("parseFast(%q): %s, want %s", c.line, got, c.want)
		}
	}
}

// FuzzParseFast checks the fast path against the general loop on any line.
func FuzzParseFast(f *testing.F) {
	f.Add("1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", false)
	f.Add("1 0 5 100 4 -0 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", true)
	f.Add("1 0 5 1.5 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", false)
	f.Add("1 0 5 100 4 -7 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", true)
	f.Add("    2      465      5   3362   32 489.00   988   32    900  1024  1   3   3   3  1 -1 -1 -1", false)
	f.Add("1 123456789 5 123456789012345 4 -1 -1 4 12345678 -1 1 3 2 -1 1 -1 -1 -1\t", true)
	f.Add("  12345678   2 -1  1234567890123456 4 -1 -1 4 12345678 -1 1 3 2 -1 1 -1 -1 -1", false)
	f.Add("1 0 5 1x0 4        -1    -1 4 200 -1 1 3 2 -1 1 -1 -1 -1", false)
	f.Fuzz(func(t *testing.T, line string, strict bool) {
		if strings.ContainsAny(line, "\n") {
			return // readLine splits lines there
		}
		parseBoth(t, line, strict)
	})
}

// TestParseFastEveryWidth drives the eight-bytes-at-once digit reader
// through every number width (1 to 17 digits), every kind of byte after a
// number (blank, tab, other punctuation below and above the digits, a
// letter, a high byte) and numbers near the line's end, against the
// general loop.
func TestParseFastEveryWidth(t *testing.T) {
	digits := "98765432109876543"
	after := []string{" ", "\t", "  ", ".5 ", "/", "!", ":", "a", "~", "\x80", "\xa0", "\xff", "-", "\x00", "\r"}
	for w := 1; w <= len(digits); w++ {
		for _, num := range []string{digits[:w], "-" + digits[:w], strings.Repeat("0", w-1) + "1"} {
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
					parseBoth(t, strings.ReplaceAll(line, " ", "\t"), false)
				}
			}
		}
	}
}

// TestParseFastFractions drives the inline fraction reader through every
// split of digits around the point (none to nine on either side), the
// bytes that may follow, in every field, against the general loop.
func TestParseFastFractions(t *testing.T) {
	digits := "987654321"
	for a := 0; a <= len(digits); a++ {
		for b := 0; b <= len(digits); b++ {
			for _, end := range []string{"", "\t", "x", ".5", "e1"} {
				num := digits[:a] + "." + digits[len(digits)-b:] + end
				for pos := range 18 {
					f := baseFields
					f[pos] = num
					line := strings.Join(f[:], " ")
					parseBoth(t, line, false)
					parseBoth(t, line, true)
					parseBoth(t, strings.ReplaceAll(line, " ", "\t")+" ", false)
				}
			}
		}
	}
}

// readBoth reads text through a reader with the fast path and one
// without, and fails the test if the jobs, the counts or the error differ.
func readBoth(t *testing.T, text string) {
	t.Helper()
	read := func(general bool) ([]Job, CleanStats, error) {
		r, err := NewSWFReader(strings.NewReader(text), "t.swf", Rules{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		r.general = general
		var jobs []Job
		for {
			var j Job
			err := r.Next(&j)
			if err == io.EOF {
				return jobs, r.Stats(), nil
			}
			if err != nil {
				return jobs, r.Stats(), err
			}
			jobs = append(jobs, j)
		}
	}
	jf, sf, ef := read(false)
	js, ss, es := read(true)
	if fmt.Sprint(ef) != fmt.Sprint(es) || sf != ss || fmt.Sprintf("%+v", jf) != fmt.Sprintf("%+v", js) {
		t.Fatalf("fast path: %d jobs, %+v, %v; general loop: %d jobs, %+v, %v", len(jf), sf, ef, len(js), ss, es)
	}
}

// Whole traces read the same with and without the fast path: lines of
// every length (up to 240 bytes and more), CRLF line ends, lines across the
// reader's buffer boundaries, a last line without its newline.
func TestSWFReaderFastEqualsGeneral(t *testing.T) {
	var b strings.Builder
	b.WriteString("; MaxProcs: 64\n")
	for i := 0; b.Len() < 3<<19; i++ {
		pad := strings.Repeat(" ", i%243)
		end := "\n"
		if i%7 == 3 {
			end = "\r\n"
		}
		frac := ""
		if i%5 == 0 {
			frac = ".25"
		}
		fmt.Fprintf(&b, "%s%d %d -1 %d%s %d -1 -1 %d %d -1 1 -1 -1 -1 -1 -1 -1 -1%s", pad, i+1, i*3, 1+i%977, frac, 1+i%64, 1+i%64, 1000+i, end)
	}
	text := b.String()
	readBoth(t, text)
	readBoth(t, strings.TrimSuffix(text, "\n"))
	readBoth(t, text+"1 2 3\n")
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

// TestFillEveryField checks that parsing a line into a job sets every
// field of the job, whatever it held: the job is the one parsed into a
// zeroed Job, for kept and dropped lines, by either path.
func TestFillEveryField(t *testing.T) {
	for _, line := range []string{
		rec(nil),                                  // kept, the fast path
		rec(map[int]string{4: "0"}),               // dropped: no run time
		rec(map[int]string{2: "-1"}),              // dropped: no submit time
		rec(map[int]string{4: "12.5", 6: "3.25"}), // fractions
		rec(map[int]string{5: "4.0"}),             // the general path
	} {
		for _, general := range []bool{false, true} {
			var want, got Job
			keptW, errW := parseLine(handReader(0, false, general), line, &want)
			scribble(&got)
			keptG, errG := parseLine(handReader(0, false, general), line, &got)
			if keptG != keptW || errG != errW || !reflect.DeepEqual(got, want) {
				t.Errorf("%q (general %v): parsed over another job: %v %v %+v; into a zero job: %v %v %+v", line, general, keptG, errG, got, keptW, errW, want)
			}
		}
	}
}
