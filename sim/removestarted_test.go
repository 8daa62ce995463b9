package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedsim/schedsim/internal/fastpath"
)

// TestRemoveStarted checks that removeStarted leaves the queue and its
// dense copy in order without the started jobs, whichever end it compacts
// towards: random
// subsets of queues short and long, started prefixes, jobs near the head,
// near the tail and spread out.
func TestRemoveStarted(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 3000 {
		n := 1 + rng.IntN([]int{5, 40, 3000}[trial%3])
		queue := make([]int32, n)
		for i := range queue {
			queue[i] = int32(i * 3)
		}
		var idx []int
		switch trial % 4 {
		case 0: // a prefix
			for i := range 1 + rng.IntN(n) {
				idx = append(idx, i)
			}
		case 1: // near the head
			for i := range min(n, 8) {
				if rng.IntN(2) == 0 {
					idx = append(idx, i)
				}
			}
		case 2: // near the tail
			for i := max(0, n-8); i < n; i++ {
				if rng.IntN(2) == 0 {
					idx = append(idx, i)
				}
			}
		default:
			for i := range n {
				if rng.IntN(4) == 0 {
					idx = append(idx, i)
				}
			}
		}
		if len(idx) == 0 {
			idx = []int{rng.IntN(n)}
		}
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		var want []int32
		for i, id := range queue {
			if !slices.Contains(idx, i) {
				want = append(want, id)
			}
		}
		// The dense copy covers a prefix of the queue: all of it, or
		// fewer jobs than some of the started ones.
		dn := n
		if trial%5 == 0 {
			dn = rng.IntN(n + 1)
		}
		dense := make([]fastpath.Queued, dn)
		for i, id := range queue[:dn] {
			dense[i] = fastpath.Queued{Est: id, Procs: id + 1}
		}
		dwant := 0
		for i := range dn {
			if !slices.Contains(idx, i) {
				dwant++
			}
		}
		e := &Engine{queue: slices.Clone(queue), dense: dense, startedAt: slices.Clone(idx)}
		e.removeStarted()
		if !slices.Equal(e.queue, want) {
			t.Fatalf("trial %d: queue of %d without %v: got %v, want %v", trial, n, idx, e.queue, want)
		}
		if len(e.dense) != dwant {
			t.Fatalf("trial %d: dense prefix of %d of a queue of %d without %v: %d left, want %d", trial, dn, n, idx, len(e.dense), dwant)
		}
		for i, id := range want[:dwant] {
			if d := e.dense[i]; d.Est != id || d.Procs != id+1 {
				t.Fatalf("trial %d: dense queue of %d without %v: entry %d is %+v, want job %d", trial, n, idx, i, d, id)
			}
		}
		// The queue still takes new jobs at its tail.
		e.queue = append(e.queue, -1)
		if e.queue[len(e.queue)-1] != -1 || !slices.Equal(e.queue[:len(want)], want) {
			t.Fatalf("trial %d: append after removal broke the queue", trial)
		}
	}
}

// TestSearchSeq checks Engine.SearchSeq against a scan on queues whose Seqs
// increase with random gaps, for Seqs before, between, on and after the
// queued ones and for every window.
func TestSearchSeq(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for trial := range 300 {
		n := rng.IntN(60)
		e := &Engine{}
		seqs := make([]int64, n)
		var s int64 = int64(rng.IntN(5))
		for i := range seqs {
			s += 1 + int64(rng.IntN([]int{1, 3, 40}[trial%3]))
			seqs[i] = s
		}
		for i, q := range seqs {
			e.slots = append(e.slots, slot{})
			e.slots[i].job.Seq = q
			e.queue = append(e.queue, int32(i))
		}
		for range 50 {
			lo := rng.IntN(n + 1)
			hi := lo + rng.IntN(n-lo+1)
			seq := int64(rng.IntN(int(s) + 10))
			want := lo
			for want < hi && seqs[want] < seq {
				want++
			}
			if got := e.SearchSeq(lo, hi, seq); got != want {
				t.Fatalf("trial %d: SearchSeq(%d, %d, %d) over %v = %d, want %d", trial, lo, hi, seq, seqs, got, want)
			}
		}
	}
}
