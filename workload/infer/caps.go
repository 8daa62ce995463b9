package infer

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/schedsim/schedsim/workload"
)

// userState is one user's concurrency during the sweep.
type userState struct {
	running, runProcs   int
	maxJobs, maxProcs   int
	queued              []int // processor counts of the queued jobs, ascending
	holdJobs, holdProcs workload.Time
	epJobs, epProcs     int
	inJobs, inProcs     bool
}

// event is a recorded submission, start or end.
type event struct {
	t     workload.Time
	kind  int8 // 0 end, 1 submit, 2 start: ends first, so a start at another's end does not overlap it
	procs int
	user  int
}

func events(jobs []Job) []event {
	evs := make([]event, 0, 3*len(jobs))
	for _, j := range jobs {
		evs = append(evs, event{j.Submit, 1, j.Procs, j.User}, event{j.Start, 2, j.Procs, j.User}, event{j.End, 0, j.Procs, j.User})
	}
	slices.SortStableFunc(evs, func(a, b event) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.kind, b.kind)
	})
	return evs
}

// caps finds per-user concurrency caps: users whose running jobs (or
// processors) sat at their maximum for long, in many episodes, while a
// job of theirs waited that would have fit the idle processors.
func (r *Result) caps(jobs []Job, opt Options) {
	evs := events(jobs)
	users := map[int]*userState{}
	get := func(u int) *userState {
		s := users[u]
		if s == nil {
			s = &userState{}
			users[u] = s
		}
		return s
	}
	// Pass 1: each user's most running jobs and processors.
	for _, e := range evs {
		s := get(e.user)
		switch e.kind {
		case 0:
			s.running--
			s.runProcs -= e.procs
		case 2:
			s.running++
			s.runProcs += e.procs
			s.maxJobs, s.maxProcs = max(s.maxJobs, s.running), max(s.maxProcs, s.runProcs)
		}
	}
	// Pass 2: sample, every CapSampleSec, the users with queued jobs.
	waiting := map[int]*userState{}
	busy := 0
	i := 0
	step := opt.CapSampleSec
	for t := evs[0].t; i < len(evs); t += step {
		for ; i < len(evs) && evs[i].t <= t; i++ {
			e := evs[i]
			s := users[e.user]
			switch e.kind {
			case 0:
				s.running--
				s.runProcs -= e.procs
				busy -= e.procs
			case 1:
				k, _ := slices.BinarySearch(s.queued, e.procs)
				s.queued = slices.Insert(s.queued, k, e.procs)
				waiting[e.user] = s
			case 2:
				k, _ := slices.BinarySearch(s.queued, e.procs)
				s.queued = slices.Delete(s.queued, k, k+1)
				if len(s.queued) == 0 {
					delete(waiting, e.user)
					s.inJobs, s.inProcs = false, false
				}
				s.running++
				s.runProcs += e.procs
				busy += e.procs
			}
		}
		free := r.Procs - busy
		// Each user's sums are its own: the order of the map does not
		// reach them.
		for _, s := range waiting {
			fits := s.queued[0] <= free
			hj := fits && s.running == s.maxJobs
			hp := fits && !hj && s.runProcs+s.queued[0] > s.maxProcs
			if hj {
				s.holdJobs += step
				if !s.inJobs {
					s.epJobs++
				}
			}
			if hp {
				s.holdProcs += step
				if !s.inProcs {
					s.epProcs++
				}
			}
			s.inJobs, s.inProcs = hj, hp
		}
	}
	ids := make([]int, 0, len(users))
	for u := range users {
		ids = append(ids, u)
	}
	slices.Sort(ids)
	capped := func(hold workload.Time, ep int) bool { return hold >= opt.CapMinHoldSec && ep >= opt.CapMinEpisodes }
	// Shared caps: a value K that capped users reach (within CapShareTol
	// below it) and no user exceeds.
	shared := func(val func(*userState) int, held func(*userState) bool) (int, []int) {
		var vals []int
		for _, u := range ids {
			if held(users[u]) {
				vals = append(vals, val(users[u]))
			}
		}
		slices.Sort(vals)
		vals = slices.Compact(vals)
		top := 0
		for _, u := range ids {
			top = max(top, val(users[u]))
		}
		best, who := 0, []int(nil)
		for _, k := range vals {
			if k < top {
				continue // someone ran more
			}
			var group []int
			for _, u := range ids {
				if v := val(users[u]); held(users[u]) && v <= k && float64(v) >= (1-opt.CapShareTol)*float64(k) {
					group = append(group, u)
				}
			}
			if len(group) >= opt.CapMinUsers && len(group) > len(who) {
				best, who = k, group
			}
		}
		return best, who
	}
	jobsHeld := func(s *userState) bool { return capped(s.holdJobs, s.epJobs) }
	procsHeld := func(s *userState) bool { return capped(s.holdProcs, s.epProcs) }
	kJobs, allJobs := shared(func(s *userState) int { return s.maxJobs }, jobsHeld)
	kProcs, allProcs := shared(func(s *userState) int { return s.maxProcs }, procsHeld)
	if kJobs > 0 {
		r.Limits = append(r.Limits, Limit{Users: []string{"*"}, MaxJobs: kJobs, Evidence: []string{
			fmt.Sprintf("evidence: %d users (%s) each ran at most %d jobs at once, within %.0f %% below it, and sat at their maximum for long with a job of theirs queued that would have fit the idle processors; no user ever ran more.",
				len(allJobs), userList(allJobs), kJobs, 100*opt.CapShareTol)}})
	}
	if kProcs > 0 {
		r.Limits = append(r.Limits, Limit{Users: []string{"*"}, MaxCPUs: kProcs, Evidence: []string{
			fmt.Sprintf("evidence: %d users (%s) each held at most %d processors at once, within %.0f %% below it, and sat at their maximum for long with a job of theirs queued that would have fit the idle processors; no user ever held more.",
				len(allProcs), userList(allProcs), kProcs, 100*opt.CapShareTol)}})
	}
	for _, u := range ids {
		s := users[u]
		l := Limit{Users: []string{strconv.Itoa(u)}}
		if jobsHeld(s) && !slices.Contains(allJobs, u) {
			l.MaxJobs = s.maxJobs
			l.Evidence = append(l.Evidence, fmt.Sprintf("evidence: user %d never ran more than %d job(s) at once, and sat at %d for %.0f hours in %d episodes with a job of theirs queued that would have fit the idle processors.",
				u, s.maxJobs, s.maxJobs, float64(s.holdJobs)/3600, s.epJobs))
		}
		if procsHeld(s) && !slices.Contains(allProcs, u) {
			l.MaxCPUs = s.maxProcs
			l.Evidence = append(l.Evidence, fmt.Sprintf("evidence: user %d never held more than %d processors at once, and a job of theirs that would have taken it past that waited for %.0f hours in %d episodes while it would have fit the idle processors.",
				u, s.maxProcs, float64(s.holdProcs)/3600, s.epProcs))
		}
		if l.MaxJobs > 0 || l.MaxCPUs > 0 {
			r.Limits = append(r.Limits, l)
		}
	}
	if len(r.Limits) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("per-user caps: none (no user sat at its most running jobs or processors for %s or more, in %d episodes or more, while a job of theirs waited that would have fit)",
			durationText(opt.CapMinHoldSec), opt.CapMinEpisodes))
	}
}

// userList writes up to ten user numbers.
func userList(us []int) string {
	var s string
	for i, u := range us {
		if i == 10 {
			return s + ", …"
		}
		if i > 0 {
			s += ", "
		}
		s += strconv.Itoa(u)
	}
	return s
}

// sortedKeys returns m's keys, ascending.
func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
