package workload

import (
	"fmt"
	"math"
	"strings"
)

// cleaner applies the cleaning rules to raw records, whatever format they
// were read from, so that an SWF trace and its Parquet form give the same
// jobs and the same counts. It also checks that submit times do not decrease.
type cleaner struct {
	rules Rules
	hdr   *Header
	stats CleanStats
	last  Time  // submit time of the previous kept record
	seq   int64 // records seen
	// raw keeps every record as read (see Raw): no rule applies, nothing is
	// dropped, only the order is checked.
	raw bool
	// records names the records in the order error ("SWF lines").
	records string
	// allocFirst is rules.Procs == ProcsAllocated, which every record
	// asks: a bool is cheaper to test than the string.
	allocFirst bool
	// sel is the selection rules resolved against the header (see
	// prepare), nil when they select every job.
	sel *selection
	// maxKept is the selection's MaxJobs, else MaxInt64: one comparison
	// with the count of kept jobs does for both.
	maxKept int64
	// spare takes what the rules mend in the records dropped once
	// maxKept jobs are kept, which stats does not count.
	spare CleanStats
	// tick is the records' ticks a second (0 or 1: seconds): the rules'
	// times, given in seconds (From, Until, ZeroRun's one second), are
	// counted in ticks.
	tick Time
}

func newCleaner(rules Rules, hdr *Header, records string) cleaner {
	rules = rules.WithDefaults()
	return cleaner{rules: rules, hdr: hdr, last: math.MinInt64, records: records, allocFirst: rules.Procs == ProcsAllocated, maxKept: math.MaxInt64}
}

// prepare resolves the selection rules against the header, which must be
// whole: every reader calls it once it has read the header, before the
// first record. Its error is about the rules and the header, not a record.
func (c *cleaner) prepare() error {
	if c.raw {
		return nil
	}
	sel, err := newSelection(c.rules, c.hdr)
	if err != nil {
		return err
	}
	c.sel = sel
	if sel != nil && c.tick > 1 {
		if sel.from != math.MinInt64 {
			sel.from *= c.tick
		}
		if sel.until != math.MaxInt64 {
			sel.until *= c.tick
		}
	}
	if sel != nil && sel.maxJobs > 0 {
		c.maxKept = sel.maxJobs
	}
	return nil
}

// clean turns the raw record in j into the job the simulator runs. The raw
// fields of j (RawRun, AllocProcs, ReqProcs, ReqTime, Status, …) must be set;
// submit is the raw submit time. It sets Seq, Submit, Procs, Run and Estimate,
// counts what the rules did, and reports whether the job is kept. The error,
// when not nil, is about the submit time (unsorted records).
func (c *cleaner) clean(j *Job, submit float64) (bool, error) {
	rounded := submit != math.Trunc(submit) || j.RawRun != math.Trunc(j.RawRun) || j.ReqTime != math.Trunc(j.ReqTime)
	return c.cleanTimes(j, submit < 0, Time(math.Round(submit)), Time(math.Round(j.RawRun)), Time(math.Round(j.ReqTime)), rounded)
}

