package workload

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestLimitsBoundary reads a trace at each limit, accepted, and one past
// it, refused with a *ParseError that wraps ErrLimit, through both SWF
// paths (the fast parser of integer lines and the general one).
func TestLimitsBoundary(t *testing.T) {
	max := strconv.FormatInt(int64(MaxTime), 10)
	over := strconv.FormatInt(int64(MaxTime)+1, 10)
	mem := strconv.FormatInt(MaxMemKB, 10)
	memOver := strconv.FormatInt(MaxMemKB+1, 10)
	tests := []struct {
		name  string
		set   map[int]string
		field int // 0: accepted
	}{
		{"submit at MaxTime", map[int]string{2: max}, 0},
		{"run at MaxTime", map[int]string{4: max, 9: max}, 0},
		{"memory at MaxMemKB", map[int]string{7: mem, 10: mem}, 0},
		{"submit past MaxTime", map[int]string{2: over}, 2},
		{"run past MaxTime", map[int]string{4: over}, 4},
		{"requested time past MaxTime", map[int]string{9: over}, 9},
		{"used memory past MaxMemKB", map[int]string{7: memOver}, 7},
		{"requested memory past MaxMemKB", map[int]string{10: memOver}, 10},
		{"the first field past wins", map[int]string{4: over, 9: over}, 4},
	}
	for _, tc := range tests {
		for _, general := range []bool{false, true} {
			t.Run(tc.name+map[bool]string{false: "", true: " general"}[general], func(t *testing.T) {
				r, err := NewSWFReader(strings.NewReader(rec(tc.set)+"\n"), "t.swf", Rules{})
				if err != nil {
					t.Fatal(err)
				}
				r.general = general
				var j Job
				err = r.Next(&j)
				if tc.field == 0 {
					if err != nil {
						t.Fatalf("refused: %v", err)
					}
					return
				}
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Field != tc.field || pe.Line != 1 || !errors.Is(err, ErrLimit) {
					t.Fatalf("error %v, want a *ParseError on line 1, field %d, wrapping ErrLimit", err, tc.field)
				}
			})
		}
	}
}
