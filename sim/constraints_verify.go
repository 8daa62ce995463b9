package sim

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// constraintsJSON is Constraints as summary.json records them: the
// calendar as its epoch and zone name.
type constraintsJSON struct {
	Epoch        int64         `json:"epoch"`
	Zone         string        `json:"zone"`
	Reservations []Reservation `json:"reservations,omitempty"`
	Windows      []StartWindow `json:"start_windows,omitempty"`
	Limits       []Limit       `json:"limits,omitempty"`
}

// MarshalJSON implements json.Marshaler: the calendar as its epoch and
// zone name, the rules as they are.
func (c *Constraints) MarshalJSON() ([]byte, error) {
	return json.Marshal(constraintsJSON{Epoch: c.Calendar.Epoch, Zone: c.Calendar.ZoneName(), Reservations: c.Reservations, Windows: c.Windows, Limits: c.Limits})
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *Constraints) UnmarshalJSON(b []byte) error {
	var x constraintsJSON
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	loc := time.UTC
	if x.Zone != "" && x.Zone != "UTC" {
		l, err := workload.ParseZone(x.Zone)
		if err != nil {
			return err
		}
		loc = l
	}
	*c = Constraints{Calendar: workload.Calendar{Epoch: x.Epoch, Loc: loc}, Reservations: x.Reservations, Windows: x.Windows, Limits: x.Limits}
	return c.Validate()
}

// ConstraintRejection reports whether reason is one the engine gives a job
// it rejects for Config.Constraints (a limit, or reservations and start
// windows it never fits between).
func ConstraintRejection(reason string) bool {
	return strings.HasPrefix(reason, "limit ") || strings.Contains(reason, "never fits between the reservations")
}

