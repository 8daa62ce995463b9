package report

import "github.com/schedsim/schedsim/sim"

// Observers is a sim.Observer that hands each event to every observer that
// wants its kind, in slice order. It wants what any of them wants; it reads
// only job heads, and takes samples in batches, only when all of them do.
// (Behind an Async, which calls its members one by one, it costs nothing;
// called directly, it asks each member what it wants at each event.)
type Observers []sim.Observer

var _ sim.Observer = Observers(nil)

// Wants implements sim.Observer.
func (o Observers) Wants() sim.Wants {
	w := sim.Wants{JobHead: true, SampleBatches: true}
	for _, x := range o {
		xw := x.Wants()
		w.Kinds |= xw.Kinds
		w.JobHead = w.JobHead && xw.JobHead
		if xw.Kinds.Has(sim.EventSampled) {
			w.SampleBatches = w.SampleBatches && xw.SampleBatches
		}
	}
	return w
}

// Observe implements sim.Observer: it gives e to each observer that wants
// its kind, in order.
func (o Observers) Observe(e *sim.Event) {
	for _, x := range o {
		if x.Wants().Kinds.Has(e.Kind) {
			x.Observe(e)
		}
	}
}
