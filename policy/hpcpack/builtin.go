package hpcpack

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Names of the built-in filters; they double as the names a configuration
// file gives them.
const (
	FilterLicenses       = "licenses"
	FilterQuota          = "quota"
	FilterRequireRuntime = "require-runtime"
	FilterMaxSize        = "max-size"
)

// sortedKeys returns m's keys in increasing order.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// LicenseRequest is one item of a job's license request.
type LicenseRequest struct {
	Name string
	// Count is the number of licenses, or PerUnit.
	Count int
}

// PerUnit is the Count of a request "name:*": one license per allocated
// unit (processor).
const PerUnit = -1

// ParseLicenses parses a license request, HPC Pack's SoftwareLicense
// syntax: "name:count[,name:count…]", where count is a positive integer or
// "*" (one per allocated unit). Spaces around items are ignored; "" asks
// for nothing.
func ParseLicenses(s string) ([]LicenseRequest, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []LicenseRequest
	for _, item := range strings.Split(s, ",") {
		name, count, ok := strings.Cut(strings.TrimSpace(item), ":")
		name, count = strings.TrimSpace(name), strings.TrimSpace(count)
		if !ok || name == "" {
			return nil, fmt.Errorf("license request %q: want name:count", item)
		}
		r := LicenseRequest{Name: name, Count: PerUnit}
		if count != "*" {
			n, err := strconv.Atoi(count)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("license request %q: count must be a positive integer or *", item)
			}
			r.Count = n
		}
		out = append(out, r)
	}
	return out, nil
}

// LicensePool is an activation filter that models a license server: a
// fixed number of licenses per name. A job asks through its Licenses field
// (ParseLicenses). When every license it asks for is free, the filter takes
// them and answers 0; it gives them back when the start is reverted (a
// later filter said no) and when the job ends. When some are short it
// answers WhenShort. A request the pool can never satisfy (an unknown name,
// more than the pool holds, bad syntax) answers 4: the job fails, as in
// HPC Pack's FlexLM sample filter.
//
// A running job asked to grow (Activation.Grow) needs licenses only for
// what its request adds: with "name:*" (one per processor) the processors
// it would gain. It answers 0 and takes them when they are free, else 1
// (do not grow); a revert gives back only what the growth took.
type LicensePool struct {
	// Total is the number of licenses of each name.
	Total map[string]int
	// WhenShort is the result when licenses are short: 1 (block the
	// queue), 2 (keep the resources) or 3 (hold). 0 means 2.
	WhenShort int

	free map[string]int
	held map[int64][]LicenseRequest // by job Seq: what it holds
	prev map[int64][]LicenseRequest // by job Seq: what it held before its last growth
}

var (
	_ ActivationFilter = (*LicensePool)(nil)
	_ JobEnder         = (*LicensePool)(nil)
)

// Name implements ActivationFilter.
func (p *LicensePool) Name() string { return FilterLicenses }

// Validate checks the pool's settings.
func (p *LicensePool) Validate() error {
	switch p.WhenShort {
	case 0, ActivateBlockQueue, ActivateKeepResources, ActivateHold:
	default:
		return fmt.Errorf("license pool: result when short %d: want 1, 2 or 3", p.WhenShort)
	}
	for _, name := range sortedKeys(p.Total) {
		if p.Total[name] < 0 {
			return fmt.Errorf("license pool: %d %s licenses: want ≥ 0", p.Total[name], name)
		}
	}
	return nil
}

// Free returns the number of free licenses of name.
func (p *LicensePool) Free(name string) int {
	if p.free == nil {
		return p.Total[name]
	}
	return p.free[name]
}