// cleanTimes is clean once the raw times are whole seconds: unset says
// whether the raw submit time is negative, submit, run and estimate are
// the raw submit time, run time and requested time rounded, and rounded
// says whether any of them had a fraction. A reader that read them as
// integers calls it directly, without float64 round trips.
func (c *cleaner) cleanTimes(j *Job, unset bool, submit, run, estimate Time, rounded bool) (bool, error) {
	if submit > MaxTime || run > MaxTime || estimate > MaxTime || !(j.UsedMemKB <= MaxMemKB) || !(j.ReqMemKB <= MaxMemKB) {
		return false, beyondLimits(j, submit, run, estimate, c.tick)
	}
	j.Seq = c.seq
	c.seq++
	c.stats.Records++
	if unset && !c.raw {
		c.stats.DroppedSubmitUnset++
		return false, nil
	}
	j.Submit = submit
	if j.Submit >= 0 {
		if j.Submit < c.last {
			return false, fmt.Errorf("submit time %d is earlier than the previous job's %d: %s must be sorted by submit time", j.Submit, c.last, c.records)
		}
		c.last = j.Submit
	}
	if c.raw {
		j.Procs = j.ReqProcs
		if j.Procs <= 0 {
			j.Procs = j.AllocProcs
		}
		j.Run = run
		j.Estimate = estimate
		if j.Estimate <= 0 {
			j.Estimate = Unknown
		}
		c.stats.Kept++
		return true, nil
	}

	if c.sel != nil && !c.sel.selects(j, &c.stats) {
		return false, nil
	}
	// Once the selection's MaxJobs are kept, a record that passes the
	// rules is dropped for it: what the rules would have mended in it is
	// not counted (the counts describe the jobs replayed).
	fix := &c.stats
	if c.stats.Kept >= c.maxKept {
		fix = &c.spare
	}
	if len(c.rules.Statuses) > 0 && !containsInt(c.rules.Statuses, j.Status) {
		c.stats.DroppedStatus++
		return false, nil
	}
	if uint(j.Status+1) > 6 {
		// Not -1 to 5: a status SWF does not define (-4 in some archive
		// logs). The job is read as any other, its status as recorded.
		fix.StatusUnknown++
	} else if j.Status >= 2 && j.Status <= 4 {
		drop := c.rules.Partial == PartialDrop ||
			(c.rules.Partial == PartialAuto && strings.EqualFold(c.hdr.Preemption, "double"))
		if drop {
			c.stats.DroppedPartial++
			return false, nil
		}
	}

	primary, fallback := j.ReqProcs, j.AllocProcs
	if c.allocFirst {
		primary, fallback = fallback, primary
	}
	j.Procs = primary
	if j.Procs <= 0 {
		j.Procs = fallback
		if j.Procs > 0 {
			fix.ProcsFromOther++
		}
	}
	if j.Procs <= 0 {
		c.stats.DroppedProcs++
		return false, nil
	}

	j.Run = run
	if j.Run <= 0 {
		if c.rules.ZeroRun == RunDrop {
			c.stats.DroppedRun++
			return false, nil
		}
		j.Run = max(c.tick, 1) // a second
		fix.RunSetToOne++
	}

	j.Estimate = estimate
	if j.Estimate <= 0 {
		j.Estimate = Unknown
		if c.rules.Estimate == EstimateRun {
			j.Estimate = j.Run
			fix.EstimateFromRun++
		} else {
			fix.NoEstimate++
		}
	} else if j.Run > j.Estimate {
		if c.rules.Overrun == OverrunExtend {
			j.Estimate = j.Run
			fix.OverrunExtended++
		} else {
			fix.Overrun++
		}
	}
	if c.stats.Kept >= c.maxKept {
		c.stats.DroppedMaxJobs++
		return false, nil
	}
	if rounded {
		fix.RoundedFractional++
	}
	c.stats.Kept++
	return true, nil
}

// drop counts a record that its reader drops before the rules see it
// (counter, one of c.stats' fields, says why): it takes a place in the
// trace's order (Seq) as any record does.
func (c *cleaner) drop(counter *int64) {
	c.seq++
	c.stats.Records++
	*counter++
}

// fieldError is an error of the cleaner about one field of the record (SWF's
// numbering, from 1); readers report it on that field. The cleaner's other
// errors are about the submit time.
type fieldError struct {
	field int
	err   error
}

func (e *fieldError) Error() string { return e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// errField returns the SWF field an error of the cleaner is about.
func errField(err error) int {
	if fe, ok := err.(*fieldError); ok {
		return fe.field
	}
	return 2
}

// beyondLimits returns the error about the first of a record's times and
// memory sizes that is beyond MaxTime or MaxMemKB. The times are ticks of
// 1/tick second (0 or 1: seconds), and MaxTime bounds them in ticks.
func beyondLimits(j *Job, submit, run, estimate, tick Time) error {
	for _, f := range [...]struct {
		field int
		v     Time
	}{{2, submit}, {4, run}, {9, estimate}} {
		if f.v > MaxTime {
			if tick > 1 {
				return &fieldError{f.field, limitf("%s s is %d ticks of 1/%d s, beyond %d ticks, the longest time schedsim simulates (%s s in this unit)", FormatTicks(f.v, int64(tick)), f.v, tick, MaxTime, FormatTicks(MaxTime, int64(tick)))}
			}
			return &fieldError{f.field, limitf("%d s exceeds %d s (about 3,170 years), the longest time schedsim simulates", f.v, MaxTime)}
		}
	}
	field, kb := 7, j.UsedMemKB
	if kb <= MaxMemKB {
		field, kb = 10, j.ReqMemKB
	}
	return &fieldError{field, limitf("%v KB per processor exceeds %d KB (64 TiB), the most memory schedsim accepts", kb, int64(MaxMemKB))}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
