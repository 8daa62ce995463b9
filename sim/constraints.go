package sim

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Constraints are the rules of a real machine that every policy plans
// around (Config.Constraints): reservations (Slurm's `scontrol create
// reservation`), start windows (a maximum requested time that depends on
// when a job would start, like PBS's prime and non-prime time) and user
// and account limits (Slurm's association and QOS limits). Calendar rules
// are placed on the wall clock of Calendar, daylight saving included.
//
// How the engine applies them:
//
//   - A job may start at t only if, at every instant u of [t, t+limit)
//     (limit: its requested time; without one, the 400 days over which
//     the engine and the policies plan such a job: see plannedRun), the
//     processors free at u (the running jobs by their predicted ends)
//     less those held by the reservations active at u that it may not use
//     are at least its own. A maintenance reservation admits no job; one
//     for users, accounts or partitions admits their jobs only. The
//     policies plan with the same rule (policy.Calendar), so a backfilled
//     job never runs into a reservation and a head's reservation is never
//     promised inside one.
//   - A job whose requested time exceeds a start window's MaxWall, or
//     whose processors exceed its MaxProcs or fall short of its
//     MinProcs, may not start inside that window; it waits for the
//     window's end.
//   - A job that a limit holds (its user's running jobs or processors, its
//     account's processors) is left out of the queue a pass sees, as
//     Slurm's scheduler passes over jobs held by an association limit:
//     it blocks no one. MaxSubmitJobsPerUser and MaxWall reject a job at
//     its submission, as Slurm does, with the reason.
//   - A job that can never start (its requested time does not fit
//     between the reservations it may not use, or a limit is smaller
//     than the job) is rejected at its submission with the reason; a job
//     without a requested time is rejected when it fits nowhere for 400
//     days (see plannedRun).
//
// After every pass that leaves jobs waiting the engine wakes itself at
// the next instant a reservation or a start window begins or ends.
// Recurring rules are expanded lazily, as far ahead as a query asks.
type Constraints struct {
	// Calendar places the calendar rules on the wall clock.
	Calendar workload.Calendar
	// Reservations, in any order; names are unique.
	Reservations []Reservation
	// Windows are the start windows.
	Windows []StartWindow
	// Limits are the user, account and QOS limits.
	Limits []Limit
}

// Recur is how a reservation repeats (Slurm's DAILY, WEEKDAY, WEEKEND and
// WEEKLY flags).
type Recur uint8

// Values of Recur.
const (
	// RecurOnce: a one-off reservation.
	RecurOnce Recur = iota
	// RecurDaily: every day at the same local time.
	RecurDaily
	// RecurWeekdays: every Monday to Friday at the same local time.
	RecurWeekdays
	// RecurWeekends: every Saturday and Sunday at the same local time.
	RecurWeekends
	// RecurWeekly: every week on the same weekday and local time.
	RecurWeekly
)

// RecurNames are the names of Recur's values, as scenario files give them.
var RecurNames = [...]string{"once", "daily", "weekdays", "weekends", "weekly"}

// String returns the recurrence's name.
func (r Recur) String() string {
	if int(r) < len(RecurNames) {
		return RecurNames[r]
	}
	return "Recur(" + strconv.Itoa(int(r)) + ")"
}

// ParseRecur parses a Recur by name ("" is once).
func ParseRecur(s string) (Recur, error) {
	if s == "" {
		return RecurOnce, nil
	}
	for i, n := range RecurNames {
		if n == s {
			return Recur(i), nil
		}
	}
	return 0, fmt.Errorf("recur %q: want once, daily, weekdays, weekends or weekly", s)
}

// Reservation is a reservation of processors over time: one occurrence,
// or a recurring one, all of its occurrences known in advance.
type Reservation struct {
	// Name identifies it in messages and verify's findings.
	Name string
	// Start is the first occurrence's start (trace time); recurring
	// occurrences start at the same local wall-clock time.
	Start workload.Time
	// Duration is each occurrence's length (> 0; at most a day for a
	// daily, weekday or weekend recurrence, a week for a weekly one).
	Duration workload.Time
	// Recur is how it repeats.
	Recur Recur
	// Until: no occurrence starts after it (workload.Forever: none).
	Until workload.Time
	// Procs is how many processors it holds; 0 (or more than the
	// machine) is the whole machine.
	Procs int
	// Maint: a maintenance reservation, which no job may use.
	Maint bool
	// Users, Accounts (SWF group, field 13) and Partitions (field 16)
	// name the jobs that may run inside it; a reservation that is not
	// Maint and names none of them admits no job either.
	Users, Accounts, Partitions []int
	// Nodes, on a cluster of nodes (Config.Allocator a
	// cluster.NodeStates), are the node numbers it holds (Slurm's
	// Nodes=): no job it does not admit is placed on them if its
	// requested time would overlap an occurrence, for its whole run, and
	// the policies plan with those nodes (policy.NodeCalendar). Procs is
	// then the processors of those nodes. Without a cluster of nodes it
	// holds Procs processors anywhere.
	Nodes []cluster.Range `json:",omitempty"`
}

// Admits reports whether job j may run inside the reservation.
func (r *Reservation) Admits(j *workload.Job) bool {
	if r.Maint {
		return false
	}
	return slices.Contains(r.Users, j.User) || slices.Contains(r.Accounts, j.Group) || slices.Contains(r.Partitions, j.Partition)
}

// StartWindow is a maximum requested time that holds for the jobs that
// would start inside a recurring local-time window.
type StartWindow struct {
	// Partition and Queue (SWF fields 16 and 15) select the jobs it
	// holds for; −1 is any.
	Partition, Queue int
	// Days is the set of weekdays on which the window opens, bit
	// time.Weekday (bit 0 Sunday).
	Days uint8
	// From and To are the local times of day, in seconds, at which it
	// opens and closes; To ≤ From wraps midnight (it closes the next day).
	From, To int
	// MaxWall: a job asking for more may not start inside the window (0:
	// no bound on the requested time; then MaxProcs is set).
	MaxWall workload.Time
	// MaxProcs: a job asking for more processors may not start inside
	// the window either (0: no bound), like a partition's MaxNodes that
	// holds at those hours only (a machine that runs its large jobs at
	// night, or keeps them out of its daytime partitions).
	MaxProcs int `json:"MaxProcs,omitempty"`
	// MinProcs: a job asking for fewer processors may not start inside
	// the window either (0: no bound): a machine that keeps its daytime
	// partitions for a queue's large jobs.
	MinProcs int `json:"MinProcs,omitempty"`
}