// FilterActivation implements ActivationFilter.
func (p *LicensePool) FilterActivation(a *Activation) Result {
	reqs, err := ParseLicenses(a.Job.Licenses)
	if err != nil {
		return Exit(ActivateFail, err.Error())
	}
	if len(reqs) == 0 {
		return Exit(ActivateStart, "")
	}
	if p.free == nil {
		p.free = make(map[string]int, len(p.Total))
		for name, n := range p.Total {
			p.free[name] = n
		}
		p.held = map[int64][]LicenseRequest{}
		p.prev = map[int64][]LicenseRequest{}
	}
	need := make([]LicenseRequest, len(reqs))
	for k, r := range reqs {
		if r.Count == PerUnit {
			r.Count = a.Resources
		}
		total, ok := p.Total[r.Name]
		switch {
		case !ok:
			return Exit(ActivateFail, "unknown license "+r.Name)
		case r.Count > total && a.Grow:
			return Exit(ActivateBlockQueue, fmt.Sprintf("asks for %d %s licenses to grow, the pool has %d", r.Count, r.Name, total))
		case r.Count > total:
			return Exit(ActivateFail, fmt.Sprintf("asks for %d %s licenses, the pool has %d", r.Count, r.Name, total))
		}
		need[k] = r
	}
	if a.Grow {
		return p.grow(a.Job.Seq, need)
	}
	// Several items may name the same license: add them up first.
	for k, r := range need {
		sum := 0
		for _, q := range need[:k+1] {
			if q.Name == r.Name {
				sum += q.Count
			}
		}
		if sum > p.free[r.Name] {
			short := p.WhenShort
			if short == 0 {
				short = ActivateKeepResources
			}
			return Exit(short, fmt.Sprintf("%s: %d asked, %d free", r.Name, sum, p.free[r.Name]))
		}
	}
	for _, r := range need {
		p.free[r.Name] -= r.Count
	}
	p.held[a.Job.Seq] = need
	return Exit(ActivateStart, "")
}

// grow takes the licenses a running job needs beyond those it holds to hold
// need, or answers 1 when they are short.
func (p *LicensePool) grow(seq int64, need []LicenseRequest) Result {
	old := p.held[seq]
	extra := func(name string) int { return countOf(need, name) - countOf(old, name) }
	for _, r := range need {
		if x := extra(r.Name); x > p.free[r.Name] {
			return Exit(ActivateBlockQueue, fmt.Sprintf("%s: %d more asked to grow, %d free", r.Name, x, p.free[r.Name]))
		}
	}
	for k, r := range need {
		if countOf(need[:k], r.Name) == 0 { // a name listed twice: its extra is taken once
			p.free[r.Name] -= extra(r.Name)
		}
	}
	p.prev[seq] = old
	p.held[seq] = need
	return Exit(ActivateStart, "")
}

// countOf sums the counts of name in rs.
func countOf(rs []LicenseRequest, name string) int {
	n := 0
	for _, r := range rs {
		if r.Name == name {
			n += r.Count
		}
	}
	return n
}

// RevertActivation implements ActivationFilter: it gives back what the job
// took (for a growth, what the growth took).
func (p *LicensePool) RevertActivation(a *Activation) {
	if a.Grow {
		seq := a.Job.Seq
		old, ok := p.prev[seq]
		if !ok {
			return
		}
		for _, r := range p.held[seq] {
			p.free[r.Name] += r.Count
		}
		for _, r := range old {
			p.free[r.Name] -= r.Count
		}
		p.held[seq] = old
		delete(p.prev, seq)
		return
	}
	p.release(a.Job.Seq)
}

// JobEnded implements JobEnder: it gives back what the job held.
func (p *LicensePool) JobEnded(e policy.Ended) { p.release(e.Seq) }

func (p *LicensePool) release(seq int64) {
	for _, r := range p.held[seq] {
		p.free[r.Name] += r.Count
	}
	delete(p.held, seq)
	delete(p.prev, seq)
}

// Quota is an activation filter that limits each user's usage: at most
// Limit processor-seconds per Window. Windows are fixed: [k·Window,
// (k+1)·Window) from the start of the trace. A user's usage in a window is
// the part of their jobs' runs (started through this filter) that falls in
// it, running jobs counted up to now. A job whose user has used up the
// quota gets result 3 with Hold Until set to the start of the next window;
// otherwise 0. Users are SWF user numbers (workload.Job.User).
type Quota struct {
	// Limit is the processor-seconds a user may use per window.
	Limit float64
	// Window is the length of a window, in seconds.
	Window workload.Time
	// Tick is the number of the engine's ticks in a second (0 or 1:
	// seconds): the jobs' times and the activation's instant are in
	// ticks, Limit and Window in seconds.
	Tick workload.Time

	users map[int]*quotaUser
	undo  map[int64]quotaUndo // by job Seq: how to revert its last growth
}

