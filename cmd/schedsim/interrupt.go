package main

import (
	"context"
	"strconv"
	"sync"

	"github.com/schedsim/schedsim/sim"
)

// readyObservers returns, in tests that wait at stage, an observer that
// marks it ready when the first job ends (ready); none otherwise.
func readyObservers(ctx context.Context, stage string) []sim.Observer {
	if testHook == nil {
		return nil
	}
	return []sim.Observer{&readyObserver{ctx: ctx, stage: stage}}
}

type readyObserver struct {
	ctx   context.Context
	stage string
	once  sync.Once
	n     int
}

// Wants implements sim.Observer: the records.
func (o *readyObserver) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds, JobHead: true} }

// Observe marks stage at the first record, and stage:N at the N-th.
func (o *readyObserver) Observe(*sim.Event) {
	o.once.Do(func() { ready(o.ctx, o.stage) })
	o.n++
	ready(o.ctx, o.stage+":"+strconv.Itoa(o.n))
}