// appliesTo reports whether the window holds for job j with time limit
// limit (≤ 0: none, which exceeds every MaxWall): j is one of its jobs
// and asks for more time than MaxWall, more processors than MaxProcs or
// fewer than MinProcs.
func (w *StartWindow) appliesTo(j *workload.Job, limit workload.Time) bool {
	if (w.Partition >= 0 && j.Partition != w.Partition) || (w.Queue >= 0 && j.Queue != w.Queue) {
		return false
	}
	if (w.MaxProcs > 0 && j.Procs > w.MaxProcs) || (w.MinProcs > 0 && j.Procs < w.MinProcs) {
		return true
	}
	return w.MaxWall > 0 && (limit <= 0 || limit > w.MaxWall)
}

// Limit is an association or QOS limit (Slurm's MaxJobsPerUser,
// MaxSubmitJobsPerUser, MaxTRESPerUser=cpu, GrpTRES=cpu, MaxWall, and the
// limits of each user association, MaxJobs, MaxSubmitJobs and GrpTRES=cpu
// on a (user, account) association). Zero fields set no limit. A user's
// jobs are counted over all the jobs of that user (SWF field 12), an
// association's over the jobs of that user under that account (SWF field
// 13); a job whose user is unknown (−1) is held by no per-user or
// per-association limit, only by GrpCPUs and MaxWall.
type Limit struct {
	// AllUsers: the limit holds for every user, each separately ("*").
	AllUsers bool
	// Users and Accounts (SWF group) name whom it holds for otherwise.
	Users, Accounts []int
	// MaxJobsPerUser bounds a user's running jobs.
	MaxJobsPerUser int
	// MaxSubmitPerUser bounds a user's queued and running jobs; a job
	// beyond it is rejected at its submission.
	MaxSubmitPerUser int
	// MaxCPUsPerUser bounds the processors of a user's running jobs.
	MaxCPUsPerUser int
	// GrpCPUs bounds the processors of the running jobs of the whole
	// association: all the users named together, the account, or with
	// AllUsers every job.
	GrpCPUs int
	// MaxWall rejects, at its submission, a job asking for more.
	MaxWall workload.Time
	// MaxJobs bounds the running jobs of each user association: a user's
	// jobs under one account (Slurm's association MaxJobs).
	MaxJobs int `json:",omitempty"`
	// MaxSubmitJobs bounds the queued and running jobs of each user
	// association; a job beyond it is rejected at its submission
	// (Slurm's association MaxSubmitJobs).
	MaxSubmitJobs int `json:",omitempty"`
	// MaxCPUs bounds the processors of the running jobs of each user
	// association (Slurm's GrpTRES=cpu=N set on a user association).
	MaxCPUs int `json:",omitempty"`
}

// appliesTo reports whether the limit holds for job j.
func (l *Limit) appliesTo(j *workload.Job) bool {
	return l.AllUsers || slices.Contains(l.Users, j.User) || slices.Contains(l.Accounts, j.Group)
}

// InTicks returns c for a run whose times are ticks of 1/tick second: the
// reservations' start, duration and until and the limits' and start
// windows' MaxWall, given in seconds, in ticks, and the calendar counting
// ticks (workload.Calendar.Tick). The windows' hours stay seconds of the
// local day. It returns c itself when tick ≤ 1; c is not changed.
func (c *Constraints) InTicks(tick int64) *Constraints {
	if c == nil || tick <= 1 {
		return c
	}
	k := workload.Time(tick)
	scale := func(t workload.Time) workload.Time {
		if t >= workload.Forever || t <= -workload.Forever {
			return t
		}
		return t * k
	}
	out := *c
	out.Calendar.Tick = tick
	out.Reservations = slices.Clone(c.Reservations)
	for i := range out.Reservations {
		r := &out.Reservations[i]
		r.Start, r.Duration, r.Until = scale(r.Start), scale(r.Duration), scale(r.Until)
	}
	out.Windows = slices.Clone(c.Windows)
	for i := range out.Windows {
		out.Windows[i].MaxWall = scale(out.Windows[i].MaxWall)
	}
	out.Limits = slices.Clone(c.Limits)
	for i := range out.Limits {
		out.Limits[i].MaxWall = scale(out.Limits[i].MaxWall)
	}
	return &out
}

// tick returns the ticks a second of c's times (its calendar's).
func (c *Constraints) tick() workload.Time { return workload.Time(max(c.Calendar.Tick, 1)) }

// Validate checks the constraints' values.
func (c *Constraints) Validate() error {
	seen := map[string]bool{}
	day := 86400 * c.tick()
	for i := range c.Reservations {
		r := &c.Reservations[i]
		switch {
		case r.Name == "":
			return fmt.Errorf("sim: reservation %d has no name", i+1)
		case seen[r.Name]:
			return fmt.Errorf("sim: reservation %q: the name is given twice", r.Name)
		case r.Duration <= 0:
			return fmt.Errorf("sim: reservation %q: duration %d: must be > 0", r.Name, r.Duration)
		case r.Procs < 0:
			return fmt.Errorf("sim: reservation %q: procs %d: must be ≥ 0", r.Name, r.Procs)
		case r.Recur > RecurWeekly:
			return fmt.Errorf("sim: reservation %q: %v", r.Name, r.Recur)
		case r.Recur != RecurOnce && r.Recur != RecurWeekly && r.Duration > day:
			return fmt.Errorf("sim: reservation %q: a %s reservation lasts at most a day, not %s s", r.Name, r.Recur, workload.FormatTicks(r.Duration, int64(c.tick())))
		case r.Recur == RecurWeekly && r.Duration > 7*day:
			return fmt.Errorf("sim: reservation %q: a weekly reservation lasts at most a week, not %s s", r.Name, workload.FormatTicks(r.Duration, int64(c.tick())))
		case r.Until < r.Start:
			return fmt.Errorf("sim: reservation %q: until is before its start", r.Name)
		}
		seen[r.Name] = true
	}
	for i, w := range c.Windows {
		switch {
		case w.Days == 0:
			return fmt.Errorf("sim: start window %d: no days", i+1)
		case w.From < 0 || w.From >= 86400 || w.To < 0 || w.To > 86400:
			return fmt.Errorf("sim: start window %d: hours out of the day", i+1)
		case w.MaxWall < 0 || w.MaxProcs < 0 || w.MinProcs < 0 || (w.MaxWall == 0 && w.MaxProcs == 0 && w.MinProcs == 0):
			return fmt.Errorf("sim: start window %d: max_wall, max_procs or min_procs must be > 0", i+1)
		}
	}
	for i, l := range c.Limits {
		if !l.AllUsers && len(l.Users) == 0 && len(l.Accounts) == 0 {
			return fmt.Errorf("sim: limit %d names no users or accounts", i+1)
		}
		if l.MaxJobsPerUser < 0 || l.MaxSubmitPerUser < 0 || l.MaxCPUsPerUser < 0 || l.GrpCPUs < 0 || l.MaxWall < 0 ||
			l.MaxJobs < 0 || l.MaxSubmitJobs < 0 || l.MaxCPUs < 0 {
			return fmt.Errorf("sim: limit %d: a negative value", i+1)
		}
	}
	return nil
}