// quotaUndo is what a growth changed in a user's record.
type quotaUndo struct {
	old   quotaRun // the run before the growth
	added float64  // processor-seconds it moved into used
}

type quotaUser struct {
	window  int64   // the window used refers to
	used    float64 // processor-ticks of ended jobs in that window
	running []quotaRun
}

type quotaRun struct {
	seq   int64
	procs int
	start workload.Time
}

var (
	_ ActivationFilter = (*Quota)(nil)
	_ JobEnder         = (*Quota)(nil)
)

// Name implements ActivationFilter.
func (q *Quota) Name() string { return FilterQuota }

// Validate checks the quota's settings.
func (q *Quota) Validate() error {
	if q.Limit <= 0 || q.Window <= 0 {
		return fmt.Errorf("quota: limit %g processor-seconds per %d s: both must be positive", q.Limit, q.Window)
	}
	return nil
}

// window returns the length of a window in ticks.
func (q *Quota) window() workload.Time { return q.Window * max(q.Tick, 1) }

// user returns u's usage record, rolled to the window of now.
func (q *Quota) user(id int, now workload.Time) *quotaUser {
	if q.users == nil {
		q.users = map[int]*quotaUser{}
	}
	u := q.users[id]
	if u == nil {
		u = &quotaUser{}
		q.users[id] = u
	}
	if w := int64(now / q.window()); w != u.window {
		u.window, u.used = w, 0
	}
	return u
}

// Used returns user's processor-seconds in the window of now (an instant
// in ticks).
func (q *Quota) Used(user int, now workload.Time) float64 {
	u := q.user(user, now)
	from := workload.Time(u.window) * q.window()
	used := u.used
	for _, r := range u.running {
		used += float64(r.procs) * float64(now-max(r.start, from))
	}
	if q.Tick > 1 {
		used /= float64(q.Tick)
	}
	return used
}

// FilterActivation implements ActivationFilter. A running job asked to
// grow (Activation.Grow) answers 1 (do not grow) when its user has used up
// the quota, without touching its Hold Until; otherwise 0, and from now on
// its run counts with the processors it grows to.
func (q *Quota) FilterActivation(a *Activation) Result {
	j := a.Job
	if a.Grow {
		return q.grow(a)
	}
	if used := q.Used(j.User, a.Now); used >= q.Limit {
		u := q.user(j.User, a.Now)
		j.HoldUntil = workload.Time(u.window+1) * q.window()
		return Exit(ActivateHold, fmt.Sprintf("user %d used %.0f of %.0f processor-seconds", j.User, used, q.Limit))
	}
	u := q.user(j.User, a.Now)
	u.running = append(u.running, quotaRun{seq: j.Seq, procs: a.Resources, start: a.Now})
	return Exit(ActivateStart, "")
}

// grow answers a growth call (see FilterActivation).
func (q *Quota) grow(a *Activation) Result {
	j := a.Job
	if used := q.Used(j.User, a.Now); used >= q.Limit {
		return Exit(ActivateBlockQueue, fmt.Sprintf("user %d used %.0f of %.0f processor-seconds", j.User, used, q.Limit))
	}
	u := q.user(j.User, a.Now)
	r, ok := q.remove(u, j.Seq)
	if !ok {
		return Exit(ActivateStart, "") // not started through this filter
	}
	from := workload.Time(u.window) * q.window()
	added := float64(r.procs) * float64(a.Now-max(r.start, from))
	u.used += added
	u.running = append(u.running, quotaRun{seq: j.Seq, procs: a.Resources, start: a.Now})
	if q.undo == nil {
		q.undo = map[int64]quotaUndo{}
	}
	q.undo[j.Seq] = quotaUndo{old: r, added: added}
	return Exit(ActivateStart, "")
}