// verifyConstraints checks the jobs that ran (ran: indices into outs)
// against c on a machine of procs processors: no job started outside its
// start windows, asked for more than a MaxWall, or ran over a limit of
// running jobs or processors, and at every instant of a reservation the
// jobs it does not admit held at most the processors it leaves. Who
// (users, accounts, partitions, queues) comes from the outcomes' jobs;
// noWho says they are unknown (a per-job table that does not record
// them): only the rules that hold for every job are then checked. The
// jobs of time-shared queues (shared, nil for none) are held only by the
// start windows and the reservations of the whole machine: they are left
// out of the other reservations' counts, and no limit is checked at their
// starts (they count in the others').
func verifyConstraints(c *Constraints, procs int, outs []Outcome, ran []int, noWho bool, shared func(*workload.Job) bool) []Violation {
	isShared := func(j *workload.Job) bool { return shared != nil && shared(j) }
	var vs []Violation
	add := func(j *workload.Job, rule, format string, a ...any) {
		vs = append(vs, Violation{JobID: j.ID, Rule: rule, Msg: fmt.Sprintf(format, a...)})
	}
	cs, err := newConstraints(c, procs)
	if err != nil {
		return []Violation{{Rule: "constraints", Msg: err.Error()}}
	}
	if len(ran) == 0 {
		return nil
	}
	first, last := workload.Forever, workload.Time(0)
	for _, i := range ran {
		first, last = min(first, outs[i].Job.Submit), max(last, outs[i].End)
	}
	cs.initWindows(first)
	// Start windows: a job starts where its windows let it.
	for _, i := range ran {
		o := &outs[i]
		if noWho && len(cs.windows) > 0 {
			if any := anyFiltered(c.Windows); any {
				continue // the window holds for some partitions or queues only
			}
		}
		// A window's MaxProcs holds for the processors the job started
		// with (a growing job's first step).
		j := o.Job
		if len(o.Steps) > 0 {
			j.Procs = o.Steps[0].Procs
		}
		if s := cs.startFrom(&j, j.Estimate, o.Start); s != o.Start {
			add(&o.Job, "start-window", "started at %d inside a start window for its requested time %s or its %d processors (it could start from %d)", o.Start, limitText(j.Estimate, c.tick()), j.Procs, s)
		}
	}
	// Reservations: at every instant of an occurrence, the jobs it does
	// not admit hold at most what it leaves.
	byStart := append([]int(nil), ran...)
	sort.SliceStable(byStart, func(a, b int) bool { return outs[byStart[a]].Start < outs[byStart[b]].Start })
	for k := range c.Reservations {
		r := &c.Reservations[k]
		if noWho && !r.Maint {
			continue
		}
		rec := cs.resv[k]
		leave := procs - cs.resvPr[k]
		for t := first; t < last; {
			active, next := rec.at(t)
			if !active {
				if next >= workload.Forever {
					break
				}
				t = next
				continue
			}
			from, to := t, next
			// The jobs not admitted that overlap [from, to), by a sweep.
			type edge struct {
				at    workload.Time
				procs int
			}
			var edges []edge
			var offenders []*Outcome
			for _, i := range byStart {
				o := &outs[i]
				if o.Start >= to {
					break
				}
				if o.End <= from || r.Admits(&o.Job) || (isShared(&o.Job) && leave > 0) {
					continue
				}
				for _, sg := range runSegments(o, false) {
					if sg.to <= from || sg.from >= to {
						continue
					}
					edges = append(edges, edge{max(sg.from, from), sg.procs}, edge{min(sg.to, to), -sg.procs})
				}
				offenders = append(offenders, o)
			}
			sort.SliceStable(edges, func(a, b int) bool {
				return edges[a].at < edges[b].at || (edges[a].at == edges[b].at && edges[a].procs < edges[b].procs)
			})
			held := 0
			for _, e := range edges {
				held += e.procs
				if held > leave {
					o := offenders[0]
					add(&o.Job, "reservation", "reservation %q over %d-%d leaves %d processors to the jobs it does not admit; at %d they held %d (this job runs %d-%d)", r.Name, from, to, leave, e.at, held, o.Start, o.End)
					break
				}
			}
			t = to
		}
	}
	// Limits.
	for k := range c.Limits {
		l := &c.Limits[k]
		if noWho && !l.AllUsers {
			continue // whom it holds for is unknown
		}
		if l.MaxWall > 0 {
			for _, i := range ran {
				o := &outs[i]
				if l.appliesTo(&o.Job) && !isShared(&o.Job) && (o.Job.Estimate <= 0 || o.Job.Estimate > l.MaxWall) {
					add(&o.Job, "limit", "limit %d: ran with requested time %s over MaxWall %s s", k+1, limitText(o.Job.Estimate, c.tick()), workload.FormatTicks(l.MaxWall, int64(c.tick())))
				}
			}
		}
		// A job's edges: +1 job and its processors at its start, −1 and
		// what it holds at its end, and under Grow the processors each
		// growth adds.
		type edge struct {
			at   workload.Time
			up   bool
			o    *Outcome
			user int
			acct int
			jobs int
			cpus int
		}
		var edges []edge
		for _, i := range ran {
			o := &outs[i]
			if !l.appliesTo(&o.Job) {
				continue
			}
			if len(o.Runs) > 0 {
				// A preempted job counts while it runs or is suspended,
				// not between a requeue and its new start.
				for _, sg := range runSegments(o, true) {
					edges = append(edges, edge{sg.from, true, o, o.Job.User, o.Job.Group, 1, sg.procs}, edge{sg.to, false, o, o.Job.User, o.Job.Group, -1, -sg.procs})
				}
				continue
			}
			sgs := segments(o)
			held := 0
			for k, sg := range sgs {
				d := 0
				if k == 0 {
					d = 1
				}
				edges = append(edges, edge{sg.from, true, o, o.Job.User, o.Job.Group, d, sg.procs - held})
				held = sg.procs
			}
			edges = append(edges, edge{o.End, false, o, o.Job.User, o.Job.Group, -1, -held})
		}
		sort.SliceStable(edges, func(a, b int) bool {
			return edges[a].at < edges[b].at || (edges[a].at == edges[b].at && !edges[a].up && edges[b].up)
		})
		jobs, cpus := map[int]int{}, map[int]int{}
		ajobs, acpus := map[ownerKey]int{}, map[ownerKey]int{} // per user association
		grp := 0
		for _, e := range edges {
			a := ownerKey{e.user, e.acct}
			jobs[e.user] += e.jobs
			cpus[e.user] += e.cpus
			ajobs[a] += e.jobs
			acpus[a] += e.cpus
			grp += e.cpus
			if !e.up || isShared(&e.o.Job) {
				continue
			}
			switch {
			case e.user < 0 && l.GrpCPUs == 0:
			case e.user < 0:
				if grp > l.GrpCPUs {
					add(&e.o.Job, "limit", "limit %d: the association held %d processors at %d, GrpTRES=cpu=%d", k+1, grp, e.at, l.GrpCPUs)
				}
			case !noWho && l.MaxJobsPerUser > 0 && jobs[e.user] > l.MaxJobsPerUser:
				add(&e.o.Job, "limit", "limit %d: user %d ran %d jobs at %d, MaxJobsPerUser %d", k+1, e.user, jobs[e.user], e.at, l.MaxJobsPerUser)
			case !noWho && l.MaxCPUsPerUser > 0 && cpus[e.user] > l.MaxCPUsPerUser:
				add(&e.o.Job, "limit", "limit %d: user %d held %d processors at %d, MaxTRESPerUser=cpu=%d", k+1, e.user, cpus[e.user], e.at, l.MaxCPUsPerUser)
			case !noWho && l.MaxJobs > 0 && ajobs[a] > l.MaxJobs:
				add(&e.o.Job, "limit", "limit %d: user %d ran %d jobs under account %d at %d, MaxJobs %d", k+1, e.user, ajobs[a], e.acct, e.at, l.MaxJobs)
			case !noWho && l.MaxCPUs > 0 && acpus[a] > l.MaxCPUs:
				add(&e.o.Job, "limit", "limit %d: user %d held %d processors under account %d at %d, the association's GrpTRES=cpu=%d", k+1, e.user, acpus[a], e.acct, e.at, l.MaxCPUs)
			case l.GrpCPUs > 0 && grp > l.GrpCPUs:
				add(&e.o.Job, "limit", "limit %d: the association held %d processors at %d, GrpTRES=cpu=%d", k+1, grp, e.at, l.GrpCPUs)
			}
		}
	}
	return vs
}

