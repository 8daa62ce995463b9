package sim

import (
	"math"
	"slices"

	"github.com/schedsim/schedsim/workload"
)

// Owners: the limits of Constraints hold for a job by its user (SWF field
// 12) and account (field 13) and its processors alone, so the engine keeps
// the jobs of each (user, account) pair — a user association in Slurm's
// terms — together. Whether a limit holds a job is then one comparison
// with its owner's room, and an owner whose every queued job a limit holds
// costs a pass nothing until one of its (or its association's) jobs ends:
// the pass skips it whole instead of looking at each of its jobs.

// owner is the state of one (user, account) pair.
type owner struct {
	user, account int
	// limits are the indices of the limits that hold for its jobs.
	limits []int32
	// jobs, cpus: its running jobs and their processors; submit: its jobs
	// submitted and not ended (queued or running).
	jobs, cpus, submit int
	// q holds its queued jobs in queue order (by Seq) for the fast pass;
	// entries of jobs that left the queue are dropped when met.
	q []ownerEntry
	// minProcs is at most the fewest processors among its queued jobs.
	minProcs int
	// held: at the last pass, a limit held every one of its queued jobs,
	// and each was marked PendingLimit.
	held bool
	// listed: it is in constraints.active.
	listed bool
}

// ownerEntry is a queued job in its owner's list.
type ownerEntry struct {
	id  int32
	seq int64
}

// ownerKey identifies an owner.
type ownerKey struct{ user, account int }

// ownerOfJob returns the index of job j's owner, adding it if it is new.
func (cs *constraints) ownerOfJob(j *workload.Job) int32 {
	k := ownerKey{j.User, j.Group}
	if o, ok := cs.ownerIdx[k]; ok {
		return o
	}
	if cs.ownerIdx == nil {
		cs.ownerIdx = map[ownerKey]int32{}
	}
	o := owner{user: j.User, account: j.Group, minProcs: math.MaxInt}
	for i := range cs.c.Limits {
		if cs.c.Limits[i].appliesTo(j) {
			o.limits = append(o.limits, int32(i))
		}
	}
	n := int32(len(cs.owners))
	cs.owners = append(cs.owners, o)
	cs.ownerIdx[k] = n
	return n
}

// assign records the owner of the job in slot id.
func (cs *constraints) assign(id int32, j *workload.Job) {
	if !cs.hasLimits {
		return
	}
	for int(id) >= len(cs.ownerOf) {
		cs.ownerOf = append(cs.ownerOf, -1)
	}
	cs.ownerOf[id] = cs.ownerOfJob(j)
}

// joined records that job id (Seq seq, processors procs) joined the
// queue: its owner lists it, and the next pass marks it if a limit holds
// its owner whole.
func (cs *constraints) joined(id int32, seq int64, procs int) {
	if !cs.fast {
		return
	}
	oi := cs.ownerOf[id]
	o := &cs.owners[oi]
	e := ownerEntry{id, seq}
	if n := len(o.q); n == 0 || o.q[n-1].seq < seq {
		o.q = append(o.q, e)
	} else {
		k, _ := slices.BinarySearchFunc(o.q, seq, func(e ownerEntry, s int64) int { return cmpInt64(e.seq, s) })
		o.q = slices.Insert(o.q, k, e)
	}
	o.minProcs = min(o.minProcs, procs)
	if !o.listed {
		o.listed = true
		cs.active = append(cs.active, oi)
	}
	cs.dirty = append(cs.dirty, e)
}

// touched records that the pending reason of queued job id (Seq seq) was
// set outside a pass: the next pass marks it again if a limit holds it.
func (cs *constraints) touched(id int32, seq int64) {
	if cs.fast {
		cs.dirty = append(cs.dirty, ownerEntry{id, seq})
	}
}

// room returns whether the limits let one more job of owner o run (its
// user's and its association's running jobs) and how many processors
// they leave it (math.MaxInt: no limit on processors holds). A job of o
// may start under the limits if and only if ok and its processors are at
// most room.
func (cs *constraints) room(o *owner) (ok bool, room int) {
	room = math.MaxInt
	for _, k := range o.limits {
		l := &cs.c.Limits[k]
		if l.GrpCPUs > 0 {
			room = min(room, l.GrpCPUs-cs.grpCPUs[k])
		}
		if o.user < 0 {
			// An unknown user (SWF −1) is no one user: only the
			// association's limit holds.
			continue
		}
		if (l.MaxJobsPerUser > 0 && cs.userJobs.get(o.user) >= l.MaxJobsPerUser) || (l.MaxJobs > 0 && o.jobs >= l.MaxJobs) {
			return false, 0
		}
		if l.MaxCPUsPerUser > 0 {
			room = min(room, l.MaxCPUsPerUser-cs.userCPUs.get(o.user))
		}
		if l.MaxCPUs > 0 {
			room = min(room, l.MaxCPUs-o.cpus)
		}
	}
	return true, room
}