// span is one occurrence of a recurring rule, in trace time.
type span struct{ from, to workload.Time }

// recurrence expands a recurring local-time rule lazily: occurrences
// start at a local clock on the days its mask allows, every step days
// from a first day, and last dur seconds; none starts after until.
type recurrence struct {
	cal   *workload.Calendar
	y     int
	m     time.Month
	d     int // the first day
	clock int // seconds after local midnight
	step  int // days between candidate days (1 or 7)
	mask  uint8
	dur   workload.Time
	from  workload.Time // no occurrence starts before it
	until workload.Time // nor after it
	next  int           // the next candidate day to expand, as a multiple of step
	done  bool
	occ   []span // the occurrences expanded so far, in order
	hint  int    // the index at() found last
	// memo holds the last answers of at(), each for the interval of
	// instants it holds for: queries come back to the same few stretches
	// (now, and the reservations ahead) many times a pass.
	memo     [8]atMemo
	memoN    int
	once     bool
	onceSpan span
}

// newRecurrence returns the expansion of a rule whose first candidate
// occurrence starts at trace time first.
func newRecurrence(cal *workload.Calendar, first workload.Time, dur workload.Time, step int, mask uint8, until workload.Time) *recurrence {
	w := cal.At(first)
	return &recurrence{cal: cal, y: w.Year(), m: w.Month(), d: w.Day(), clock: w.Hour()*3600 + w.Minute()*60 + w.Second(),
		step: step, mask: mask, dur: dur, from: first, until: until}
}

// expandTo expands occurrences until one starts after t (or none is left).
func (r *recurrence) expandTo(t workload.Time) {
	if r.once {
		return
	}
	for !r.done && (len(r.occ) == 0 || r.occ[len(r.occ)-1].from <= t) {
		day := r.next * r.step
		r.next++
		w := r.cal.Local(r.y, r.m, r.d+day, 0, 0, 0)
		if r.mask&(1<<uint(w.Weekday())) == 0 {
			if r.next > 1<<22 {
				r.done = true
			}
			continue
		}
		start := r.cal.TraceTime(w.Add(time.Duration(r.clock) * time.Second))
		if start > r.until || start > workload.MaxTime {
			r.done = true
			break
		}
		if start < r.from {
			continue
		}
		r.occ = append(r.occ, span{start, start + r.dur})
	}
}

// atMemo is an answer of recurrence.at that holds for every instant of
// [lo, next).
type atMemo struct {
	lo, next workload.Time
	active   bool
}

// at returns whether an occurrence covers t and the next instant after t
// at which the rule's state changes (workload.Forever: never).
func (r *recurrence) at(t workload.Time) (active bool, next workload.Time) {
	for k := range r.memo {
		if m := &r.memo[k]; m.lo <= t && t < m.next {
			return m.active, m.next
		}
	}
	active, next, lo := r.find(t)
	r.memo[r.memoN] = atMemo{lo: lo, next: next, active: active}
	r.memoN = (r.memoN + 1) % len(r.memo)
	return active, next
}

// find is at without the memo; lo is the first instant of the stretch
// around t that has the same answer.
func (r *recurrence) find(t workload.Time) (active bool, next, lo workload.Time) {
	if r.once {
		s := r.onceSpan
		switch {
		case t < s.from:
			return false, s.from, -workload.Forever
		case t < s.to:
			return true, s.to, s.from
		}
		return false, workload.Forever, s.to
	}
	r.expandTo(t)
	// The last occurrence starting at or before t: most queries come
	// near the previous one (the clock only moves on).
	occ := r.occ
	holds := func(k int) bool {
		return k >= 0 && k < len(occ) && occ[k].from <= t && (k+1 == len(occ) || occ[k+1].from > t)
	}
	k := r.hint
	switch {
	case holds(k):
	case holds(k + 1):
		k++
	case holds(k + 2):
		k += 2
	default:
		k = sort.Search(len(occ), func(k int) bool { return occ[k].from > t }) - 1
	}
	r.hint = k
	if k >= 0 && t < occ[k].to {
		return true, occ[k].to, occ[k].from
	}
	lo = -workload.Forever
	if k >= 0 {
		lo = occ[k].to
	}
	if k+1 < len(occ) {
		return false, occ[k+1].from, lo
	}
	if !r.done {
		// Not expanded that far yet: the answer holds for t alone.
		return false, workload.Forever, t
	}
	return false, workload.Forever, lo
}

// lastEnd returns the end of the rule's last occurrence, Forever if it
// recurs without end.
func (r *recurrence) lastEnd() workload.Time {
	if r.once {
		return r.onceSpan.to
	}
	if r.until >= workload.Forever {
		return workload.Forever
	}
	r.expandTo(r.until)
	if len(r.occ) == 0 {
		return 0
	}
	return r.occ[len(r.occ)-1].to
}

// weekdays is the mask of Monday to Friday, weekend that of Saturday and Sunday.
const (
	weekdays uint8 = 0b0111110
	weekend  uint8 = 0b1000001
	allDays  uint8 = 0b1111111
)

// reservationRecurrence returns the expansion of reservation r.
func reservationRecurrence(cal *workload.Calendar, r *Reservation) *recurrence {
	if r.Recur == RecurOnce {
		return &recurrence{once: true, onceSpan: span{r.Start, r.Start + r.Duration}}
	}
	step, mask := 1, allDays
	switch r.Recur {
	case RecurWeekdays:
		mask = weekdays
	case RecurWeekends:
		mask = weekend
	case RecurWeekly:
		step = 7
	}
	return newRecurrence(cal, r.Start, r.Duration, step, mask, r.Until)
}

// windowRecurrence returns the expansion of start window w from the day
// before trace time from (a window opened the evening before may still
// be open).
func windowRecurrence(cal *workload.Calendar, w *StartWindow, from workload.Time) *recurrence {
	day := cal.At(from).AddDate(0, 0, -1)
	first := cal.TraceTime(cal.Local(day.Year(), day.Month(), day.Day(), 0, 0, 0).Add(time.Duration(w.From) * time.Second))
	dur := workload.Time(w.To - w.From)
	if w.To <= w.From {
		dur += 86400
	}
	dur *= workload.Time(max(cal.Tick, 1)) // the hours are seconds of the day
	r := newRecurrence(cal, first, dur, 1, w.Days, workload.Forever)
	r.from = -workload.Forever
	return r
}

