package infer

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// Hold is a job the log shows held by something it does not record, and
// the time it was released: its recorded start.
type Hold struct {
	ID    int64
	Until workload.Time
}

// stepMax answers the most processors the recorded jobs held over an
// interval: the busy processors as a step function (busy[i] from at[i]
// until at[i+1]) with a sparse table of range maxima.
type stepMax struct {
	at    []workload.Time
	table [][]int32
}

func newStepMax(tl *timeline) *stepMax {
	at := make([]workload.Time, 0, len(tl.starts)+len(tl.ends)+1)
	at = append(at, tl.first)
	at = append(at, tl.starts...)
	at = append(at, tl.ends...)
	slices.Sort(at)
	at = slices.Compact(at)
	busy := make([]int32, len(at))
	for i, t := range at {
		busy[i] = int32(tl.busy(t))
	}
	s := &stepMax{at: at, table: [][]int32{busy}}
	for k := 1; 2*k <= len(busy); k *= 2 {
		prev := s.table[len(s.table)-1]
		next := make([]int32, len(prev)-k)
		for i := range next {
			next[i] = max(prev[i], prev[i+k])
		}
		s.table = append(s.table, next)
	}
	return s
}

// max returns the most processors busy at any instant of [from, to].
func (s *stepMax) max(from, to workload.Time) int {
	i := max(upTo(s.at, from)-1, 0)
	j := max(upTo(s.at, to)-1, i)
	lv := 0
	for 2<<lv <= j-i+1 {
		lv++
	}
	t := s.table[lv]
	return int(max(t[i], t[j-(1<<lv)+1]))
}

// held finds the jobs the log shows held: each waited HeldRoomSec or
// more, and for the first HeldRoomSec after its submission the recorded
// jobs left idle at least the processors it asked for — a scheduler that
// starts what fits would have started it at once, so something the log
// does not record held it (a dependency, a user's hold, a limit). Each is
// held until its recorded start. A job whose wait overlaps an inferred
// outage, capacity drop or recurring drain is not judged (the
// reservation explains it), nor one that an inferred start window or
// per-user cap could have kept waiting, nor are the jobs of a time-shared
// machine, whose idle processors the log does not show.
func (r *Result) held(jobs []Job, tl *timeline, opt Options) {
	if opt.HeldRoomSec <= 0 {
		return
	}
	if r.TimeShared {
		r.Notes = append(r.Notes, "held jobs: not looked for (the machine time-shared: its idle processors do not show in the log)")
		return
	}
	sm := newStepMax(tl)
	var res []Reservation
	res = append(append(res, r.Capacity...), r.Outages...)
	var waitAll, waitHeld float64
	var afterOwn int
	// ownEnds are each user's recorded ends, sorted: a held job that
	// starts as one of its user's own jobs ends hints at a per-user
	// limit.
	ownEnds := map[int][]workload.Time{}
	for _, j := range jobs {
		ownEnds[j.User] = append(ownEnds[j.User], j.End)
	}
	for _, e := range ownEnds {
		slices.Sort(e)
	}
	var waits []workload.Time
	for _, j := range jobs {
		w := j.Start - j.Submit
		waitAll += float64(w)
		if w < opt.HeldRoomSec || j.Procs > r.Procs {
			continue
		}
		if sm.max(j.Submit, j.Submit+opt.HeldRoomSec)+j.Procs > r.Procs {
			continue
		}
		if slices.ContainsFunc(res, func(x Reservation) bool { return x.Start < j.Start && x.Start+x.DurationSec > j.Submit }) ||
			r.explained(j, opt) {
			continue
		}
		r.Holds = append(r.Holds, Hold{ID: j.ID, Until: j.Start})
		waitHeld += float64(w)
		waits = append(waits, w)
		if e := ownEnds[j.User]; j.User >= 0 {
			if k := upTo(e, j.Start); k > 0 && j.Start-e[k-1] <= 60 {
				afterOwn++
			}
		}
	}
	slices.SortFunc(r.Holds, func(a, b Hold) int { return cmp.Compare(a.ID, b.ID) })
	n := len(r.Holds)
	if n == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("held jobs: none (no job waited %s or more while the recorded jobs left its processors idle for the first %s)", durationText(opt.HeldRoomSec), durationText(opt.HeldRoomSec)))
		return
	}
	slices.Sort(waits)
	r.HoldEvidence = []string{
		fmt.Sprintf("%d jobs (%.1f %% of the log's) waited %s or more although, for the first %s after their submission, the recorded jobs left at least their processors idle", n, 100*float64(n)/float64(len(jobs)), durationText(opt.HeldRoomSec), durationText(opt.HeldRoomSec)),
		fmt.Sprintf("(--held-room): something the log does not record held them — a dependency, a user's hold, a limit. Their waits are %.1f %% of all the recorded waiting (median %s);", 100*waitHeld/max(waitAll, 1), durationText(roundUpMinute(waits[(n-1)/2]))),
		fmt.Sprintf("%d of them (%.1f %%) started within a minute of the end of a job of their own user, as under a per-user limit. Each is held until its recorded start,", afterOwn, 100*float64(afterOwn)/float64(n)),
		"so that the simulation cannot start it earlier; for these jobs the comparison with the log then tests only how much later the simulation starts them.",
	}
}

