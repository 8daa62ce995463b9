package report

import "github.com/schedsim/schedsim/sim"

// Observers is a sim.Observer that hands each record to every observer in
// turn, in slice order. It is also a sim.Sampler: it hands each sample to
// the observers that are sim.Samplers, in slice order.
type Observers []sim.Observer

var (
	_ sim.Observer = Observers(nil)
	_ sim.Sampler  = Observers(nil)
)

// JobDone calls JobDone(r) on each observer in order.
func (o Observers) JobDone(r *sim.Record) {
	for _, x := range o {
		x.JobDone(r)
	}
}

// Sample calls Sample(s) on each observer that is a sim.Sampler, in order.
func (o Observers) Sample(s *sim.Sample) {
	for _, x := range o {
		if sp, ok := x.(sim.Sampler); ok {
			sp.Sample(s)
		}
	}
}