// constraints is the engine's state of Config.Constraints.
type constraints struct {
	c      *Constraints
	procs  int // the machine's size
	resv   []*recurrence
	resvPr []int // processors each reservation holds
	// once indexes the one-off reservations that hold a count of
	// processors (onceIndex; nil: none), loop names the others, which
	// withheld walks one by one.
	once *onceIndex
	loop []int
	// admitting are the reservations whose admitted running jobs fill
	// them first (credit.go), credit the cache of that.
	admitting []int
	credit    creditState
	windows   []*recurrence
	// Per-user and per-limit counts of the running jobs (jobs,
	// processors) and of the submitted jobs not yet ended (queued or
	// running), keyed by user id (or by limit index for GrpCPUs).
	userJobs, userCPUs, userSubmit counts
	grpCPUs                        []int // per limit: the association's running processors
	hasLimits                      bool
	// owners are the (user, account) pairs of the jobs (see owner),
	// ownerIdx indexes them, ownerOf gives each slot's.
	owners   []owner
	ownerIdx map[ownerKey]int32
	ownerOf  []int32
	// fast: a pass looks at the owners whose jobs may start only
	// (visibleFast); else it walks the whole queue.
	fast bool
	// active are the owners with queued jobs (fast), dirty the queued
	// jobs whose pending reason the next pass must check (fast).
	active []int32
	dirty  []ownerEntry
	// pins is the node selector when reservations hold nodes (see
	// pinned.go), pinTaken pinOut's scratch.
	pins     cluster.NodeStates
	pinTaken []cluster.Range
	pinMark  []bool // node → held by pinnedNodes' reservations
	// visIDs are the slots of cs.visible (fast).
	visIDs []int32
	wakeAt workload.Time // the calendar wake-up pending, or −1
	// onTick, under a scheduler cycle (Config.SchedInterval), is the
	// engine's cycleTick: a job starts only at a pass, so startFrom
	// gives only the cycle's ticks (to admission, plans and Fits).
	onTick   func(workload.Time) workload.Time
	visible  []int             // the queue indices a pass sees (limits)
	dense    []fastpath.Queued // the visible jobs' dense queue (under limits)
	limitHit bool              // a pass found a visible job held by a limit
	view     consView
	dec      consDecisions
	// checkPromises: the engine checks reservations (see Config.Constraints).
	checkPromises bool
	// wholeQueue: the policy sees the jobs a limit holds too
	// (policy.WholeQueue), and asks whether each may start.
	wholeQueue bool
	// cum[k] is the processors the running jobs give back by ends[k-1]
	// (their first k release instants, in order), while cumValid (see
	// Engine.releases).
	cum      []int
	cumValid bool
	// ends are the instants of cum's releases (Engine.releases), byKill
	// its scratch under an Estimator.
	ends   []workload.Time
	byKill []released
	// runGen counts the changes of the running jobs (runningChanged).
	runGen uint64
	// pinnedNodes' last marks (pinMark, pinProcs), for the set of
	// reservations on nodes that made them (pinSet, one bit each, when
	// there are at most 64 reservations: pinSetOK), and Pinned's last
	// answer, the running jobs on those nodes (pinRuns), while the
	// marks and the running jobs (pinRunsGen) are the same.
	pinSet     uint64
	pinSetOK   bool
	pinProcs   int
	pinRuns    []policy.PinnedRun
	pinRunsGen uint64
	pinRunsOK  bool
	// admitMemo memoizes the admission check's walks (admitEarliest);
	// lastEnd is the reservations' last end that recurs not without end
	// (admitHorizon), once lastEndKnown.
	admitMemo    admitCache
	lastEnd      workload.Time
	lastEndKnown bool
	// noMemo: walk every time, the memo aside (tests compare both).
	noMemo bool
}

// newConstraints returns the engine's state for c on a machine of procs
// processors.
func newConstraints(c *Constraints, procs int) (*constraints, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	cs := &constraints{c: c, procs: procs, wakeAt: -1}
	for i := range c.Reservations {
		r := &c.Reservations[i]
		cs.resv = append(cs.resv, reservationRecurrence(&c.Calendar, r))
		p := r.Procs
		if p <= 0 || p > procs {
			p = procs
		}
		cs.resvPr = append(cs.resvPr, p)
	}
	var which []int
	for k := range c.Reservations {
		if r := &c.Reservations[k]; r.Recur == RecurOnce && len(r.Nodes) == 0 {
			which = append(which, k)
		} else {
			cs.loop = append(cs.loop, k)
		}
	}
	var rest []int
	cs.once, rest = newOnceIndex(c.Reservations, cs.resvPr, which)
	cs.loop = append(cs.loop, rest...)
	slices.Sort(cs.loop)
	cs.initCredit()
	cs.hasLimits = len(c.Limits) > 0
	cs.grpCPUs = make([]int, len(c.Limits))
	return cs, nil
}

// initWindows expands the start windows from trace time from (the first
// submission).
func (cs *constraints) initWindows(from workload.Time) {
	if cs.windows != nil || len(cs.c.Windows) == 0 {
		return
	}
	for i := range cs.c.Windows {
		cs.windows = append(cs.windows, windowRecurrence(&cs.c.Calendar, &cs.c.Windows[i], from))
	}
}

// withheld returns the processors the reservations active at t that job
// j may not use hold, and the next instant after t at which any
// reservation begins or ends.
func (cs *constraints) withheld(j *workload.Job, t workload.Time) (int, workload.Time) {
	held, next := cs.withheldSum(j, t)
	return min(held, cs.procs), next
}

// withheldSum is withheld before the cap at the machine's size.
func (cs *constraints) withheldSum(j *workload.Job, t workload.Time) (int, workload.Time) {
	held, next := 0, workload.Forever
	if cs.once != nil {
		held, next = cs.once.withheld(cs.c.Reservations, cs.resvPr, j, t)
	}
	for _, k := range cs.loop {
		active, n := cs.resv[k].at(t)
		next = min(next, n)
		if active && !cs.c.Reservations[k].Admits(j) {
			held += cs.resvPr[k]
		}
	}
	return held, next
}

// withheldCount is withheld without the reservations on nodes on a
// cluster of nodes (cs.pins): those hold their nodes, not a count (see
// pinnedNodes), and their boundaries are not among the instants it
// returns.
func (cs *constraints) withheldCount(j *workload.Job, t workload.Time) (int, workload.Time) {
	held, next := cs.withheldCountSum(j, t)
	return min(held, cs.procs), next
}

