package sim

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// A bitPool gives the processors a cluster.Machine gives, as the same
// ranges, through random runs of starts and ends: pools of one processor
// to the largest, word boundaries crossed and runs of whole words, jobs
// of every size up to the free processors, the pool filled up and emptied.
func TestBitPoolAsMachine(t *testing.T) {
	sizes := []int{1, 2, 63, 64, 65, 100, 128, 1000, 1024, 4095, 4096}
	for _, size := range sizes {
		r := rand.New(rand.NewPCG(uint64(size), 7))
		m, p := cluster.NewMachine(size), newBitPool(size)
		var held [][]cluster.Range
		for step := range 20000 {
			if len(held) > 0 && (m.Free() == 0 || r.IntN(2) == 0) {
				k := r.IntN(len(held))
				m.Release(held[k])
				p.release(held[k])
				held = slices.Delete(held, k, k+1)
			} else {
				n := 1 + r.IntN(m.Free())
				if r.IntN(4) > 0 { // mostly small jobs, as in a trace
					n = 1 + r.IntN(min(m.Free(), 1+size/16))
				}
				// Both append to a range already there, which is never joined.
				pre := []cluster.Range{{Lo: -5, Hi: 0}}
				want := m.Alloc(n, slices.Clone(pre))
				got := p.alloc(n, slices.Clone(pre))
				if !slices.Equal(got, want) {
					t.Fatalf("size %d step %d: alloc %d gives %v, want %v", size, step, n, got, want)
				}
				held = append(held, want[1:])
			}
			if p.free != m.Free() {
				t.Fatalf("size %d step %d: %d free, want %d", size, step, p.free, m.Free())
			}
		}
	}
}

// A bitPool refuses what a Machine refuses: an allocation beyond the free
// processors, a range outside the pool, processors released twice.
func TestBitPoolPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(p *bitPool)
	}{
		{"too many", func(p *bitPool) { p.alloc(101, nil) }},
		{"none", func(p *bitPool) { p.alloc(0, nil) }},
		{"outside", func(p *bitPool) { p.alloc(10, nil); p.release([]cluster.Range{{Lo: 95, Hi: 101}}) }},
		{"empty range", func(p *bitPool) { p.alloc(10, nil); p.release([]cluster.Range{{Lo: 3, Hi: 3}}) }},
		{"twice", func(p *bitPool) {
			p.alloc(70, nil)
			p.release([]cluster.Range{{Lo: 60, Hi: 66}})
			p.release([]cluster.Range{{Lo: 65, Hi: 67}})
		}},
		{"free", func(p *bitPool) { p.alloc(10, nil); p.release([]cluster.Range{{Lo: 8, Hi: 12}}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.f(newBitPool(100))
		})
	}
}

// jobList is a Source of a slice of jobs.
type jobList []workload.Job

func (l *jobList) Next(j *workload.Job) error {
	if len(*l) == 0 {
		return io.EOF
	}
	*j = (*l)[0]
	*l = (*l)[1:]
	return nil
}

// allocLog keeps each record's job and processors.
type allocLog []string

func (l *allocLog) Wants() Wants { return Wants{Kinds: RecordKinds} }

func (l *allocLog) Observe(e *Event) {
	r := e.Record
	*l = append(*l, fmt.Sprint(r.Job.ID, r.State, r.Alloc))
}

// A Placer of a pool too large for a bitPool numbers the processors with
// a cluster.Machine, and a bitPool's (the test lowers bitPoolMax) gives the
// same records as the engine numbering them itself.
func TestPlacerMachine(t *testing.T) {
	const procs = 50
	r := rand.New(rand.NewPCG(3, 4))
	var jobs []workload.Job
	for i := range 2000 {
		run := workload.Time(1 + r.IntN(100))
		jobs = append(jobs, workload.Job{Seq: int64(i), ID: int64(i + 1), Submit: workload.Time(i * 3), Procs: 1 + r.IntN(procs), Run: run, Estimate: run + 5})
	}
	run := func(deferred bool) allocLog {
		var log allocLog
		var obs Observer = &log
		if deferred {
			obs = NewPlacer(procs, &log)
		}
		eng, err := New(Config{Procs: procs, Policy: &policy.EASY{Lookahead: 5}, DeferPlacement: deferred})
		if err != nil {
			t.Fatal(err)
		}
		src := jobList(slices.Clone(jobs))
		if _, err := eng.Run(&src, obs); err != nil {
			t.Fatal(err)
		}
		return log
	}
	want := run(false)
	for _, max := range []int{procs - 1, procs} {
		saved := bitPoolMax
		bitPoolMax = max
		got := run(true)
		bitPoolMax = saved
		if !slices.Equal(got, want) {
			t.Fatalf("bitPoolMax %d: the records differ from the engine's", max)
		}
	}
}
