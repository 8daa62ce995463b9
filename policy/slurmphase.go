package policy

import "github.com/schedsim/schedsim/workload"

// phaseClock is --bf-ended phase's model of where in the second
// slurmctld's backfill cycles and job ends fall. Its frame is the cycles'
// drift: d microseconds is how much later in its second the current cycle
// runs than the first one did, and each running job it knows has the
// offset in that frame at which it completes. The cycle of a second sees a
// job that ended in it as ended when that offset is below d. (A drift of
// more than a second would move the cycles to the next second; it is not
// modelled: the runs of the check drift by 0.2 to 0.8 s in 7 minutes.)
type phaseClock struct {
	d    int64                  // the drift of the current cycle, µs
	next workload.Time          // the next cycle instant not yet counted (−1: none yet)
	end  map[int64]int64        // job Seq → its completion's offset, µs
	init bool                   // next is set
	cost func(queued int) int64 // a cycle's duration with that many jobs waiting
}

// advance counts the cycles of the instants before now (cycles at t with
// t − phase a multiple of interval) during which queued jobs waited: each
// moved the next one later by its duration.
func (c *phaseClock) advance(now, phase, interval workload.Time, queued int) {
	if !c.init {
		c.init = true
		c.next = now + mod(phase-now, interval) // the first cycle instant ≥ now
		return
	}
	if c.next >= now {
		return
	}
	k := int64((now - c.next + interval - 1) / interval) // instants in [next, now)
	c.d += k * c.cost(queued)
	c.next += workload.Time(k) * interval
}

// ran counts the cycle of instant now, which tested queued jobs.
func (c *phaseClock) ran(now, interval workload.Time, queued int) {
	if c.next != now {
		return
	}
	c.d += c.cost(queued)
	c.next = now + interval
}

// started records that job seq completes at offset at of the frame.
func (c *phaseClock) started(seq, at int64) {
	if c.end == nil {
		c.end = map[int64]int64{}
	}
	c.end[seq] = at
}

// seen reports whether the current cycle runs after job seq completed (a
// job the clock does not know is seen running, as by --bf-ended running).
func (c *phaseClock) seen(seq int64) bool {
	at, ok := c.end[seq]
	return ok && at < c.d
}

// ended returns when job seq completed in the frame (ok false: unknown)
// and forgets it.
func (c *phaseClock) ended(seq int64) (int64, bool) {
	at, ok := c.end[seq]
	delete(c.end, seq)
	return at, ok
}