// withheldCountSum is withheldCount before the cap at the machine's size.
func (cs *constraints) withheldCountSum(j *workload.Job, t workload.Time) (int, workload.Time) {
	if cs.pins == nil {
		return cs.withheldSum(j, t)
	}
	held, next := 0, workload.Forever
	if cs.once != nil {
		held, next = cs.once.withheld(cs.c.Reservations, cs.resvPr, j, t)
	}
	for _, k := range cs.loop {
		res := &cs.c.Reservations[k]
		if len(res.Nodes) > 0 {
			continue // its boundaries change no count
		}
		active, n := cs.resv[k].at(t)
		next = min(next, n)
		if active && !res.Admits(j) {
			held += cs.resvPr[k]
		}
	}
	return held, next
}

// withheldNow is withheld (count: withheldCount) less what the running
// jobs the reservations admit hold inside them (see credit.go): what the
// reservations withhold from job j at t given the jobs running now, for
// the policies' plans and the engine's check of a start.
func (cs *constraints) withheldNow(e *Engine, j *workload.Job, t workload.Time, count bool) (int, workload.Time) {
	var held int
	var next workload.Time
	if count {
		held, next = cs.withheldCountSum(j, t)
	} else {
		held, next = cs.withheldSum(j, t)
	}
	if held == 0 {
		return 0, next
	}
	credit, cn := cs.creditFor(e, j, t)
	return min(max(held-credit, 0), cs.procs), min(next, cn)
}

// startFrom returns the earliest instant at or after t at which job j
// (time limit limit) may start by the start windows and, under a
// scheduler cycle, at one of its passes (a tick), Forever if never.
func (cs *constraints) startFrom(j *workload.Job, limit, t workload.Time) workload.Time {
	if len(cs.windows) == 0 && cs.onTick == nil {
		return t
	}
	for n := 0; n < 64 && t < workload.Forever; n++ {
		moved := false
		if cs.onTick != nil {
			// Under a scheduler cycle a job starts only at a pass.
			if k := cs.onTick(t); k != t {
				t, moved = k, true
			}
		}
		for k, r := range cs.windows {
			if !cs.c.Windows[k].appliesTo(j, limit) {
				continue
			}
			if active, next := r.at(t); active {
				t, moved = next, true
			}
		}
		if !moved {
			return t
		}
	}
	return workload.Forever
}

// windowNext returns the next instant after t at which a start window
// opens or closes (Forever: none).
func (cs *constraints) nextBoundary(t workload.Time) workload.Time {
	next := workload.Forever
	if cs.once != nil {
		next = cs.once.nextAfter(t)
	}
	for _, k := range cs.loop {
		_, n := cs.resv[k].at(t)
		next = min(next, n)
	}
	for _, r := range cs.windows {
		_, n := r.at(t)
		next = min(next, n)
	}
	return next
}

// limitsAllow reports whether the limits let job j start now, given the
// running jobs.
func (cs *constraints) limitsAllow(j *workload.Job) bool {
	ok, room := cs.room(&cs.owners[cs.ownerOfJob(j)])
	return ok && j.Procs <= room
}

// growLimits returns how many of add more processors running job j may
// take now under the limits on processors (MaxTRESPerUser=cpu,
// GrpTRES=cpu), which count the processors it holds already.
func (cs *constraints) growLimits(j *workload.Job, add int) int {
	if !cs.hasLimits {
		return add
	}
	for k := range cs.c.Limits {
		l := &cs.c.Limits[k]
		if !l.appliesTo(j) {
			continue
		}
		if j.User >= 0 && l.MaxCPUsPerUser > 0 {
			add = min(add, l.MaxCPUsPerUser-cs.userCPUs.get(j.User))
		}
		if j.User >= 0 && l.MaxCPUs > 0 {
			add = min(add, l.MaxCPUs-cs.owners[cs.ownerOfJob(j)].cpus)
		}
		if l.GrpCPUs > 0 {
			add = min(add, l.GrpCPUs-cs.grpCPUs[k])
		}
	}
	return max(add, 0)
}

// started counts job j as running (add = +1) or ended (−1).
func (cs *constraints) running(j *workload.Job, add int) {
	if !cs.hasLimits {
		return
	}
	cs.userJobs.add(j.User, add)
	cs.userCPUs.add(j.User, add*j.Procs)
	o := &cs.owners[cs.ownerOfJob(j)]
	o.jobs += add
	o.cpus += add * j.Procs
	for k := range cs.c.Limits {
		if cs.c.Limits[k].appliesTo(j) {
			cs.grpCPUs[k] += add * j.Procs
		}
	}
}

// submitted counts job j as submitted and not yet ended (add = +1) or
// ended (−1).
func (cs *constraints) submitted(j *workload.Job, add int) {
	if cs.hasLimits {
		cs.userSubmit.add(j.User, add)
		cs.owners[cs.ownerOfJob(j)].submit += add
	}
}

// runningChanged records that the running jobs changed (a start, an end,
// a preemption, a new prediction): the release instants and Pinned's
// answers are built anew.
func (cs *constraints) runningChanged() {
	cs.cumValid = false
	cs.runGen++
}

// admit returns why job j (time limit limit) is rejected at its
// submission at now, or "" if it is not: a limit's MaxSubmitJobsPerUser
// or MaxWall, a limit no start could meet, or reservations and start
// windows between which it never fits on an empty machine.
func (cs *constraints) admit(j *workload.Job, limit, now workload.Time) string {
	for k := range cs.c.Limits {
		l := &cs.c.Limits[k]
		if !l.appliesTo(j) {
			continue
		}
		switch {
		case l.MaxWall > 0 && (limit <= 0 || limit > l.MaxWall):
			return fmt.Sprintf("limit %d: requested time %s exceeds MaxWall %s s (QOSMaxWallDurationPerJobLimit)", k+1, limitText(limit, cs.c.tick()), workload.FormatTicks(l.MaxWall, int64(cs.c.tick())))
		case l.MaxSubmitPerUser > 0 && j.User >= 0 && cs.userSubmit.get(j.User) >= l.MaxSubmitPerUser:
			return fmt.Sprintf("limit %d: user %d already has %d jobs submitted, MaxSubmitJobsPerUser %d (QOSMaxSubmitJobPerUserLimit)", k+1, j.User, cs.userSubmit.get(j.User), l.MaxSubmitPerUser)
		case l.MaxCPUsPerUser > 0 && j.User >= 0 && j.Procs > l.MaxCPUsPerUser:
			return fmt.Sprintf("limit %d: %d processors exceed MaxTRESPerUser=cpu=%d", k+1, j.Procs, l.MaxCPUsPerUser)
		case l.GrpCPUs > 0 && j.Procs > l.GrpCPUs:
			return fmt.Sprintf("limit %d: %d processors exceed GrpTRES=cpu=%d", k+1, j.Procs, l.GrpCPUs)
		case l.MaxSubmitJobs > 0 && j.User >= 0 && cs.owners[cs.ownerOfJob(j)].submit >= l.MaxSubmitJobs:
			return fmt.Sprintf("limit %d: user %d already has %d jobs submitted under account %d, MaxSubmitJobs %d (AssocMaxSubmitJobLimit)", k+1, j.User, cs.owners[cs.ownerOfJob(j)].submit, j.Group, l.MaxSubmitJobs)
		case l.MaxCPUs > 0 && j.User >= 0 && j.Procs > l.MaxCPUs:
			return fmt.Sprintf("limit %d: %d processors exceed the association's GrpTRES=cpu=%d", k+1, j.Procs, l.MaxCPUs)
		}
	}
	if len(cs.resv) == 0 && len(cs.windows) == 0 {
		return ""
	}
	if cs.admitEarliest(j, limit, cs.plannedRun(limit), now) >= workload.Forever {
		why := fmt.Sprintf("requested time %s never fits between the reservations and start windows it may not use", limitText(limit, cs.c.tick()))
		if cs.onTick != nil {
			why += ", starting at a pass of the scheduler's cycle"
		}
		return why
	}
	return ""
}

