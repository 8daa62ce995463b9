// Package hpcpack is Microsoft HPC Pack's job model around a scheduling
// policy (SPEC §3 and §6): submission and activation filters, job
// templates, the job XML that filter programs receive, and the filter
// programs themselves.
//
// A Model holds the filter chains, templates and cluster settings of one
// run. It is the engine's policy.Admission (submission filters, then the
// job's template) and policy.Annotator (the filter results each job saw),
// its Wrap puts the activation filters around a policy (Filtered), and it
// decides the growth of running jobs (policy.GrowFilter).
//
// This is the one place of schedsim with I/O and the wall clock: an
// ExecFilter runs a program, with a job file and a timeout. Everything else
// is as deterministic as the engine: only the filters' exit codes decide.
package hpcpack

import (
	"fmt"
	"io"
	"strconv"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// HPC Pack's cluster settings for filters: defaults and limits.
const (
	// DefaultHoldSec is HPC Pack's default hold period: how long activation
	// result 3 holds a job that has no later Hold Until.
	DefaultHoldSec workload.Time = 900
	// MinHoldSec and MaxHoldSec bound the default hold period.
	MinHoldSec workload.Time = 60
	MaxHoldSec workload.Time = 604800
	// DefaultReevaluateSec is schedsim's default interval between two
	// activation calls of a blocked or reserving job. HPC Pack re-runs the
	// filter "periodically", at its scheduling passes.
	DefaultReevaluateSec workload.Time = 60
	// DefaultTemplate is the name of HPC Pack's default job template.
	DefaultTemplate = "Default"
)

// Model is HPC Pack's job model around a scheduler: cluster-wide
// submission and activation filters, job templates and the rules that
// assign them, and the cluster settings that go with them (SPEC §6).
//
// It is the engine's policy.Admission (Admit: the submission filters, then the
// job template) and policy.Annotator (the filter results each job saw), and
// Wrap puts its activation filters around a policy. One Model serves one
// run: it keeps notes about the jobs, and its filters may keep state
// (licenses taken).
type Model struct {
	// Submission and Activation are the cluster-wide filter chains; a
	// template's own filters run before them.
	Submission []SubmissionFilter
	Activation []ActivationFilter
	// Templates are the job templates by name.
	Templates map[string]*Template
	// Rules assign a template to a job that names none: the first rule
	// that matches wins; without a match the job gets the template named
	// DefaultTemplate, if there is one.
	Rules []TemplateRule
	// DefaultHold is the default hold period (0: DefaultHoldSec).
	DefaultHold workload.Time
	// Reevaluate is the interval between activation calls of a blocked or
	// reserving job (0: DefaultReevaluateSec).
	Reevaluate workload.Time
	// Tick is the number of the engine's ticks in a second (0 or 1: the
	// engine counts seconds; 1000 in a run in ms). The Model's settings,
	// its templates' run times and its rules' estimates are in seconds, as
	// HPC Pack gives them; the Model turns them into ticks where they meet
	// the engine's times (hold periods, re-evaluations, a job's requested
	// time). Its filters have a Tick of their own (ExecFilter, Quota,
	// RequireRuntime).
	Tick workload.Time

	notes   map[int64]*jobNote
	enders  []JobEnder // the activation filters that track running jobs, once each
	init    bool
	growAct Activation // FilterGrow's call, reused
	// growWait holds the running jobs (by sequence) whose last growth call
	// was refused, in the order of their refusals.
	growWait []int64
}

// Template is a job template: defaults and limits for the jobs assigned to
// it, and filters that run before the cluster-wide ones.
type Template struct {
	// Name is the template's name (workload.Job.Template).
	Name string
	// DefaultRun is the run time a job without one gets (0: none).
	DefaultRun workload.Time
	// MaxRun is the longest run time a job may ask for (0: no limit). A job
	// asking for more, or for none when there is no default, fails at
	// submission.
	MaxRun workload.Time
	// Priority, when HasPriority, is given to jobs whose priority is 0.
	Priority    int64
	HasPriority bool
	// Licenses are given to jobs that ask for none ("name:count,…").
	Licenses string
	// Submission and Activation are the template's filters.
	Submission []SubmissionFilter
	Activation []ActivationFilter

	activation []ActivationFilter // Activation, then the cluster's
}

// TemplateRule assigns Template to the jobs it matches: every condition set
// must hold.
type TemplateRule struct {
	Template string
	// MinProcs and MaxProcs bound the job's processors (0: no bound).
	MinProcs, MaxProcs int
	// MaxEstimate: the job's requested time is at most this (0: no bound);
	// a job without a requested time does not match.
	MaxEstimate workload.Time
	// NoEstimate: the job has no requested time.
	NoEstimate bool
	// Users, Queues and Executables: the job's SWF user, queue or
	// executable number is one of these (empty: any).
	Users, Queues, Executables []int
}

// Matches reports whether j satisfies the rule, j's times in seconds.
func (r *TemplateRule) Matches(j *workload.Job) bool { return r.MatchesIn(j, 1) }

// MatchesIn reports whether j, whose times are in ticks of 1/tick second,
// satisfies the rule (MaxEstimate is in seconds).
func (r *TemplateRule) MatchesIn(j *workload.Job, tick workload.Time) bool {
	tick = max(tick, 1)
	switch {
	case r.MinProcs > 0 && j.Procs < r.MinProcs,
		r.MaxProcs > 0 && j.Procs > r.MaxProcs,
		r.MaxEstimate > 0 && (j.Estimate <= 0 || j.Estimate > r.MaxEstimate*tick),
		r.NoEstimate && j.Estimate > 0,
		!inList(r.Users, j.User), !inList(r.Queues, j.Queue), !inList(r.Executables, j.Executable):
		return false
	}
	return true
}

func inList(list []int, x int) bool {
	if len(list) == 0 {
		return true
	}
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

// Validate checks the settings: the default hold period must lie in
// [MinHoldSec, MaxHoldSec], the re-evaluation interval be positive, every
// template referenced by a rule exist.
func (h *Model) Validate() error {
	if h.DefaultHold != 0 && (h.DefaultHold < MinHoldSec || h.DefaultHold > MaxHoldSec) {
		return fmt.Errorf("hpcpack: default hold period %d s: must be between %d and %d s", h.DefaultHold, MinHoldSec, MaxHoldSec)
	}
	if h.Reevaluate < 0 {
		return fmt.Errorf("hpcpack: re-evaluation interval %d s: must be positive", h.Reevaluate)
	}
	for _, r := range h.Rules {
		if h.Templates[r.Template] == nil {
			return fmt.Errorf("hpcpack: template rule names template %q, which is not defined", r.Template)
		}
	}
	for _, name := range sortedKeys(h.Templates) {
		if t := h.Templates[name]; t.MaxRun > 0 && t.DefaultRun > t.MaxRun {
			return fmt.Errorf("hpcpack: template %s: default run time %d s above its maximum %d s", name, t.DefaultRun, t.MaxRun)
		}
	}
	return nil
}

// HasActivation reports whether any activation filter is configured, in
// the cluster or a template.
func (h *Model) HasActivation() bool {
	if len(h.Activation) > 0 {
		return true
	}
	for _, t := range h.Templates {
		if len(t.Activation) > 0 {
			return true
		}
	}
	return false
}

// Wrap returns p with h's activation filters around it (see Filtered);
// under policy.Ordered they go inside, so that they see the queue in priority
// order. policy.Conservative cannot be wrapped.
func (h *Model) Wrap(p policy.Policy) (policy.Policy, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	h.setup()
	inner := p
	o, ordered := p.(*policy.Ordered)
	if ordered {
		inner = o.Inner
	}
	if _, ok := inner.(*policy.Conservative); ok {
		return nil, fmt.Errorf("hpcpack: activation filters need a policy that plans at every pass (off, easy, slurm), not conservative backfilling")
	}
	f := &Filtered{Inner: inner, HPC: h}
	if ordered {
		o.Inner = f
		return o, nil
	}
	return f, nil
}

// setup prepares the chains and the notes, once.
func (h *Model) setup() {
	if h.init {
		return
	}
	h.init = true
	h.notes = map[int64]*jobNote{}
	seen := map[JobEnder]bool{}
	add := func(fs []ActivationFilter) {
		for _, f := range fs {
			if e, ok := f.(JobEnder); ok && !seen[e] {
				seen[e] = true
				h.enders = append(h.enders, e)
			}
		}
	}
	// Templates in name order, so that the enders' order is deterministic.
	for _, name := range sortedKeys(h.Templates) {
		t := h.Templates[name]
		t.activation = append(append([]ActivationFilter(nil), t.Activation...), h.Activation...)
		add(t.Activation)
	}
	add(h.Activation)
}

// ActivationChain returns the activation filters of j: its template's,
// then the cluster's.
func (h *Model) ActivationChain(j *workload.Job) []ActivationFilter {
	if t := h.Templates[j.Template]; t != nil {
		return t.activation
	}
	return h.Activation
}

// template returns the template j names, or the one a rule or the default
// assigns; nil when there is none. ok is false when j names a template
// that does not exist (with templates configured).
func (h *Model) template(j *workload.Job) (t *Template, ok bool) {
	if j.Template != "" {
		t = h.Templates[j.Template]
		return t, t != nil || len(h.Templates) == 0 || j.Template == DefaultTemplate
	}
	for k := range h.Rules {
		if h.Rules[k].MatchesIn(j, h.tick()) {
			return h.Templates[h.Rules[k].Template], true
		}
	}
	return h.Templates[DefaultTemplate], true
}

// Admit implements policy.Admission: the template's submission filters, then the
// cluster's (SPEC §6: 0 as is, 1 changed, anything else fails the job,
// reverting the filters that ran); then the job's template (the one it
// names after the filters, or the one a rule assigns) gives its defaults
// and checks its maximum run time.
func (h *Model) Admit(j *workload.Job) (bool, string) {
	h.setup()
	// An unknown template is checked after the filters, which may change it.
	t, ok := h.template(j)
	if t != nil && j.Template == "" {
		j.Template = t.Name
	}
	var chain []SubmissionFilter
	if t != nil && len(t.Submission) > 0 {
		chain = append(append(chain, t.Submission...), h.Submission...)
	} else {
		chain = h.Submission
	}
	if len(chain) > 0 {
		var seen []byte
		r, _, by := SubmissionChain(chain, j, func(_ string, r Result) {
			if len(seen) > 0 {
				seen = append(seen, ',')
			}
			seen = append(seen, r.String()...)
		})
		if msg := SubmissionFailure(r); msg != "" {
			return false, failReason(msg, by, r) + "; submit=" + string(seen)
		}
		h.note(j.Seq).sub = string(seen)
		t, ok = h.template(j)
	}
	if !ok {
		h.forget(j.Seq)
		return false, fmt.Sprintf("job template %q does not exist", j.Template)
	}
	if t == nil {
		return true, ""
	}
	tick := h.tick()
	if j.Estimate <= 0 && t.DefaultRun > 0 {
		j.Estimate = t.DefaultRun * tick
	}
	if t.MaxRun > 0 && (j.Estimate <= 0 || j.Estimate > t.MaxRun*tick) {
		h.forget(j.Seq)
		asked := "no run time"
		if j.Estimate > 0 {
			asked = workload.FormatTicks(j.Estimate, int64(tick)) + " s"
		}
		return false, fmt.Sprintf("job template %s allows at most %d s of run time, the job asks for %s", t.Name, t.MaxRun, asked)
	}
	if j.Priority == 0 && t.HasPriority {
		j.Priority = t.Priority
	}
	if j.Licenses == "" {
		j.Licenses = t.Licenses
	}
	return true, ""
}

// jobEnded tells the filters that keep running jobs that e ended, and
// drops the notes about it.
func (h *Model) jobEnded(e policy.Ended) {
	for _, f := range h.enders {
		f.JobEnded(e)
	}
	h.dropGrowWait(e.Seq)
	h.forget(e.Seq)
}

// tick returns the engine's ticks per second (Tick, at least 1).
func (h *Model) tick() workload.Time { return max(h.Tick, 1) }

// defaultHold returns the default hold period in ticks.
func (h *Model) defaultHold() workload.Time {
	if h.DefaultHold > 0 {
		return h.DefaultHold * h.tick()
	}
	return DefaultHoldSec * h.tick()
}

// reevaluate returns the re-evaluation interval in ticks.
func (h *Model) reevaluate() workload.Time {
	if h.Reevaluate > 0 {
		return h.Reevaluate * h.tick()
	}
	return DefaultReevaluateSec * h.tick()
}

// Job states as Filtered sees them.
const (
	stateQueued uint8 = iota
	stateBlocked
	stateReserving
	stateHeld
)

// Result counters of a jobNote: codes 0–4, any other code, timeout, not found.
const (
	countOther = 5 + iota
	countTimeout
	countNotFound
	numCounts
)

// jobNote is what Model knows of a job that met a filter.
type jobNote struct {
	state uint8
	since workload.Time // when the job entered state
	next  workload.Time // next re-evaluation (blocked, reserving)
	resv  int           // processors it reserves (reserving): the candidate resources it got result 2 for
	// resvAt are the resources it reserves on a cluster of nodes (the
	// node selector's units), nil on a pool of processors; out says
	// whether they are out of the pass's scratch selector (Filtered).
	resvAt []cluster.Range
	out    bool
	tried  int64         // the last pass in which the job was refused
	seen   workload.Time // the last pass at which it was refused, or could not be asked (blocked, no room)

	last   Result // its last refusal
	lastBy string // the filter that gave it

	blocked, held, reserving workload.Time // time spent in each state
	act                      [numCounts]int32
	sub                      string // submission results, in chain order

	grow     [numCounts]int32 // results of growth calls (FilterGrow)
	growNext workload.Time    // no growth call before this (after a refusal)
}

// count counts an activation result.
func (n *jobNote) count(r Result) { n.act[counter(r)]++ }

// counter returns the counter of a jobNote that result r counts in: its
// code 0–4, or other, timeout, not found.
func counter(r Result) int {
	switch {
	case r.Status == TimedOut:
		return countTimeout
	case r.Status == NotFound:
		return countNotFound
	case r.Code >= 0 && r.Code < 5:
		return r.Code
	}
	return countOther
}

// appendCounts appends "name=0x2,1x1", the counters of c that are not 0
// with their counts, after a space when dst grew beyond start; nothing
// when every counter is 0.
func appendCounts(dst []byte, start int, name string, c *[numCounts]int32) []byte {
	first := true
	for k, n := range c {
		if n == 0 {
			continue
		}
		if first {
			if len(dst) > start {
				dst = append(dst, ' ')
			}
			dst = append(append(dst, name...), '=')
			first = false
		} else {
			dst = append(dst, ',')
		}
		dst = append(dst, countNames[k]...)
		dst = append(dst, 'x')
		dst = strconv.AppendInt(dst, int64(n), 10)
	}
	return dst
}

// note returns the note about the job with sequence seq, making it.
func (h *Model) note(seq int64) *jobNote {
	if h.notes == nil {
		h.notes = map[int64]*jobNote{}
	}
	n := h.notes[seq]
	if n == nil {
		n = &jobNote{}
		h.notes[seq] = n
	}
	return n
}

func (h *Model) forget(seq int64) { delete(h.notes, seq) }

var (
	_ policy.Admission = (*Model)(nil)
	_ policy.Annotator = (*Model)(nil)
)

// countNames name the counters in notes.
var countNames = [numCounts]string{"0", "1", "2", "3", "4", "other", "timeout", "not-found"}

// AppendNote implements Annotator. The note lists, space-separated: the
// submission results in chain order ("submit=0,1"), the activation results
// with their counts ("activate=2x12,0x1"), and the seconds spent blocked,
// held and reserving (each only when not 0; in a run in ticks, seconds with
// the unit's decimals, "180.250"): e.g.
// "submit=0 activate=2x3,0x1 reserving_sec=180"; then, for a running job
// that was offered processors to grow (sim.Grow), the growth results with
// their counts ("grow=0x1,1x2").
func (h *Model) AppendNote(dst []byte, j *workload.Job) []byte {
	n := h.notes[j.Seq]
	if n == nil {
		return dst
	}
	sep := func() {
		if len(dst) > 0 && dst[len(dst)-1] != ' ' {
			dst = append(dst, ' ')
		}
	}
	start := len(dst)
	if n.sub != "" {
		dst = append(dst, "submit="...)
		dst = append(dst, n.sub...)
	}
	dst = appendCounts(dst, start, "activate", &n.act)
	for _, d := range []struct {
		name string
		sec  workload.Time
	}{{"blocked_sec", n.blocked}, {"held_sec", n.held}, {"reserving_sec", n.reserving}} {
		if d.sec == 0 {
			continue
		}
		if len(dst) > start {
			sep()
		}
		dst = append(dst, d.name...)
		dst = append(dst, '=')
		if h.tick() == 1 {
			dst = strconv.AppendInt(dst, int64(d.sec), 10)
		} else {
			dst = append(dst, workload.FormatTicks(d.sec, int64(h.tick()))...)
		}
	}
	return appendCounts(dst, start, "grow", &n.grow)
}

// filters returns every filter of h, cluster-wide then by template name,
// each once.
func (h *Model) filters() []any {
	var out []any
	seen := map[any]bool{}
	add := func(f any) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, f := range h.Submission {
		add(f)
	}
	for _, f := range h.Activation {
		add(f)
	}
	for _, name := range sortedKeys(h.Templates) {
		t := h.Templates[name]
		for _, f := range t.Submission {
			add(f)
		}
		for _, f := range t.Activation {
			add(f)
		}
	}
	return out
}

// SetTick makes tick (ticks per second; 1: seconds) the unit of the
// engine's times for h and for each of its filters that reads times: its
// program filters, quota and run-time filter (see Model.Tick).
func (h *Model) SetTick(tick workload.Time) {
	h.Tick = tick
	for _, f := range h.filters() {
		switch f := f.(type) {
		case *ExecFilter:
			f.Tick = tick
		case *Quota:
			f.Tick = tick
		case *RequireRuntime:
			f.Tick = tick
		}
	}
}

// ExecStats sums the calls and wall time of h's filter programs.
func (h *Model) ExecStats() ExecStats {
	var s ExecStats
	for _, f := range h.filters() {
		if x, ok := f.(*ExecFilter); ok {
			s.Calls += x.stats.Calls
			s.Wall += x.stats.Wall
		}
	}
	return s
}

// Close closes the filters that hold resources (the job files of filter
// programs) and returns the first error.
func (h *Model) Close() error {
	var first error
	for _, f := range h.filters() {
		if c, ok := f.(io.Closer); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
