package hpcpack

import (
	"strings"
	"testing"
)

// TestStderrBuf: the buffer keeps the first maxStderr bytes, counts the
// rest, and finds the last non-empty line wherever it lies.
func TestStderrBuf(t *testing.T) {
	full := strings.Repeat("x", maxStderr-5) + "\nabc\n" // exactly the cap
	tests := []struct {
		name    string
		writes  []string
		dropped int64
		last    string
	}{
		{"empty", nil, 0, ""},
		{"one line", []string{"hello\n"}, 0, "hello"},
		{"trailing blank lines", []string{"a\nb\n\n  \n"}, 0, "b"},
		{"exactly the cap", []string{full}, 0, "abc"},
		{"cap then blank", []string{full, "\n\n"}, 2, "abc"},
		{"cap then a line", []string{full, "last\n"}, 5, "last"},
		{"line across the cap", []string{full[:len(full)-2], "c\n", "more\n", "end"}, 8, "end"},
		{"line begun in the head", []string{strings.Repeat("y", maxStderr), "zz\n"}, 3, strings.Repeat("y", maxStderr) + "zz"},
		{"line longer than the tail", []string{full, strings.Repeat("q", stderrTail+10)}, stderrTail + 10, "…" + strings.Repeat("q", stderrTail)},
		{"small writes past the tail", append([]string{full}, strings.Split(strings.Repeat("w\n", stderrTail), "")...), 2 * stderrTail, "w"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e stderrBuf
			e.Write([]byte("left over from a previous call\n"))
			e.reset()
			for _, w := range tt.writes {
				if n, err := e.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if e.dropped != tt.dropped {
				t.Errorf("dropped %d, want %d", e.dropped, tt.dropped)
			}
			if len(e.head) > maxStderr || len(e.tail) > stderrTail {
				t.Errorf("kept %d + %d bytes", len(e.head), len(e.tail))
			}
			if got := e.lastLine(); got != tt.last {
				t.Errorf("last line %.40q… (%d bytes), want %.40q… (%d bytes)", got, len(got), tt.last, len(tt.last))
			}
		})
	}
}
