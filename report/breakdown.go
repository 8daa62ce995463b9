package report

import (
	"bytes"
	"cmp"
	"container/heap"
	"encoding/gob"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// BreakdownTop is how many users, groups, queues and partitions the
// breakdowns name, by wait and by use; the rest are summed in one row.
const BreakdownTop = 10

// LongestWaits is how many of the longest-waiting jobs the breakdowns list.
const LongestWaits = 20

// The dimensions a run is broken down by: SWF fields 12, 13, 15 and 16.
const (
	dimUser = iota
	dimGroup
	dimQueue
	dimPartition
	numDims
)

// denseKeys bounds the keys (plus one) a Breakdown finds by index.
const denseKeys = 1 << 16

// groupAcc accumulates the jobs that ran of one user, group, queue or
// partition.
type groupAcc struct {
	Jobs, Killed     int64
	WaitSum, WaitMax int64
	ProcSec          int64
}

// Breakdowns is the run broken down by who submitted and where: per user,
// group (the account), queue and partition, the BreakdownTop with the
// longest total wait and those that used the most processor-time, the
// rest summed; the jobs that waited longest, with why; and, on a cluster
// with partitions, the loss of capacity of each partition.
type Breakdowns struct {
	// Top is how many rows each table names before the rest.
	Top int `json:"top"`
	// Users, Groups, Queues and Partitions are the tables (omitted when
	// every job that ran has the same value: nothing to break down).
	Users      *GroupTable `json:"users,omitempty"`
	Groups     *GroupTable `json:"groups,omitempty"`
	Queues     *GroupTable `json:"queues,omitempty"`
	Partitions *GroupTable `json:"partitions,omitempty"`
	// LongestWaits are the jobs that waited longest, longest first (ties:
	// lower job number first).
	LongestWaits []LongWait `json:"longest_waits"`
	// PartitionLoss is the loss of capacity of each partition of a
	// cluster with partitions, in their order (omitted without).
	PartitionLoss []PartitionLoss `json:"partition_loss,omitempty"`
	// HourOfWeek is the weekly pattern, when the trace's start time is
	// known (omitted otherwise).
	HourOfWeek *HourOfWeek `json:"hour_of_week,omitempty"`
}

// HoursPerWeek is the number of hours of a week, the cells of HourOfWeek.
const HoursPerWeek = 7 * 24

// HourOfWeek is a run's weekly pattern in the trace's local time: cell
// 24·d + h is hour h (0–23) of weekday d (0 Monday … 6 Sunday).
type HourOfWeek struct {
	// Zone is the time zone of the hours.
	Zone string `json:"zone"`
	// Jobs counts the jobs that ran submitted in each hour, and
	// WaitMeanSec is their mean wait (0 without jobs).
	Jobs        [HoursPerWeek]int64   `json:"jobs"`
	WaitMeanSec [HoursPerWeek]float64 `json:"wait_mean_sec"`
	// Utilisation is the mean fraction of the processors busy in each
	// hour, over the hours of the series (HourOfWeekUtilisation).
	Utilisation [HoursPerWeek]float64 `json:"utilisation"`
}

// weekClock finds the hour-of-week cells of trace times on a calendar,
// keeping the zone period (offset and bounds) of the last time asked:
// times within it need integer arithmetic only, where time.Time.In
// searches the zone's transitions for every job. Not safe for
// concurrent use; the zero value is empty.
type weekClock struct {
	lo, hi, off int64 // the period [lo, hi) in Unix seconds, and its offset
	set         bool
}

// cell returns the cell of trace time t on cal: 24·d + h of weekday d
// (0 Monday) and hour h, local time.
func (z *weekClock) cell(cal *Calendar, t workload.Time) int {
	k := max(cal.Tick, 1)
	sec := int64(t) / k
	if int64(t)%k < 0 {
		sec--
	}
	sec += cal.Epoch
	if !z.set || sec < z.lo || sec >= z.hi {
		w := time.Unix(sec, 0).UTC()
		if cal.Loc != nil {
			w = w.In(cal.Loc)
		}
		_, off := w.Zone()
		start, end := w.ZoneBounds()
		z.lo, z.hi, z.off, z.set = math.MinInt64, math.MaxInt64, int64(off), true
		if !start.IsZero() {
			z.lo = start.Unix()
		}
		if !end.IsZero() {
			z.hi = end.Unix()
		}
	}
	// Local hours since 1970-01-01 00:00, a Thursday (cell 72).
	h := sec + z.off
	if h >= 0 {
		h /= 3600
	} else {
		h = -((-h + 3599) / 3600)
	}
	c := (h + 72) % HoursPerWeek
	if c < 0 {
		c += HoursPerWeek
	}
	return int(c)
}

// HourOfWeekUtilisation returns the mean utilisation of each hour of the
// week over the whole hours of ts, in cal's zone.
func HourOfWeekUtilisation(ts *TimeSeries, cal *Calendar) [HoursPerWeek]float64 {
	var out [HoursPerWeek]float64
	if ts == nil || !ts.started || cal == nil {
		return out
	}
	// The first whole local hour (zones are whole hours from UTC, or
	// the hours are cut where the zone's are).
	first := cal.At(ts.Start()).Truncate(time.Hour)
	if cal.TraceTime(first) < ts.Start() {
		first = first.Add(time.Hour)
	}
	from := cal.TraceTime(first)
	hour := 3600 * workload.Time(max(cal.Tick, 1)) // in the trace's ticks
	n := int((ts.End() - from) / hour)
	if n < 1 {
		return out
	}
	means := ts.Resample(Busy, from, from+workload.Time(n)*hour, n)
	var count [HoursPerWeek]int
	var z weekClock
	for i, m := range means {
		c := z.cell(cal, from+workload.Time(i)*hour)
		out[c] += m
		count[c]++
	}
	for c := range out {
		if count[c] > 0 {
			out[c] /= float64(count[c]) * float64(ts.Procs())
		}
	}
	return out
}

// GroupTable is one dimension of the breakdown.
type GroupTable struct {
	// Distinct counts the distinct values among the jobs that ran.
	Distinct int `json:"distinct"`
	// ByWait are the Top values with the longest total wait, longest
	// first, then (if more) one row summing the others.
	ByWait []GroupStats `json:"by_wait"`
	// ByUse are the Top values that used the most processor-time, most
	// first, then (if more) one row summing the others.
	ByUse []GroupStats `json:"by_use"`
}

// GroupStats describes the jobs that ran of one value (a user, a queue, …)
// or of the values summed in an "others" row.
type GroupStats struct {
	// Name is the value ("unknown" for SWF's -1), or "others" for the sum
	// of the rest.
	Name string `json:"name"`
	// Others counts the values the "others" row sums (0 otherwise).
	Others       int     `json:"others,omitempty"`
	Jobs         int64   `json:"jobs"`
	Killed       int64   `json:"killed"`
	WaitTotalSec int64   `json:"wait_total_sec"`
	WaitMeanSec  float64 `json:"wait_mean_sec"`
	// WaitMaxSec is the longest wait (of the rest: the longest of all of
	// them).
	WaitMaxSec int64 `json:"wait_max_sec"`
	// ProcSec is the processor-time used, and UseShare its fraction of
	// the run's.
	ProcSec  int64   `json:"proc_sec"`
	UseShare float64 `json:"use_share"`
}

// LongWait is one of the jobs that waited longest.
type LongWait struct {
	ID        int64         `json:"id"`
	User      int           `json:"user"`
	Group     int           `json:"group"`
	Queue     int           `json:"queue"`
	Partition string        `json:"partition"`
	Procs     int           `json:"procs"`
	Submit    workload.Time `json:"submit"`
	Start     workload.Time `json:"start"`
	WaitSec   int64         `json:"wait_sec"`
	// Reason is why it waited, as the engine last saw it (sim.PendingReason:
	// priority, resources, held by the policy, hold until; "" when the
	// engine does not say).
	Reason string `json:"reason"`
}

// PartitionLoss is the loss of capacity of one partition: the integral of
// min(idle processors of its nodes, processors its waiting jobs ask for),
// over the run. A node in two partitions counts in both.
type PartitionLoss struct {
	Name  string `json:"name"`
	Procs int    `json:"procs"`
	// Jobs counts the jobs that ran in it.
	Jobs        int64 `json:"jobs"`
	LossProcSec int64 `json:"loss_proc_sec"`
	// LossOfCapacity is LossProcSec / (Procs · the run's makespan), and
	// Utilisation the processor-time its nodes were busy (by any job)
	// over Procs · makespan.
	LossOfCapacity float64 `json:"loss_of_capacity"`
	Utilisation    float64 `json:"utilisation"`
}

// partJob is what the per-partition loss keeps of a job that ran.
type partJob struct {
	Submit, Start, End workload.Time
	Part               int32
	Procs              int32
}

// Breakdown is a sim.Observer that gathers the Breakdowns of a run.
type Breakdown struct {
	accs    [numDims]map[int]*groupAcc
	dense   [numDims][]*groupAcc // accs[d][k-1] for −1 ≤ k−1 < denseKeys−1, nil until seen
	longest longHeap
	procSec int64
	first   workload.Time
	last    workload.Time
	ran     int64

	// Partitions (nil without): their processors, the routing of SWF
	// partition numbers, and for linear selection each node's first
	// processor; jobs and busy (len(spans) per job: its processors in
	// each partition) for the loss.
	spans     []cluster.PartitionSpan
	route     func(int) int
	firstCore []int
	jobs      []partJob
	busy      []int32

	// cal (nil: unknown start time) and, per hour of the week of the
	// submissions, the jobs that ran and their waits.
	cal      *Calendar
	week     weekClock
	howJobs  [HoursPerWeek]int64
	howWaits [HoursPerWeek]int64
}

// SetCalendar makes b gather the weekly pattern of the waits on cal.
func (b *Breakdown) SetCalendar(cal *Calendar) { b.cal = cal }

// NewBreakdown returns a Breakdown for a run on spec (nil: a pool of
// processors, with no partitions).
func NewBreakdown(spec *cluster.Spec) *Breakdown {
	b := &Breakdown{}
	for d := range b.accs {
		b.accs[d] = map[int]*groupAcc{}
	}
	if spec != nil {
		b.spans, b.route = spec.PartitionSpans()
		if b.spans != nil && spec.Select != cluster.SelectConsRes {
			c := 0
			for _, g := range spec.Groups {
				for range g.Count {
					b.firstCore = append(b.firstCore, c)
					c += g.Cores
				}
			}
			b.firstCore = append(b.firstCore, c)
		}
	}
	return b
}

// Wants implements sim.Observer: the records; a Breakdown reads only the head of
// a record's job.
func (b *Breakdown) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds, JobHead: true} }