// RevertActivation implements ActivationFilter: the job's run no longer
// counts (for a growth: counts as before it).
func (q *Quota) RevertActivation(a *Activation) {
	u := q.user(a.Job.User, a.Now)
	if !a.Grow {
		q.remove(u, a.Job.Seq)
		return
	}
	d, ok := q.undo[a.Job.Seq]
	if !ok {
		return
	}
	delete(q.undo, a.Job.Seq)
	if _, ok := q.remove(u, a.Job.Seq); ok {
		u.used -= d.added
		u.running = append(u.running, d.old)
	}
}

// JobEnded implements JobEnder: the job's run in the current window counts.
func (q *Quota) JobEnded(e policy.Ended) {
	delete(q.undo, e.Seq)
	u := q.user(e.User, e.End)
	r, ok := q.remove(u, e.Seq)
	if !ok {
		return
	}
	from := workload.Time(u.window) * q.window()
	u.used += float64(r.procs) * float64(e.End-max(r.start, from))
}

func (q *Quota) remove(u *quotaUser, seq int64) (quotaRun, bool) {
	for k, r := range u.running {
		if r.seq == seq {
			u.running = append(u.running[:k], u.running[k+1:]...)
			return r, true
		}
	}
	return quotaRun{}, false
}

// RequireRuntime is a submission filter for jobs without a run time
// (requested time), which backfilling cannot use: it gives them Runtime
// (result 1), else assigns them Template (result 1; the template's default
// run time then applies), else fails them.
type RequireRuntime struct {
	// Runtime is the run time to give, in seconds (0: none).
	Runtime workload.Time
	// Tick is the number of the engine's ticks in a second (0 or 1:
	// seconds), the unit of the jobs' requested times.
	Tick workload.Time
	// Template is the template to assign when Runtime is 0 ("": none).
	Template string

	// The last job given Template, and its template before, for revert
	// (a chain reverts at once, before the next job's submission).
	lastSeq int64
	lastOld string
	hasLast bool
}

var _ SubmissionFilter = (*RequireRuntime)(nil)

// Name implements SubmissionFilter.
func (r *RequireRuntime) Name() string { return FilterRequireRuntime }

// FilterSubmission implements SubmissionFilter.
func (r *RequireRuntime) FilterSubmission(j *workload.Job) Result {
	switch {
	case j.Estimate > 0:
		return Exit(SubmitAsIs, "")
	case r.Runtime > 0:
		j.Estimate = r.Runtime * max(r.Tick, 1)
		return Exit(SubmitChanged, "run time set")
	case r.Template != "":
		r.lastSeq, r.lastOld, r.hasLast = j.Seq, j.Template, true
		j.Template = r.Template
		return Exit(SubmitChanged, "template "+r.Template)
	}
	return Exit(SubmitFail, "the job has no run time")
}

// RevertSubmission implements SubmissionFilter.
func (r *RequireRuntime) RevertSubmission(j *workload.Job) {
	if r.Runtime > 0 && j.Estimate == r.Runtime*max(r.Tick, 1) {
		j.Estimate = workload.Unknown
	}
	if r.hasLast && r.lastSeq == j.Seq && j.Template == r.Template {
		j.Template = r.lastOld
		r.hasLast = false
	}
}

// MaxSize is a submission filter that fails jobs asking for more than Procs
// processors.
type MaxSize struct {
	Procs int
}

var _ SubmissionFilter = (*MaxSize)(nil)

// Name implements SubmissionFilter.
func (m *MaxSize) Name() string { return FilterMaxSize }

// FilterSubmission implements SubmissionFilter.
func (m *MaxSize) FilterSubmission(j *workload.Job) Result {
	if j.Procs > m.Procs {
		return Exit(SubmitFail, fmt.Sprintf("%d processors asked, at most %d", j.Procs, m.Procs))
	}
	return Exit(SubmitAsIs, "")
}

// RevertSubmission implements SubmissionFilter; MaxSize changes nothing.
func (m *MaxSize) RevertSubmission(*workload.Job) {}