// allowed reports whether the limits let the job in slot id start now.
func (cs *constraints) allowed(id int32, procs int) bool {
	ok, room := cs.room(&cs.owners[cs.ownerOf[id]])
	return ok && procs <= room
}

// visibleFast sets cs.visible (and cs.visIDs) to the queued jobs no limit
// holds, in queue order, and marks the others PendingLimit, as the whole
// queue's walk of consPass does, but at the cost of the owners whose jobs
// may start (and of those a limit has just come to hold whole) only.
func (e *Engine) visibleFast() {
	cs := e.cons
	cs.visIDs = cs.visIDs[:0]
	keep := cs.active[:0]
	for _, oi := range cs.active {
		o := &cs.owners[oi]
		ok, room := cs.room(o)
		whole := !ok || room < o.minProcs
		if whole && o.held {
			// Held whole at the last pass too: its jobs are marked,
			// those touched since are in cs.dirty.
			keep = append(keep, oi)
			continue
		}
		w, least := 0, math.MaxInt
		for _, en := range o.q {
			s := &e.slots[en.id]
			if s.job.Seq != en.seq || s.started {
				continue // it left the queue
			}
			o.q[w] = en
			w++
			least = min(least, s.job.Procs)
			if whole || s.job.Procs > room {
				s.pending = PendingLimit
			} else {
				cs.visIDs = append(cs.visIDs, en.id)
			}
		}
		clear(o.q[w:])
		o.q = o.q[:w]
		o.minProcs = least
		o.held = whole
		if w > 0 {
			keep = append(keep, oi)
		} else {
			o.listed = false
		}
	}
	cs.active = keep
	for _, en := range cs.dirty {
		s := &e.slots[en.id]
		if s.job.Seq == en.seq && !s.started && cs.owners[cs.ownerOf[en.id]].held {
			s.pending = PendingLimit
		}
	}
	cs.dirty = cs.dirty[:0]
	// The queue indices, in queue order (the queue is in Seq order).
	ids := cs.visIDs
	slices.SortFunc(ids, func(a, b int32) int { return cmpInt64(e.slots[a].job.Seq, e.slots[b].job.Seq) })
	cs.visible = cs.visible[:0]
	if len(ids) == 0 {
		return
	}
	if len(ids) > len(e.queue)/16 {
		k := 0
		for qi, id := range e.queue {
			if id == ids[k] {
				cs.visible = append(cs.visible, qi)
				if k++; k == len(ids) {
					break
				}
			}
		}
	} else {
		lo := 0
		for _, id := range ids {
			lo = e.SearchSeq(lo, len(e.queue), e.slots[id].job.Seq)
			cs.visible = append(cs.visible, lo)
			lo++
		}
	}
	if len(cs.visible) != len(ids) {
		panic("sim: the limits' index of the queue lost a job")
	}
}

// firstAllowedFast returns the slot id of the first queued job no limit
// holds after a fast pass, -1 if none, and marks the jobs ahead of it
// that a start of the pass made a limit hold, as consPass's walk does.
// The jobs a limit held at the pass's start are marked already.
func (e *Engine) firstAllowedFast() int32 {
	cs := e.cons
	for _, id := range cs.visIDs {
		s := &e.slots[id]
		if s.started {
			continue
		}
		if !cs.allowed(id, s.job.Procs) {
			s.pending = PendingLimit
			continue
		}
		return id
	}
	return -1
}

// rebuildOwners recounts the owners from a restored engine's jobs.
func (cs *constraints) rebuildOwners(e *Engine) {
	cs.owners, cs.ownerIdx, cs.active, cs.dirty = cs.owners[:0], nil, cs.active[:0], cs.dirty[:0]
	clear(cs.ownerOf)
	for _, r := range e.running {
		cs.assign(r.id, &e.slots[r.id].job)
	}
	for _, id := range e.queue {
		s := &e.slots[id]
		cs.assign(id, &s.job)
		cs.joined(id, s.job.Seq, s.job.Procs)
	}
	for _, h := range e.holds {
		cs.assign(h.id, &e.slots[h.id].job)
	}
}