// Observe implements sim.Observer: JobDone with the event's record.
func (b *Breakdown) Observe(e *sim.Event) { b.JobDone(e.Record) }

// JobDone records r.
func (b *Breakdown) JobDone(r *sim.Record) {
	switch r.State {
	case sim.Rejected, sim.Failed, sim.Pending:
		return
	}
	j := r.Job
	wait := int64(r.Start - j.Submit)
	used := r.ProcSeconds()
	if r.ScoreD {
		used = int64(j.Procs) * int64(r.CPUTime)
	}
	if r.Immediate {
		used = 0 // beside the machine: none of its processors
	}
	if b.ran == 0 || j.Submit < b.first {
		b.first = j.Submit
	}
	if b.ran == 0 || r.End > b.last {
		b.last = r.End
	}
	b.ran++
	b.procSec += used
	part := j.Partition
	if b.route != nil {
		part = b.route(j.Partition)
	}
	for d, key := range [numDims]int{j.User, j.Group, j.Queue, part} {
		// Most keys are small numbers: a slice finds their accumulator
		// without hashing; the map holds them all, for the tables.
		var a *groupAcc
		if k := key + 1; k >= 0 && k < len(b.dense[d]) {
			a = b.dense[d][k]
		}
		if a == nil {
			if a = b.accs[d][key]; a == nil {
				a = &groupAcc{}
				b.accs[d][key] = a
			}
			if k := key + 1; k >= 0 && k < denseKeys {
				if k >= len(b.dense[d]) {
					b.dense[d] = append(b.dense[d], make([]*groupAcc, k+1-len(b.dense[d]))...)
				}
				b.dense[d][k] = a
			}
		}
		a.Jobs++
		if r.State == sim.Killed {
			a.Killed++
		}
		a.WaitSum += wait
		a.WaitMax = max(a.WaitMax, wait)
		a.ProcSec += used
	}
	if b.cal != nil {
		c := b.week.cell(b.cal, j.Submit)
		b.howJobs[c]++
		b.howWaits[c] += wait
	}
	// Most jobs waited less than the shortest of the longest waits kept:
	// they are passed over without building their entry.
	if full := len(b.longest) == LongestWaits; !full || wait >= b.longest[0].Wait {
		lw := longWait{ID: j.ID, User: j.User, Group: j.Group, Queue: j.Queue, Part: part, Procs: j.Procs,
			Submit: j.Submit, Start: r.Start, Wait: wait, Reason: uint8(r.Pending)}
		if !full {
			heap.Push(&b.longest, lw)
		} else if lw.longer(b.longest[0]) {
			b.longest[0] = lw
			heap.Fix(&b.longest, 0)
		}
	}
	if b.spans != nil {
		b.jobs = append(b.jobs, partJob{Submit: j.Submit, Start: r.Start, End: r.End, Part: int32(part), Procs: int32(j.Procs)})
		procs := r.Alloc
		if b.firstCore != nil {
			procs = make([]cluster.Range, len(r.Alloc))
			for i, a := range r.Alloc {
				procs[i] = cluster.Range{Lo: b.firstCore[a.Lo], Hi: b.firstCore[a.Hi]}
			}
		}
		for _, sp := range b.spans {
			b.busy = append(b.busy, int32(overlap(procs, sp.Procs)))
		}
	}
}

