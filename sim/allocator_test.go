package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/workload"
)

// starts is an observer of starts, as a Placer is.
var starts = newSink(RecordFunc(func(*Record) {}))

func init() { starts.kinds |= KindsOf(EventStarted) }

// allocEngine returns an engine of size processors on the allocator
// kind names: "pool", "count" (deferred numbering, observed by an
// observer of starts) or "nodes" (cluster.Linear on single-core nodes,
// which schedules as a pool does).
func allocEngine(t *testing.T, kind string, size int) *Engine {
	t.Helper()
	cfg := Config{Procs: size}
	switch kind {
	case "count":
		cfg.DeferPlacement = true
	case "nodes":
		cfg.Allocator = cluster.NewLinear(cluster.SinglePool(size))
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.pool.observe(starts); err != nil {
		t.Fatal(err)
	}
	return e
}

// The three allocators agree, through seeded random runs of starts and
// ends, on what the engine asks of them: the idle processors, whether a
// job fits now or ever, what a running job holds. The pool's numbers are
// the ones a Placer gives behind the counting allocator, told of each
// start as the engine tells it (EventStarted, deferred).
func TestAllocatorsAgree(t *testing.T) {
	for _, size := range []int{1, 7, 64, 300} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			kinds := []string{"pool", "count", "nodes"}
			var engs []*Engine
			for _, k := range kinds {
				engs = append(engs, allocEngine(t, k, size))
			}
			placer := NewPlacer(size)
			r := rand.New(rand.NewPCG(uint64(size), 20))
			type run struct {
				id    int32
				slots []slot // one per allocator
			}
			var running []run
			next := int32(0)
			for step := range 3000 {
				procs := 1 + r.IntN(size+size/4) // some too large to fit, some never
				j := workload.Job{ID: int64(step), Procs: procs}
				for k, e := range engs {
					if ok, _ := e.pool.testOnly(e, &j); ok != (procs <= size) {
						t.Fatalf("step %d: %s: testOnly(%d processors of %d) = %v", step, kinds[k], procs, size, ok)
					}
				}
				s := slot{job: j}
				want := engs[0].pool.fits(&s)
				for k, e := range engs[1:] {
					if got := e.pool.fits(&s); got != want {
						t.Fatalf("step %d: %s: fits(%d) = %v, the pool %v", step, kinds[k+1], procs, got, want)
					}
				}
				if len(running) > 0 && (!want || r.IntN(3) == 0) {
					x := running[r.IntN(len(running))]
					running = slices.DeleteFunc(running, func(y run) bool { return y.id == x.id })
					for k, e := range engs {
						if h := e.pool.held(&x.slots[k]); h != x.slots[k].job.Procs {
							t.Fatalf("step %d: %s: job of %d processors holds %d", step, kinds[k], x.slots[k].job.Procs, h)
						}
						e.pool.give(&x.slots[k])
					}
					rec := Record{Job: &x.slots[0].job, Deferred: true, Slot: x.id}
					placer.Place(&rec)
					if !slices.Equal(rec.Alloc, x.slots[0].alloc) {
						t.Fatalf("step %d: the Placer numbered the job %v, the pool %v", step, rec.Alloc, x.slots[0].alloc)
					}
					placer.Release(&rec)
				} else if want {
					x := run{id: next}
					next++
					for k, e := range engs {
						s := slot{job: j}
						if h := e.pool.take(e, &s, x.id); h != procs {
							t.Fatalf("step %d: %s: took %d processors for %d", step, kinds[k], h, procs)
						}
						x.slots = append(x.slots, s)
					}
					placer.Observe(&Event{Kind: EventStarted, Job: &x.slots[1].job, Procs: procs, Slot: x.id, Deferred: true})
					running = append(running, x)
				}
				for k, e := range engs[1:] {
					if got, want := e.pool.free(), engs[0].pool.free(); got != want {
						t.Fatalf("step %d: %s: %d free, the pool %d", step, kinds[k+1], got, want)
					}
				}
			}
		})
	}
}

// Every allocator refuses, with the engine's message, a start its
// processors do not allow: a policy that starts a job that does not fit
// is a bug.
func TestAllocatorOverAllocates(t *testing.T) {
	for _, kind := range []string{"pool", "count", "nodes"} {
		t.Run(kind, func(t *testing.T) {
			e := allocEngine(t, kind, 8)
			s := slot{job: workload.Job{ID: 1, Procs: 6}}
			e.pool.take(e, &s, 0)
			defer func() {
				r := recover()
				if msg := fmt.Sprint(r); r == nil || !strings.HasPrefix(msg, "sim: policy") || !strings.Contains(msg, "job 2") {
					t.Errorf("panic %v, want the engine's about job 2", r)
				}
			}()
			s2 := slot{job: workload.Job{ID: 2, Procs: 3}}
			e.pool.take(e, &s2, 1)
		})
	}
}

// Deferred numbering needs an observer of starts behind the engine; the
// other kinds take any observer.
func TestAllocatorObserve(t *testing.T) {
	for _, tc := range []struct {
		kind    string
		wantErr bool
	}{{"pool", false}, {"count", true}, {"nodes", false}} {
		cfg := Config{Procs: 4, DeferPlacement: tc.kind == "count"}
		if tc.kind == "nodes" {
			cfg.Allocator = cluster.NewLinear(cluster.SinglePool(4))
		}
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = e.pool.observe(newSink(RecordFunc(func(*Record) {})))
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: observe a plain observer: error %v, want one: %v", tc.kind, err, tc.wantErr)
		}
	}
}
