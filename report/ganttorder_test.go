package report

import (
	"cmp"
	"math"
	"slices"
	"testing"

	"github.com/schedsim/schedsim/cluster"
)

// TestGanttOrder checks both ways ganttOrder sorts: by start, then in the
// order the jobs ended, whether starts and indices pack into one integer or
// not, across block boundaries.
func TestGanttOrder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		starts []int64
	}{
		{"ties keep end order", []int64{5, 3, 5, 3, 0, 5}},
		{"starts too far apart to pack", []int64{math.MaxInt64 / 2, -math.MaxInt64 / 2, 0, 0, 7}},
		{"more than a block", func() []int64 {
			s := make([]int64, 3*ganttBlock+5)
			for i := range s {
				s[i] = int64((i * 7919) % 1000)
			}
			return s
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGantt(1 << 20)
			for i, s := range tc.starts {
				g.add(int64(i), s, s+1, false, []cluster.Range{{Lo: i, Hi: i + 1}})
			}
			want := make([]int32, len(tc.starts))
			for i := range want {
				want[i] = int32(i)
			}
			slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(tc.starts[a], tc.starts[b]) })
			if got := ganttOrder(g); !slices.Equal(got, want) {
				t.Errorf("order %v, want %v", got[:min(len(got), 20)], want[:min(len(want), 20)])
			}
			for i, j := range g.Jobs() {
				if j.ID != int64(i) || len(j.Alloc) != 1 || j.Alloc[0].Lo != i {
					t.Fatalf("job %d: %+v", i, j)
				}
			}
		})
	}
}