// limitText says a time limit, in ticks of 1/tick second, for a message.
func limitText(limit, tick workload.Time) string {
	if limit <= 0 {
		return "unlimited"
	}
	return workload.FormatTicks(limit, int64(tick)) + " s"
}

// plannedRun returns how long admission plans a job with time limit
// limit (≤ 0: none) to run: its limit, or for a job without one the
// calendarHorizon (400 days) over which the engine checks such a job's
// start against the reservations (clearFor, pinOut) and the policies
// plan it. A job without a time limit is so admitted when it fits beside
// the reservations over that horizon — for instance on the processors a
// recurring reservation leaves — and rejected only when no start lets it
// run that long. Slurm does the same: job_test_resv
// (src/slurmctld/reservation.c) tests a job whose time limit is INFINITE
// against the reservations as a job of a year ("if (job_ptr->time_limit
// == INFINITE) duration = 365 * 24 * 60 * 60"), on the nodes no
// overlapping reservation holds.
func (cs *constraints) plannedRun(limit workload.Time) workload.Time {
	if limit > 0 {
		return limit
	}
	return calendarHorizon * cs.c.tick()
}

// admitHorizon returns how far emptyEarliest looks for a start from
// instant from: a year (366 days) past the last reservation's end, or
// past from when some reservation recurs without end.
func (cs *constraints) admitHorizon(from workload.Time) workload.Time {
	if !cs.lastEndKnown {
		cs.lastEnd = -workload.Forever
		for _, r := range cs.resv {
			if e := r.lastEnd(); e < workload.Forever {
				cs.lastEnd = max(cs.lastEnd, e)
			}
		}
		cs.lastEndKnown = true
	}
	return max(from, cs.lastEnd) + 366*86400*cs.c.tick()
}

// emptyEarliest returns the earliest start t in [from, horizon) of job j
// (time limit limit, planned over dur; see plannedRun) on an empty
// machine, Forever if there is none: its start windows let it start at
// t, and at every instant of [t, t+dur) the machine's processors less
// those the reservations it may not use withhold (and, on a cluster of
// nodes, less the nodes of those whose occurrences overlap the run) are
// at least its own.
//
// The walk never skips a start that fits: a start blocked at instant u
// (a shortage) stays blocked for every later start up to u, and past u
// until the reservations next change (or, on nodes, the held set
// shrinks). So its answer is the earliest fitting start of [from,
// horizon), whatever from is — which is what lets admitEarliest reuse
// its answers.
func (cs *constraints) emptyEarliest(j *workload.Job, limit, dur, from, horizon workload.Time) workload.Time {
	t := from
	for t < horizon {
		s := cs.startFrom(j, limit, t)
		if s >= workload.Forever {
			return workload.Forever
		}
		t = s
		end := satAddTime(t, dur)
		// Walk [t, end) through the reservations. On a cluster of nodes
		// those on nodes hold their nodes for the whole run.
		pinned, shrink := cs.pinnedNodes(j, t, end)
		u, ok := t, true
		for u < end {
			held, next := cs.withheldCount(j, u)
			if cs.procs-held-pinned < j.Procs {
				ok = false
				t = next
				if pinned > 0 && shrink > s {
					t = min(t, shrink)
				}
				break
			}
			if next >= workload.Forever {
				break
			}
			u = next
		}
		if ok {
			return t
		}
	}
	return workload.Forever
}

// admitCache memoizes admission's walks (emptyEarliest) for the jobs
// of one admission class: the same reservations they may not use, the
// same start windows that hold for them, the same processors and
// planned run. Submissions come in time order, and most jobs of a class
// either fit at once or never do; the walk of each costs a visit of
// every occurrence of every recurring reservation over its run, or over
// a year. The cache keeps two facts per class, both exact:
//
//   - refused[class] = to: no start of [some earlier instant, to) fits
//     (a walk found none before its horizon, to). A later submission at
//     now < to then needs only the starts of [to, its horizon): none
//     when its horizon is not past to, else a walk from to. Since the
//     walk's answer is the earliest fitting start whatever its origin,
//     this is the walk from now's answer.
//   - clear[reservations].bySlack[slack]: over [from, to) the stretches
//     where the reservations a class's jobs may not use withhold more
//     than slack processors (the machine less the job's own and its held
//     nodes'). A job that may start at now by its start windows fits at
//     now exactly when none meets [now, now+dur): the stretches answer
//     from memory as far as the walks reached and are walked on from to
//     only, so a class of jobs without a time limit (400 days planned)
//     walks each occurrence once, not once a job, and the plans'
//     questions from any instant (firstOver) find the first shortage
//     after it by a search.
//
// Both are memos of functions of the constraints alone, never of the
// queue, so a resumed run that starts them empty gives the same answers.
type admitCache struct {
	refused map[classKey]workload.Time
	clear   map[resvSet]*spanTable
	last    *spanTable // the table looked up last (most jobs share one)
	// sets numbers the sets beyond the first 64 bits (resvSet.more).
	sets map[string]int
	// keys remembers resvKey's answers beyond 64 reservations, by what
	// admission reads of a job: a walk over thousands of reservations at
	// every plan cost more than the plan.
	keys map[admitWho]resvSet
}

// admitWho is what Reservation.Admits reads of a job.
type admitWho struct{ user, group, partition int }

// resvSet is a set of reservations (or start windows), one bit each: the
// first 64 in mask, and any beyond them as a number the cache gives each
// distinct rest (0: none, as in nearly every scenario), so that a key is
// a few words and hashes as such.
type resvSet struct {
	mask uint64
	more int
}

