package report

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"sync"
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

// TestGanttJSONRects decodes the page's Gantt data of jobs with one to
// three ranges each (rectangles in a number that fills no whole chunk):
// every rectangle, in order of start, with its job's index (negative when
// killed), and every job's ID.
func TestGanttJSONRects(t *testing.T) {
	const jobs = 1000
	g := NewGantt(jobs)
	type rect struct{ start, dur, lo, width, idx int32 }
	var want []rect
	starts := make([]int64, jobs)
	for i := range jobs {
		starts[i] = int64((i * 7919) % 5000)
	}
	order := make([]int, jobs)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(starts[a], starts[b]) })
	alloc := func(i int) []cluster.Range {
		var rs []cluster.Range
		for k := range 1 + i%3 {
			rs = append(rs, cluster.Range{Lo: 10*k + i%7, Hi: 10*k + i%7 + 1 + k})
		}
		return rs
	}
	for i := range jobs {
		g.add(int64(100+i), starts[i], starts[i]+int64(1+i%50), i%9 == 0, alloc(i))
	}
	for k, i := range order {
		idx := int32(k)
		if i%9 == 0 {
			idx = -1 - idx
		}
		for _, a := range alloc(i) {
			want = append(want, rect{int32(starts[i] - starts[order[0]]), int32(1 + i%50), int32(a.Lo), int32(a.Hi - a.Lo), idx})
		}
	}
	var d ganttPageData
	if err := json.Unmarshal(ganttJSON(&Run{Gantt: g}), &d); err != nil {
		t.Fatal(err)
	}
	data, err := base64.StdEncoding.DecodeString(d.Data)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rects != len(want) || len(data) != 20*len(want) || len(want)%48 == 0 {
		t.Fatalf("%d rectangles, %d bytes; want %d (not a whole number of chunks)", d.Rects, len(data), len(want))
	}
	for k, w := range want {
		v := func(f int) int32 { return int32(binary.LittleEndian.Uint32(data[20*k+4*f:])) }
		if got := (rect{v(0), v(1), v(2), v(3), v(4)}); got != w {
			t.Fatalf("rectangle %d: %+v, want %+v", k, got, w)
		}
	}
	ids, err := base64.StdEncoding.DecodeString(d.IDs)
	if err != nil || len(ids) != 4*jobs {
		t.Fatalf("%d bytes of IDs (%v), want %d", len(ids), err, 4*jobs)
	}
	for k, i := range order {
		if id := binary.LittleEndian.Uint32(ids[4*k:]); id != uint32(100+i) {
			t.Fatalf("job %d: ID %d, want %d", k, id, 100+i)
		}
	}
}

// TestGanttSettle checks that the page's Gantt data are the same whether
// the order of the jobs was settled ahead (from several goroutines at
// once, as a run may) or made as the page is written, and that a job
// recorded after Settle is in the next order.
func TestGanttSettle(t *testing.T) {
	build := func(jobs int) *Gantt {
		g := NewGantt(1 << 20)
		for i := range jobs {
			s := int64((i * 7919) % 3000)
			g.add(int64(i), s, s+int64(1+i%40), i%7 == 0, []cluster.Range{{Lo: i % 13, Hi: i%13 + 1 + i%3}})
		}
		return g
	}
	const jobs = 3*ganttBlock + 17
	want := ganttJSON(&Run{Gantt: build(jobs)})
	if len(want) == 0 {
		t.Fatal("no Gantt data")
	}
	g := build(jobs)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(g.Settle)
	}
	wg.Wait()
	if len(g.order) != jobs {
		t.Fatalf("Settle made an order of %d jobs, want %d", len(g.order), jobs)
	}
	if got := ganttJSON(&Run{Gantt: g}); !bytes.Equal(got, want) {
		t.Error("the Gantt data after Settle differ from those made as the page is written")
	}
	g.add(jobs, -5, 0, false, []cluster.Range{{Lo: 0, Hi: 1}})
	if o := g.pageOrder(); len(o) != jobs+1 || o[0] != jobs {
		t.Errorf("after a job more, the order has %d jobs starting with %v, want %d starting with %d", len(o), o[:1], jobs+1, jobs)
	}
	// Settle on an empty or incomplete Gantt makes nothing.
	empty := NewGantt(10)
	empty.Settle()
	if empty.order != nil {
		t.Error("Settle made an order for an empty Gantt")
	}
}