// explained reports whether an inferred per-user cap, start window or
// recurring drain could have kept job j from starting in the first
// HeldRoomSec after its submission (or its requested run from then would
// have crossed a drain).
func (r *Result) explained(j Job, opt Options) bool {
	for _, l := range r.Limits {
		if slices.Contains(l.Users, "*") || slices.Contains(l.Users, strconv.Itoa(j.User)) {
			return true
		}
	}
	req := j.ReqTime
	if req <= 0 {
		req = j.End - j.Start
	}
	for _, w := range r.Windows {
		if w.Queue >= 0 && w.Queue != j.Queue {
			continue
		}
		if (w.MaxProcs > 0 && j.Procs > w.MaxProcs) || (w.MinProcs > 0 && j.Procs < w.MinProcs) || (w.MaxWallSec > 0 && (j.ReqTime <= 0 || j.ReqTime > w.MaxWallSec)) {
			return true
		}
	}
	if len(r.Drains) == 0 {
		return false
	}
	from, to := j.Submit, j.Submit+opt.HeldRoomSec+req
	if to-from > 8*86400 {
		return true
	}
	w := r.wall(r.Log.Epoch, from)
	day := time.Date(w.Year(), w.Month(), w.Day(), 0, 0, 0, 0, r.loc).AddDate(0, 0, -1)
	for ; workload.Time(day.Unix()-r.Log.Epoch) < to; day = day.AddDate(0, 0, 1) {
		for _, d := range r.Drains {
			if !d.occursOn(day.Weekday()) {
				continue
			}
			c := r.wall(r.Log.Epoch, d.Start)
			at := workload.Time(time.Date(day.Year(), day.Month(), day.Day(), c.Hour(), c.Minute(), c.Second(), 0, r.loc).Unix() - r.Log.Epoch)
			if at < d.Start || (d.Until > 0 && at > d.Until) {
				continue
			}
			if at < to && at+d.DurationSec > from {
				return true
			}
		}
	}
	return false
}

// WriteHolds writes the held jobs as a holds file (workload.ParseHolds):
// a line "JOB HOLD_UNTIL" each, in job order, after comment lines with
// the evidence.
func (r *Result) WriteHolds(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# Held jobs inferred by schedsim infer from %s: job number, and the time (s from the trace's start) before which it may not start.\n", baseName(r.Log.Name))
	for _, e := range r.HoldEvidence {
		fmt.Fprintf(b, "# %s\n", e)
	}
	for _, h := range r.Holds {
		fmt.Fprintf(b, "%d %d\n", h.ID, h.Until)
	}
	return b.Flush()
}
