package infer

import (
	"fmt"
	"reflect"
	"testing"
)

// TestHourRuns checks the runs of equal bounds that start windows are
// made of: one that wraps midnight comes whole, after the others; a bound
// held all day is one run from 0; hours without a bound (-1) are no run.
func TestHourRuns(t *testing.T) {
	day := func(set map[[2]int]int) *[24]int {
		var b [24]int
		for h := range b {
			b[h] = -1
		}
		for r, k := range set {
			for h := r[0]; h != r[1]; h = (h + 1) % 24 {
				b[h] = k
			}
		}
		return &b
	}
	for _, tc := range []struct {
		name   string
		bounds *[24]int
		want   []string
	}{
		{"none", day(nil), nil},
		{"all day", day(map[[2]int]int{{0, 12}: 2, {12, 0}: 2}), []string{"0+24:2"}},
		{"one run", day(map[[2]int]int{{7, 16}: 1}), []string{"7+9:1"}},
		{"wraps midnight", day(map[[2]int]int{{19, 7}: 0}), []string{"19+12:0"}},
		{"wrap and others", day(map[[2]int]int{{22, 3}: 1, {3, 5}: 2, {9, 10}: 1}), []string{"3+2:2", "9+1:1", "22+5:1"}},
		{"neighbours differ", day(map[[2]int]int{{0, 12}: 0, {12, 0}: 1}), []string{"0+12:0", "12+12:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			hourRuns(tc.bounds, func(h, n, k int) { got = append(got, fmt.Sprintf("%d+%d:%d", h, n, k)) })
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("runs %v, want %v", got, tc.want)
			}
		})
	}
}
