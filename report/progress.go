package report

import (
	"fmt"
	"io"
	"time"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// Progress is a sim.Observer of records and samples that shows a long run's
// progress on a terminal: the jobs done, the simulated time reached and the
// rate in jobs per second of wall-clock time, on one line rewritten in place
// at most once per interval. It reads the wall clock once every 1024 calls,
// so it costs next to nothing per job. What it writes depends on the wall
// clock: give it a terminal, never a file that must be reproducible.
type Progress struct {
	w        io.Writer
	every    time.Duration
	now      func() time.Time
	start    time.Time
	last     time.Time
	jobs     int64
	calls    uint32
	simStart workload.Time
	simNow   workload.Time
	sampled  bool
	printed  bool
	perSec   int64 // the run's ticks a second (SetTick; 0 or 1: seconds)
}

// SetTick tells p the run's times are ticks of 1/tick second.
func (p *Progress) SetTick(tick int64) { p.perSec = tick }

var _ sim.Observer = (*Progress)(nil)

// NewProgress returns a Progress writing to w at most once per every.
func NewProgress(w io.Writer, every time.Duration) *Progress {
	p := &Progress{w: w, every: every, now: time.Now}
	p.start = p.now()
	p.last = p.start
	return p
}

// JobDone counts a finished or rejected job.
func (p *Progress) JobDone(*sim.Record) {
	p.jobs++
	p.tick()
}

// Sample notes the simulated time.
func (p *Progress) Sample(s *sim.Sample) {
	if !p.sampled {
		p.sampled = true
		p.simStart = s.Time
	}
	p.simNow = s.Time
	p.tick()
}

func (p *Progress) tick() {
	if p.calls++; p.calls&1023 != 0 {
		return
	}
	p.check()
}

// check reads the clock and prints, if the interval has passed.
func (p *Progress) check() {
	if t := p.now(); t.Sub(p.last) >= p.every {
		p.last = t
		p.print(t)
	}
}

// Wants implements sim.Observer: the records, which it only counts, and
// the samples, in batches.
func (p *Progress) Wants() sim.Wants {
	return sim.Wants{Kinds: sim.RecordKinds | sim.KindsOf(sim.EventSampled), JobHead: true, SampleBatches: true}
}

// Observe implements sim.Observer.
func (p *Progress) Observe(e *sim.Event) {
	if e.Kind == sim.EventSampled {
		p.SampleBatch(e.Samples)
		return
	}
	p.JobDone(e.Record)
}

// SampleBatch notes the samples ss, as that many calls of Sample would,
// but reads the clock at most once (Wants.SampleBatches): Async hands a
// Progress each batch's samples at once. (What a Progress shows depends
// on the wall clock, not on the order of its calls within a batch.)
func (p *Progress) SampleBatch(ss []sim.Sample) {
	if len(ss) == 0 {
		return
	}
	if !p.sampled {
		p.sampled = true
		p.simStart = ss[0].Time
	}
	p.simNow = ss[len(ss)-1].Time
	before := p.calls
	p.calls += uint32(len(ss))
	if p.calls>>10 != before>>10 { // a multiple of 1024 calls was passed
		p.check()
	}
}

func (p *Progress) print(t time.Time) {
	rate := 0.0
	if el := t.Sub(p.start).Seconds(); el > 0 {
		rate = float64(p.jobs) / el
	}
	// "\r" returns to the start of the line, "\x1b[K" clears what is left.
	fmt.Fprintf(p.w, "\r%d jobs done · simulated %s · %.0f jobs/s\x1b[K",
		p.jobs, durationText(float64(p.simNow-p.simStart)/float64(max(p.perSec, 1))), rate)
	p.printed = true
}

// Done prints the final count and ends the line, if anything was shown.
func (p *Progress) Done() {
	if p.printed {
		p.print(p.now())
		fmt.Fprintln(p.w)
	}
}