// overlap returns how many numbers two sorted, disjoint range lists share.
func overlap(a, b []cluster.Range) int {
	n, i, k := 0, 0, 0
	for i < len(a) && k < len(b) {
		lo, hi := max(a[i].Lo, b[k].Lo), min(a[i].Hi, b[k].Hi)
		if lo < hi {
			n += hi - lo
		}
		if a[i].Hi < b[k].Hi {
			i++
		} else {
			k++
		}
	}
	return n
}

// longWait is a candidate for the longest waits.
type longWait struct {
	ID                       int64
	User, Group, Queue, Part int
	Procs                    int
	Submit, Start            workload.Time
	Wait                     int64
	Reason                   uint8
}

// longer orders the longest waits: a longer wait, then a lower job number
// (then the earlier submission), first.
func (a longWait) longer(b longWait) bool {
	if a.Wait != b.Wait {
		return a.Wait > b.Wait
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	return a.Submit < b.Submit
}

// longHeap is a min-heap of the longest waits: the shortest on top.
type longHeap []longWait

func (h longHeap) Len() int           { return len(h) }
func (h longHeap) Less(i, k int) bool { return h[k].longer(h[i]) }
func (h longHeap) Swap(i, k int)      { h[i], h[k] = h[k], h[i] }
func (h *longHeap) Push(x any)        { *h = append(*h, x.(longWait)) }
func (h *longHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// keyName names a dimension's value: a partition by its name on a cluster
// with partitions, SWF's -1 as "unknown", any other as its number.
func (b *Breakdown) keyName(d, key int) string {
	if d == dimPartition && b.spans != nil {
		return b.spans[key].Name
	}
	if key < 0 {
		return "unknown"
	}
	return strconv.Itoa(key)
}

// Breakdowns returns what b gathered.
func (b *Breakdown) Breakdowns() *Breakdowns {
	out := &Breakdowns{Top: BreakdownTop, LongestWaits: []LongWait{}}
	tables := [numDims]**GroupTable{&out.Users, &out.Groups, &out.Queues, &out.Partitions}
	for d := range numDims {
		if len(b.accs[d]) > 1 {
			*tables[d] = b.table(d)
		}
	}
	longest := slices.Clone(b.longest)
	slices.SortFunc(longest, func(x, y longWait) int {
		if x.longer(y) {
			return -1
		}
		return 1
	})
	for _, l := range longest {
		out.LongestWaits = append(out.LongestWaits, LongWait{ID: l.ID, User: l.User, Group: l.Group, Queue: l.Queue,
			Partition: b.keyName(dimPartition, l.Part), Procs: l.Procs, Submit: l.Submit, Start: l.Start, WaitSec: l.Wait,
			Reason: sim.PendingReason(l.Reason).String()})
	}
	out.PartitionLoss = b.partitionLoss()
	if b.cal != nil {
		hw := &HourOfWeek{Zone: b.cal.ZoneName(), Jobs: b.howJobs}
		for c, n := range b.howJobs {
			if n > 0 {
				hw.WaitMeanSec[c] = float64(b.howWaits[c]) / float64(n)
			}
		}
		out.HourOfWeek = hw
	}
	return out
}

// table returns dimension d's table.
func (b *Breakdown) table(d int) *GroupTable {
	type row struct {
		key int
		acc *groupAcc
	}
	rows := make([]row, 0, len(b.accs[d]))
	for k, a := range b.accs[d] {
		rows = append(rows, row{k, a})
	}
	stats := func(name string, a *groupAcc) GroupStats {
		g := GroupStats{Name: name, Jobs: a.Jobs, Killed: a.Killed, WaitTotalSec: a.WaitSum, WaitMaxSec: a.WaitMax, ProcSec: a.ProcSec}
		if a.Jobs > 0 {
			g.WaitMeanSec = float64(a.WaitSum) / float64(a.Jobs)
		}
		if b.procSec > 0 {
			g.UseShare = float64(a.ProcSec) / float64(b.procSec)
		}
		return g
	}
	top := func(by func(a *groupAcc) int64) []GroupStats {
		slices.SortFunc(rows, func(x, y row) int {
			if c := cmp.Compare(by(y.acc), by(x.acc)); c != 0 {
				return c
			}
			return cmp.Compare(x.key, y.key)
		})
		var out []GroupStats
		var rest groupAcc
		for i, r := range rows {
			if i < BreakdownTop {
				out = append(out, stats(b.keyName(d, r.key), r.acc))
				continue
			}
			rest.Jobs += r.acc.Jobs
			rest.Killed += r.acc.Killed
			rest.WaitSum += r.acc.WaitSum
			rest.WaitMax = max(rest.WaitMax, r.acc.WaitMax)
			rest.ProcSec += r.acc.ProcSec
		}
		if len(rows) > BreakdownTop {
			g := stats("others", &rest)
			g.Others = len(rows) - BreakdownTop
			out = append(out, g)
		}
		return out
	}
	return &GroupTable{Distinct: len(rows),
		ByWait: top(func(a *groupAcc) int64 { return a.WaitSum }),
		ByUse:  top(func(a *groupAcc) int64 { return a.ProcSec })}
}

// partitionLoss returns each partition's loss of capacity (nil without
// partitions).
func (b *Breakdown) partitionLoss() []PartitionLoss {
	if b.spans == nil {
		return nil
	}
	type change struct {
		at           workload.Time
		queued, busy int64
	}
	makespan := int64(b.last - b.first)
	out := make([]PartitionLoss, len(b.spans))
	n := len(b.spans)
	var ch []change
	for p, sp := range b.spans {
		ch = ch[:0]
		var jobs, busySec int64
		for i, j := range b.jobs {
			if int(j.Part) == p {
				jobs++
				if j.Start > j.Submit {
					ch = append(ch, change{j.Submit, int64(j.Procs), 0}, change{j.Start, -int64(j.Procs), 0})
				}
			}
			if u := int64(b.busy[i*n+p]); u > 0 && j.End > j.Start {
				ch = append(ch, change{j.Start, 0, u}, change{j.End, 0, -u})
				busySec += u * int64(j.End-j.Start)
			}
		}
		slices.SortFunc(ch, func(x, y change) int { return cmp.Compare(x.at, y.at) })
		var loss, queued, busy int64
		for i, c := range ch {
			queued += c.queued
			busy += c.busy
			if i+1 < len(ch) && ch[i+1].at > c.at {
				idle := max(int64(sp.Cores)-busy, 0)
				loss += min(idle, queued) * int64(ch[i+1].at-c.at)
			}
		}
		out[p] = PartitionLoss{Name: sp.Name, Procs: sp.Cores, Jobs: jobs, LossProcSec: loss}
		if makespan > 0 && sp.Cores > 0 {
			out[p].LossOfCapacity = float64(loss) / (float64(sp.Cores) * float64(makespan))
			out[p].Utilisation = float64(busySec) / (float64(sp.Cores) * float64(makespan))
		}
	}
	return out
}

// breakdownState is a Breakdown's state in a checkpoint.
type breakdownState struct {
	Accs        [numDims]map[int]*groupAcc
	Longest     []longWait
	ProcSec     int64
	First, Last workload.Time
	Ran         int64
	Jobs        []partJob
	Busy        []int32
	HowJobs     [HoursPerWeek]int64
	HowWaits    [HoursPerWeek]int64
}

// MarshalBinary encodes b's state for a checkpoint.
func (b *Breakdown) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(breakdownState{Accs: b.accs, Longest: b.longest, ProcSec: b.procSec,
		First: b.first, Last: b.last, Ran: b.ran, Jobs: b.jobs, Busy: b.busy, HowJobs: b.howJobs, HowWaits: b.howWaits})
	if err != nil {
		return nil, fmt.Errorf("report: encoding the breakdown: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary restores the state MarshalBinary encoded, into a
// Breakdown made by NewBreakdown for the same cluster.
func (b *Breakdown) UnmarshalBinary(data []byte) error {
	var s breakdownState
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return fmt.Errorf("report: decoding the breakdown: %w", err)
	}
	for d := range s.Accs {
		if s.Accs[d] == nil {
			s.Accs[d] = map[int]*groupAcc{}
		}
	}
	b.accs, b.longest, b.procSec, b.first, b.last, b.ran, b.jobs, b.busy = s.Accs, s.Longest, s.ProcSec, s.First, s.Last, s.Ran, s.Jobs, s.Busy
	b.dense = [numDims][]*groupAcc{} // rebuilt from accs as keys come
	b.howJobs, b.howWaits = s.HowJobs, s.HowWaits
	return nil
}