// classKey is a class of jobs for admission: the reservations they may not
// use, the start windows that apply to them, their processors and run.
type classKey struct {
	resv, windows resvSet
	procs         int
	dur           workload.Time
}

// spanTable holds the clear spans of one set of reservations, by slack.
type spanTable struct {
	set     resvSet
	bySlack []*shortSpans
	// most is the most its reservations withhold at once (all of them
	// active): a slack of at least that is never short.
	most int
}

// bitSet returns the set of the n bits for which in reports true.
func (cs *constraints) bitSet(n int, in func(i int) bool) resvSet {
	var r resvSet
	for i := 0; i < min(n, 64); i++ {
		if in(i) {
			r.mask |= 1 << uint(i)
		}
	}
	if n > 64 {
		more := make([]byte, (n-64+7)/8)
		for i := 64; i < n; i++ {
			if in(i) {
				more[(i-64)/8] |= 1 << uint((i-64)%8)
			}
		}
		ac := &cs.admitMemo
		if ac.sets == nil {
			ac.sets = map[string]int{}
		}
		id, ok := ac.sets[string(more)]
		if !ok {
			id = len(ac.sets) + 1
			ac.sets[string(more)] = id
		}
		r.more = id
	}
	return r
}

// resvKey returns the set of reservations job j may not use.
func (cs *constraints) resvKey(j *workload.Job) resvSet {
	rs := cs.c.Reservations
	if len(rs) <= 64 {
		var m uint64
		for i := range rs {
			if !rs[i].Admits(j) {
				m |= 1 << uint(i)
			}
		}
		return resvSet{mask: m}
	}
	ac := &cs.admitMemo
	who := admitWho{j.User, j.Group, j.Partition}
	if k, ok := ac.keys[who]; ok {
		return k
	}
	k := cs.bitSet(len(rs), func(i int) bool { return !rs[i].Admits(j) })
	if ac.keys == nil {
		ac.keys = map[admitWho]resvSet{}
	}
	ac.keys[who] = k
	return k
}

// admitEarliest is emptyEarliest(j, limit, dur, now, admitHorizon(now))
// answered from the admission cache where it can be (see admitCache).
func (cs *constraints) admitEarliest(j *workload.Job, limit, dur, now workload.Time) workload.Time {
	if cs.noMemo {
		return cs.emptyEarliest(j, limit, dur, now, cs.admitHorizon(now))
	}
	ac := &cs.admitMemo
	if ac.refused == nil {
		ac.refused = map[classKey]workload.Time{}
		ac.clear = map[resvSet]*spanTable{}
	}
	h := cs.admitHorizon(now)
	// The class's key: reservations, start windows, processors, run.
	ws := cs.c.Windows
	key := classKey{
		resv:    cs.resvKey(j),
		windows: cs.bitSet(len(ws), func(i int) bool { return ws[i].appliesTo(j, limit) }),
		procs:   j.Procs,
		dur:     dur,
	}
	if to, ok := ac.refused[key]; ok && now < to {
		if h <= to {
			return workload.Forever
		}
		r := cs.emptyEarliest(j, limit, dur, to, h)
		if r >= workload.Forever {
			ac.refused[key] = h
		}
		return r
	}
	// Does it fit at once?
	if cs.startFrom(j, limit, now) == now {
		end := satAddTime(now, dur)
		pinned, _ := cs.pinnedNodes(j, now, end)
		if slack := cs.procs - pinned - j.Procs; slack >= 0 {
			if ok, _, _ := cs.clearOver(j, key.resv, slack, now, end); ok {
				return now
			}
		}
	}
	r := cs.emptyEarliest(j, limit, dur, now, h)
	if r >= workload.Forever {
		ac.refused[key] = h
	}
	return r
}

// clearOver reports whether, at every instant of [a, b), the
// reservations job j may not use (withheldCount's; set names them)
// withhold at most slack processors, from the span the cache
// keeps for key and walked on from its end; if not, it returns the first
// instant of [a, b) at which they withhold more, and an instant after it
// up to which they go on withholding more (the end of the shortage
// known).
func (cs *constraints) clearOver(j *workload.Job, set resvSet, slack int, a, b workload.Time) (bool, workload.Time, workload.Time) {
	if slack < 0 {
		// No reservation can withhold fewer than none.
		if a < b {
			return false, a, b
		}
		return true, workload.Forever, workload.Forever
	}
	ac := &cs.admitMemo
	tb := ac.last
	if tb == nil || tb.set != set {
		if ac.clear == nil {
			ac.refused = map[classKey]workload.Time{}
			ac.clear = map[resvSet]*spanTable{}
		}
		if tb = ac.clear[set]; tb == nil {
			tb = &spanTable{set: set, most: cs.mostWithheld(j)}
			ac.clear[set] = tb
		}
		ac.last = tb
	}
	if slack >= tb.most {
		return true, workload.Forever, workload.Forever
	}
	if slack >= len(tb.bySlack) {
		tb.bySlack = append(tb.bySlack, make([]*shortSpans, slack+1-len(tb.bySlack))...)
	}
	sp := tb.bySlack[slack]
	if sp == nil {
		sp = &shortSpans{from: a, to: a}
		tb.bySlack[slack] = sp
	}
	if a < sp.from {
		// A question from before the first: walk back to it.
		var before []stretch
		for u := a; u < sp.from; {
			held, next := cs.withheldCount(j, u)
			if held > slack {
				before = append(before, stretch{u, next})
			}
			u = next
		}
		sp.prepend(before)
		sp.from = a
	}
	if e := cs.view.e; e != nil {
		sp.trim(e.now)
	}
	// The first stretch known to reach past a: most questions come in
	// time order, so the last answer's stretch is tried first.
	k := sp.hint
	if k >= len(sp.short) || sp.short[k].hi <= a || (k > 0 && sp.short[k-1].hi > a) {
		k = sort.Search(len(sp.short), func(k int) bool { return sp.short[k].hi > a })
		sp.hint = k
	}
	if k < len(sp.short) {
		if at := max(sp.short[k].lo, a); at < b {
			return false, at, sp.short[k].hi
		}
		return true, workload.Forever, workload.Forever
	}
	// None known: walk on from where the walks stopped.
	for sp.to < b {
		u := sp.to
		held, next := cs.withheldCount(j, u)
		sp.to = next
		if held <= slack {
			continue
		}
		sp.add(u, next)
		if next > a {
			return false, max(u, a), next
		}
	}
	return true, workload.Forever, workload.Forever
}

// shortSpans is, for one set of reservations and one slack, what the
// walks learnt of [from, to): the stretches in it over which the
// reservations withhold more than the slack, in time order.
type shortSpans struct {
	from, to workload.Time
	short    []stretch
	// hint is the index in short of the last answer's stretch.
	hint int
}