// segment is an interval over which a job held a number of processors.
type segment struct {
	from, to workload.Time
	procs    int
}

// segments returns the intervals of o's run with the processors it held
// in each: its whole run on its processor count, or under Grow one per
// growth step.
func segments(o *Outcome) []segment {
	if len(o.Steps) == 0 {
		return []segment{{o.Start, o.End, o.Job.Procs}}
	}
	sgs := make([]segment, 0, len(o.Steps))
	for k, st := range o.Steps {
		to := o.End
		if k+1 < len(o.Steps) {
			to = o.Steps[k+1].At
		}
		sgs = append(sgs, segment{st.At, to, st.Procs})
	}
	return sgs
}

// runSegments returns the stretches job o held its processors: its runs
// if it was preempted (Config.Preempt) — with suspended, a suspension
// joined to the runs around it, as a suspended job still counts against
// the limits; a job killed while suspended counts to its end —, else
// segments.
func runSegments(o *Outcome, suspended bool) []segment {
	if len(o.Runs) == 0 {
		return segments(o)
	}
	var sgs []segment
	for k, r := range o.Runs {
		if suspended && k > 0 && o.Preemptions[k-1].Mode == policy.PreemptSuspend {
			sgs[len(sgs)-1].to = r.To
			continue
		}
		sgs = append(sgs, segment{r.From, r.To, o.Job.Procs})
	}
	if n := len(o.Preemptions); suspended && n == len(o.Runs) && o.Preemptions[n-1].Mode == policy.PreemptSuspend {
		sgs[len(sgs)-1].to = o.End
	}
	return sgs
}

// anyFiltered reports whether some window holds for given partitions or
// queues only.
func anyFiltered(ws []StartWindow) bool {
	for _, w := range ws {
		if w.Partition >= 0 || w.Queue >= 0 {
			return true
		}
	}
	return false
}
