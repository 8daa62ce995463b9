package report

import "github.com/schedsim/schedsim/sim"

// Observers is a sim.Observer that hands each record to every observer in
// turn, in slice order.
type Observers []sim.Observer

var _ sim.Observer = Observers(nil)

// JobDone calls JobDone(r) on each observer in order.
func (o Observers) JobDone(r *sim.Record) {
	for _, x := range o {
		x.JobDone(r)
	}
}