// stretch is the instants [lo, hi).
type stretch struct{ lo, hi workload.Time }

// add records a shortage over [lo, hi), after every one recorded.
func (sp *shortSpans) add(lo, hi workload.Time) {
	if n := len(sp.short); n > 0 && sp.short[n-1].hi == lo {
		sp.short[n-1].hi = hi
		return
	}
	sp.short = append(sp.short, stretch{lo, hi})
}

// prepend puts the stretches found before from, in time order, ahead of
// those known, joining those that meet.
func (sp *shortSpans) prepend(before []stretch) {
	if len(before) == 0 {
		return
	}
	all := append(before, sp.short...)
	w := 0
	for _, x := range all {
		if w > 0 && all[w-1].hi >= x.lo {
			all[w-1].hi = max(all[w-1].hi, x.hi)
			continue
		}
		all[w] = x
		w++
	}
	sp.short = all[:w]
}

// trim forgets, once they are many, the stretches that end by now, the
// clock's instant: no question comes from before it, and the clock only
// moves on.
func (sp *shortSpans) trim(now workload.Time) {
	if len(sp.short) < 256 || sp.short[len(sp.short)/2].hi > now || sp.from > now {
		return
	}
	k := sort.Search(len(sp.short), func(k int) bool { return sp.short[k].hi > now })
	sp.short = append(sp.short[:0], sp.short[k:]...)
	sp.from = now
}

// mostWithheld returns the most the reservations job j may not use
// (withheldCount's) withhold at once: all of them active.
func (cs *constraints) mostWithheld(j *workload.Job) int {
	most := 0
	for k := range cs.c.Reservations {
		if r := &cs.c.Reservations[k]; !r.Admits(j) && (cs.pins == nil || len(r.Nodes) == 0) {
			most += cs.resvPr[k]
		}
	}
	return min(most, cs.procs)
}

// firstOver returns the first instant of [a, b) at which the
// reservations job j may not use (withheldCount's) withhold more than
// slack processors, and an instant after it up to which they go on
// withholding more (no run of j on slack more processors than its own
// starts before it: its first instant would be short); Forever twice
// when there is none. It answers from the spans admission keeps
// (clearOver), so a plan of a job without a time limit over 400 days
// walks each occurrence once per class, not once per plan.
func (cs *constraints) firstOver(j *workload.Job, slack int, a, b workload.Time) (workload.Time, workload.Time) {
	ok, at, until := cs.clearOver(j, cs.resvKey(j), slack, a, b)
	if ok || at >= b {
		return workload.Forever, workload.Forever
	}
	return at, until
}

// blockedFor reports whether no run of job j of at least dur (8 days
// or more) starting at or after from is clear of instants at which the
// reservations it may not use (withheldCount's) withhold more than slack
// processors: one of them recurs without end, its occurrences at most a
// week apart from its first, which starts by from, and holds more than
// slack processors by itself.
func (cs *constraints) blockedFor(j *workload.Job, slack int, from, dur workload.Time) bool {
	if dur < 8*86400*cs.c.tick() {
		return false
	}
	for k := range cs.c.Reservations {
		r := &cs.c.Reservations[k]
		if r.Recur == RecurOnce || r.Until < workload.Forever || r.Start > from || cs.resvPr[k] <= slack ||
			(cs.pins != nil && len(r.Nodes) > 0) || r.Admits(j) {
			continue
		}
		return true
	}
	return false
}

// dayNames are the weekdays' short names, Sunday first (time.Weekday).
var dayNames = [...]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

// ParseDays parses a set of weekdays: "*" (every day), a range such as
// "Mon-Fri" (which may wrap, "Fri-Mon"), or a comma-separated list of
// days and ranges ("Sat,Sun"). It returns the mask of StartWindow.Days.
func ParseDays(s string) (uint8, error) {
	if s == "*" {
		return allDays, nil
	}
	day := func(n string) (int, bool) {
		for i, d := range dayNames {
			if strings.EqualFold(n, d) {
				return i, true
			}
		}
		return 0, false
	}
	var mask uint8
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(strings.TrimSpace(part), "-")
		from, ok1 := day(a)
		to, ok2 := from, true
		if isRange {
			to, ok2 = day(b)
		}
		if !ok1 || !ok2 {
			return 0, fmt.Errorf("days %q: want *, a range such as Mon-Fri or a list such as Sat,Sun", s)
		}
		for d := from; ; d = (d + 1) % 7 {
			mask |= 1 << uint(d)
			if d == to {
				break
			}
		}
	}
	return mask, nil
}

// ParseHours parses a window of local time "HH:MM-HH:MM" (24:00 allowed
// as an end) into seconds after midnight; an end at or before the start
// wraps midnight.
func ParseHours(s string) (from, to int, err error) {
	clock := func(c string) (int, bool) {
		h, m, ok := strings.Cut(strings.TrimSpace(c), ":")
		hh, e1 := strconv.Atoi(h)
		mm, e2 := strconv.Atoi(m)
		if !ok || e1 != nil || e2 != nil || hh < 0 || hh > 24 || mm < 0 || mm > 59 || (hh == 24 && mm != 0) || len(m) != 2 {
			return 0, false
		}
		return hh*3600 + mm*60, true
	}
	a, b, ok := strings.Cut(s, "-")
	f, ok1 := clock(a)
	t, ok2 := clock(b)
	if !ok || !ok1 || !ok2 || f == 86400 {
		return 0, 0, fmt.Errorf("hours %q: want a local time window such as 07:00-16:00 (it may wrap midnight: 16:00-07:00)", s)
	}
	return f, t, nil
}

// counts are per-user counts: a slice for the user numbers logs use (small
// integers), a map beyond it.
type counts struct {
	s []int
	m map[int]int
}

// maxSliceUser bounds the user numbers counts keeps in its slice.
const maxSliceUser = 1 << 20

// get returns user u's count.
func (c *counts) get(u int) int {
	if u >= 0 && u < len(c.s) {
		return c.s[u]
	}
	if u >= 0 && u < maxSliceUser {
		return 0
	}
	return c.m[u]
}

// add adds d to user u's count.
func (c *counts) add(u, d int) {
	if u >= 0 && u < maxSliceUser {
		if u >= len(c.s) {
			c.s = append(c.s, make([]int, u+1-len(c.s))...)
		}
		c.s[u] += d
		return
	}
	if c.m == nil {
		c.m = map[int]int{}
	}
	c.m[u] += d
}

// reset sets every count to 0.
func (c *counts) reset() {
	clear(c.s)
	clear(c.m)
}

// satAddTime returns t+d, or workload.Forever when that would pass it.
func satAddTime(t, d workload.Time) workload.Time {
	if d >= workload.Forever-t {
		return workload.Forever
	}
	return t + d
}
