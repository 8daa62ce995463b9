// Package external runs a scheduling policy written in any language as a
// process of its own, which schedsim talks to through a small versioned
// protocol (Protocol): newline-delimited JSON over the program's standard
// input and output. It implements policy.Policy: to the engine, an external
// policy is a policy like any other; the process I/O stays here, behind the
// interface, and the engine stays pure.
//
// The protocol, message by message, is in the README ("Write your own
// policy"). In short: schedsim sends a hello with the machine and reads
// the policy's hello (the same protocol version, or the run stops); then,
// at each instant where a waiting job fits the free processors (at other
// instants no policy could start anything), a pass message with what changed since the previous one (the
// time, the free processors, the jobs submitted, the jobs that ended), and
// reads one answer line: the jobs to start, reservations, a wake-up, and
// optionally which submissions alone could make it act until something
// ends (quiet: schedsim does not call it for the others). At the end it
// sends an end message and closes the program's input. A run with node
// events (or nodes switched off), on a cluster of nodes, or under
// reservations, start windows and limits says so in its hello; a program
// may then ask for the node events and the placements, and ask which jobs
// fit now (an answer's ask, answered by a fits message) before it starts
// them. A program that asks for none of it is spoken to as before.
//
// Every decision is checked before the engine sees it: a start that does
// not fit, a job that is not queued, a reservation in the past or one
// broken, a wake-up not after now, a malformed line, a wrong protocol
// version, a program that exits or does not answer within the timeout —
// each stops the run with an *Error naming the pass, the simulated time
// and the offending line, and the program's process group is killed.
package external

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// DefaultTimeout is how long schedsim waits for a policy's answer (or its
// hello) by default.
const DefaultTimeout = 60 * time.Second

// Stdio is the Command that makes schedsim itself the child: it speaks the
// protocol over its own standard input and output, to the process that
// started it (a reinforcement-learning environment, a test harness).
const Stdio = "-"

// Config describes an external policy.
type Config struct {
	// Command is the program and its arguments, run by /bin/sh -c in the
	// working directory, or Stdio.
	Command string
	// Timeout bounds the wall time of every answer (0: DefaultTimeout):
	// a program that is late is killed. Not under Stdio, where the parent
	// is in charge.
	Timeout time.Duration
	// Log, if not nil, receives every message, one a line: "> " before
	// those schedsim sent, "< " before those it read.
	Log io.Writer
	// Stderr receives the program's standard error (nil: os.Stderr).
	Stderr io.Writer
	// Context, if not nil, kills the program when it is cancelled: the
	// run stops with an error wrapping the context's.
	Context context.Context
	// NodeEvents says that the run has node events (sim.Config.NodeEvents):
	// schedsim's hello says so, and a policy may ask for them.
	NodeEvents bool
	// Calendar says that the run has reservations, start windows or
	// limits (sim.Config.Constraints): schedsim's hello says so. The
	// engine enforces them: a start they forbid is refused, and a policy
	// asks (an answer's ask) which jobs may start.
	Calendar bool
	// TimeUnit is the run's time unit when finer than the second ("ms",
	// "us"; "" for seconds): schedsim's hello says it (time_unit), and
	// every time of the messages and answers is in it.
	TimeUnit string
}

// Policy is a policy.Policy whose decisions come from a program. It keeps
// what the program was told (the jobs queued and running, their
// reservations) to check its answers. Use a new one for every run, and
// Close it when the run is over.
type Policy struct {
	cfg     Config
	timeout time.Duration
	name    string
	err     error

	started bool  // the program runs and said hello
	fields  uint8 // the job fields the program asked for (fieldMask)
	closed  bool
	cmd     *exec.Cmd
	in      *os.File // the program's standard input
	out     *os.File // the program's standard output
	rd      *bufio.Reader
	stopCtx func() bool
	mu      sync.Mutex // guards killed against the timer's and the context's goroutines
	killed  bool
	// watch kills the program when an answer is late; timedOut reports
	// that it did.
	watch    *watchdog
	timedOut atomic.Bool

	jobs map[int64]jobState // queued and running jobs
	// sizes counts the queued jobs by processors; minProcs is the
	// smallest key, recomputed when minDirty.
	sizes    map[int]int
	minProcs int
	minDirty bool
	lastSeq  int64         // largest Seq seen
	prevLen  int           // queue length after the previous pass
	pass     int64         // passes sent
	now      workload.Time // the time of the last pass
	last     workload.Time // the time of the last call of Schedule

	// quiet is the rule of the last answer's quiet, and quietVoid
	// reports that it no longer holds (a submission it lets through, or
	// a wake-up fell due); wakes are the wake-ups asked for, sorted.
	quiet     quietRule
	quietVoid bool
	wakes     []workload.Time

	// nodeEvents: the program asked for the node events; nev are those
	// not yet sent, and backDirty reports that the processors the
	// running jobs give back may have changed since the last pass sent.
	nodeEvents bool
	nev        encoder
	backDirty  bool
	back       []backChange
	// view is the View of the last pass, nv, fit and pv the same as a
	// policy.NodeViewer, Fitter and PlacementViewer (nil if it is not
	// one).
	view policy.View
	nv   policy.NodeViewer
	fit  policy.Fitter
	pv   policy.PlacementViewer
	ref  policy.Refuser
	held []heldJob // scratch: the jobs asked about that the calendar holds
	// spec is the cluster of nodes the run is on (SetCluster), or nil;
	// placed: the program asked for the placements, and plc are those
	// not yet sent.
	spec   *cluster.Spec
	placed bool
	plc    encoder
	where  []cluster.Range // scratch
	fits   []int64         // scratch
	// epoch is the View's epoch (policy.NodeViewer) when the promises
	// were made: a later one voids them.
	epoch uint32

	msg  encoder // the message being sent
	sub  encoder // the submitted jobs not yet sent
	ends []ended // the ended jobs not yet sent
	line []byte  // the answer being read
	ans  Answer
}

// jobState is what a Policy keeps about a job it told the program of.
type jobState struct {
	procs   int
	running bool
	killed  bool          // it will be killed at its requested time
	promise workload.Time // the earliest start reserved for it, or Forever
	back    int           // running: the processors it gives back at its end, as the program was told
}

var _ policy.Fallible = (*Policy)(nil)

// New returns an external policy for c. The program starts at the first
// scheduling pass, which tells it the machine.
func New(c Config) (*Policy, error) {
	if strings.TrimSpace(c.Command) == "" {
		return nil, errors.New("external policy: empty command")
	}
	p := &Policy{cfg: c, timeout: c.Timeout, jobs: make(map[int64]jobState), sizes: make(map[int]int), lastSeq: -1}
	if p.timeout <= 0 {
		p.timeout = DefaultTimeout
	}
	return p, nil
}

// Name implements policy.Policy: external(NAME), NAME being the name the
// program gave in its hello.
func (p *Policy) Name() string {
	if p.name == "" {
		return "external"
	}
	return "external(" + p.name + ")"
}

// Err implements policy.Fallible.
func (p *Policy) Err() error { return p.err }

// Stranded implements policy.Fallible.
func (p *Policy) Stranded(queued int) error {
	p.fail(&Error{Pass: p.pass, Time: p.now, Msg: fmt.Sprintf("the run ends with %d jobs queued that the policy did not start, with nothing running, no job left to submit and no wake-up asked for (a policy must start a job that fits the free processors, or ask to be woken)", queued)})
	return p.err
}

// Passes returns the number of pass messages sent so far.
func (p *Policy) Passes() int64 { return p.pass }

// Error is a policy's failure: the pass (0: the handshake), the simulated
// time, what went wrong and the line that was wrong, if any.
type Error struct {
	Pass int64
	Time workload.Time
	Msg  string
	// Line is the offending line the program wrote, or "".
	Line string
	// Sent is, when the program did not answer, the message it did not
	// answer (possibly cut), or "".
	Sent string
	// Err is the underlying error (a context's), or nil.
	Err error
}

// maxQuoted is how much of a line an error quotes.
const maxQuoted = 300

func quote(s string) string {
	s = strings.TrimRight(s, "\r\n")
	if len(s) > maxQuoted {
		return fmt.Sprintf("%s… (%d bytes)", s[:maxQuoted], len(s))
	}
	return s
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("external policy: ")
	if e.Pass == 0 {
		b.WriteString("handshake: ")
	} else {
		fmt.Fprintf(&b, "pass %d at time %d: ", e.Pass, e.Time)
	}
	b.WriteString(e.Msg)
	if e.Line != "" {
		b.WriteString("; line: ")
		b.WriteString(quote(e.Line))
	}
	if e.Sent != "" {
		b.WriteString("; unanswered: ")
		b.WriteString(quote(e.Sent))
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// fail records the first error and kills the program.
func (p *Policy) fail(err error) {
	if p.err == nil {
		p.err = err
	}
	p.kill()
}

// errorf returns an *Error of the current pass.
func (p *Policy) errorf(line []byte, format string, args ...any) *Error {
	return &Error{Pass: p.pass, Time: p.now, Msg: fmt.Sprintf(format, args...), Line: string(line)}
}

// Schedule implements policy.Policy.
func (p *Policy) Schedule(v policy.View, d policy.Decisions) {
	if p.err != nil || p.closed {
		return
	}
	if !p.started {
		// The handshake: the first pass follows the first submission.
		if err := p.start(v.Capacity()); err != nil {
			p.fail(err)
			return
		}
	}
	p.last = v.Now()
	for len(p.wakes) > 0 && p.wakes[0] <= p.last {
		p.wakes = p.wakes[1:]
		p.quietVoid = true // a wake-up fell due
	}
	if v != p.view {
		p.view = v
		p.nv, _ = v.(policy.NodeViewer)
		p.fit, _ = v.(policy.Fitter)
		p.pv, _ = v.(policy.PlacementViewer)
		p.ref, _ = v.(policy.Refuser)
	}
	if p.nv != nil {
		p.nodeChanges(p.nv)
	}
	for _, x := range v.Ended() {
		st := p.jobs[x.Seq]
		p.ends = append(p.ends, ended{id: x.Seq, start: int64(x.Start), end: int64(x.End), procs: x.Procs, killed: st.killed})
		delete(p.jobs, x.Seq)
	}
	p.collect(v)
	n := v.Len()
	free := v.Free()
	if n == 0 || p.smallest() > free || (p.quiet.valid && !p.quietVoid && len(p.ends) == 0 && p.ref == nil) {
		// No waiting job fits: nothing could start, whatever the
		// policy; or the policy said that the jobs submitted since
		// could not make it act (not under a calendar, whose
		// reservations and windows begin and end at instants the
		// policy is not told of). What happened goes with the next
		// pass.
		p.prevLen = n
		return
	}
	p.quiet.valid, p.quietVoid = false, false
	p.now = v.Now()
	p.pass++
	if p.backDirty {
		p.backChanges(v)
	}
	p.msg.passMsg(p.pass, p.now, free, v.Capacity(), n, v.NumRunning(), p.sub.b, p.ends, p.nev.b, p.back, p.plc.b)
	p.sub.reset()
	p.nev.reset()
	p.plc.reset()
	p.back = p.back[:0]
	p.ends = p.ends[:0]
	started := 0
	for {
		line, err := p.exchange()
		if err != nil {
			p.fail(err)
			return
		}
		if err := ParseAnswer(line, &p.ans); err != nil {
			p.fail(p.errorf(line, "%v", err))
			return
		}
		k, err := p.apply(v, d, line)
		started += k
		if err != nil {
			p.fail(err)
			return
		}
		if p.ans.Ask == nil {
			break
		}
		// Not the pass's last answer: say which of the jobs asked
		// about fit now, and read on.
		if err := p.answerAsk(v, line); err != nil {
			p.fail(err)
			return
		}
	}
	p.prevLen = n - started
}

// answerAsk writes, into p.msg, the fits message that answers the ask of
// the answer just applied.
func (p *Policy) answerAsk(v policy.View, line []byte) error {
	p.fits, p.held = p.fits[:0], p.held[:0]
	free := v.Free()
	for _, id := range p.ans.Ask {
		st, ok := p.jobs[id]
		if !ok || st.running {
			return p.errorf(line, "ask: job %d is not queued", id)
		}
		i := -1
		if p.ref != nil || p.fit != nil {
			if i = p.indexOf(v, id); i < 0 {
				return p.errorf(line, "ask: job %d is not in the queue", id)
			}
		}
		if p.ref != nil {
			if why := p.ref.Refusal(i); why != "" {
				p.held = append(p.held, heldJob{id, why})
				continue
			}
		}
		if st.procs > free || (p.fit != nil && !p.fit.Fits(i)) {
			continue
		}
		p.fits = append(p.fits, id)
	}
	p.msg.fitsMsg(p.pass, free, p.fits, p.held, p.plc.b)
	p.plc.reset()
	return nil
}

// refusals word the calendar's refusals (policy.Refuser) in an error.
var refusals = map[string]string{
	"limit":        "a limit holds it ([[limit]])",
	"start window": "no start window of its is open now ([[start_window]])",
	"reservation":  "it would run into a reservation it may not use ([[reservation]])",
}

// heldJob is a job asked about that the calendar holds, and why.
type heldJob struct {
	id  int64
	why string
}

// WholeQueue implements policy.WholeQueue: the program keeps its own copy
// of the queue, so it is shown the jobs a limit holds too, and told why
// they may not start when it asks.
func (p *Policy) WholeQueue() bool { return true }

// SetCluster tells the policy the cluster of nodes the run is on, before
// the run: schedsim's hello then describes its nodes and partitions.
func (p *Policy) SetCluster(s *cluster.Spec) { p.spec = s }

// nodeChanges takes in what the node events since the previous pass did:
// the jobs they stopped did not reach their requested time, the
// promises of an earlier epoch are void, the submissions the last
// answer's quiet ruled out may now start (processors came back), and the
// program, if it asked, is told of them with the next pass.
func (p *Policy) nodeChanges(nv policy.NodeViewer) {
	if ep := nv.Epoch(); ep != p.epoch {
		p.epoch = ep
		for id, st := range p.jobs {
			if st.promise != workload.Forever {
				st.promise = workload.Forever
				p.jobs[id] = st
			}
		}
	}
	cs := nv.NodeChanges()
	if len(cs) == 0 {
		return
	}
	p.quietVoid = true
	for k := range cs {
		c := &cs[k]
		for _, id := range c.Stopped {
			if st, ok := p.jobs[id]; ok {
				st.killed = false // stopped before its requested time
				p.jobs[id] = st
			}
		}
		if p.nodeEvents {
			p.nev.nodeEvent(c)
			p.backDirty = true
		}
	}
}

// backChanges lists the running jobs whose processors given back to
// service at their end differ from what the program was told, in id
// order.
func (p *Policy) backChanges(v policy.View) {
	p.backDirty = false
	nv := p.nv
	for k := range v.NumRunning() {
		_, procs := v.Running(k)
		id := nv.RunningSeq(k)
		if st, ok := p.jobs[id]; ok && st.back != procs {
			st.back = procs
			p.jobs[id] = st
			p.back = append(p.back, backChange{id: id, procs: procs})
		}
	}
	slices.SortFunc(p.back, func(a, b backChange) int { return cmp.Compare(a.id, b.id) })
}

// collect adds the jobs that joined the queue since the previous pass to
// the submissions to send. They are the tail of the queue, in arrival
// order, unless a job joined out of order (the end of a hold): then the
// whole queue is looked through.
func (p *Policy) collect(v policy.View) {
	n := v.Len()
	fast := n >= p.prevLen
	for i := p.prevLen; fast && i < n; i++ {
		fast = v.Job(i).Seq > p.lastSeq
	}
	if fast {
		for i := p.prevLen; i < n; i++ {
			p.add(v.Job(i))
		}
		return
	}
	for i := 0; i < n; i++ {
		if j := v.Job(i); !p.known(j.Seq) {
			p.add(j)
		}
	}
}

func (p *Policy) known(seq int64) bool {
	_, ok := p.jobs[seq]
	return ok
}

// quietRule is an answer's Quiet, checked.
type quietRule struct {
	valid        bool
	procs, extra int
	until        workload.Time // or -1: no time clause
}

// may reports whether a job j submitted at now could make the policy act.
func (r *quietRule) may(j *workload.Job, now workload.Time) bool {
	return j.Procs <= r.procs && ((r.until >= 0 && j.Estimate > 0 && now+j.Estimate <= r.until) || j.Procs <= r.extra)
}

// smallest returns the processors of the smallest queued job.
func (p *Policy) smallest() int {
	if p.minDirty {
		p.minDirty = false
		p.minProcs = int(^uint(0) >> 1)
		for k := range p.sizes {
			p.minProcs = min(p.minProcs, k)
		}
	}
	return p.minProcs
}

// add records a job that joined the queue and adds it to the submissions
// to send.
func (p *Policy) add(j *workload.Job) {
	p.jobs[j.Seq] = jobState{procs: j.Procs, killed: j.Estimate > 0 && j.Run > j.Estimate, promise: workload.Forever}
	if len(p.sizes) == 0 || j.Procs < p.minProcs {
		p.minProcs = j.Procs
	}
	p.sizes[j.Procs]++
	p.lastSeq = max(p.lastSeq, j.Seq)
	if p.quiet.valid && !p.quietVoid && p.quiet.may(j, p.last) {
		p.quietVoid = true
	}
	if len(p.sub.b) > 0 {
		p.sub.raw(",")
	}
	p.sub.job(j, p.fields)
}

// apply checks the answer's decisions and passes them on, in order: the
// starts, the reservations, the wake-up. It returns how many jobs started.
func (p *Policy) apply(v policy.View, d policy.Decisions, line []byte) (int, error) {
	a := &p.ans
	started := 0
	for _, id := range a.Start {
		st, ok := p.jobs[id]
		switch {
		case !ok:
			return started, p.errorf(line, "start: job %d is not queued (no job with this id was submitted, or it has ended)", id)
		case st.running:
			return started, p.errorf(line, "start: job %d has already started", id)
		}
		if free := v.Free(); st.procs > free {
			return started, p.errorf(line, "start: job %d needs %d processors, %d are free", id, st.procs, free)
		}
		if p.now > st.promise && (p.nv == nil || p.nv.Promises()) {
			return started, p.errorf(line, "start: job %d starts after the time reserved for it, %d", id, st.promise)
		}
		i := p.indexOf(v, id)
		if i < 0 {
			return started, p.errorf(line, "start: job %d is not in the queue", id)
		}
		if p.ref != nil {
			if why := p.ref.Refusal(i); why != "" {
				return started, p.errorf(line, "start: job %d may not start now: %s (ask schedsim with \"ask\")", id, refusals[why])
			}
		}
		if p.fit != nil && !p.fit.Fits(i) {
			return started, p.errorf(line, "start: job %d (%d processors) does not fit the nodes now (%d processors are free, but not on nodes it may use: ask schedsim with \"ask\")", id, st.procs, v.Free())
		}
		d.Start(i)
		st.running = true
		st.back = st.procs
		if p.pv != nil {
			var held int
			held, p.where = p.pv.Placed(i, p.where[:0])
			st.back = held
			if p.placed {
				p.plc.placement(id, held, p.where)
			}
		}
		p.jobs[id] = st
		if c := p.sizes[st.procs] - 1; c > 0 {
			p.sizes[st.procs] = c
		} else {
			delete(p.sizes, st.procs)
			p.minDirty = p.minDirty || st.procs == p.minProcs
		}
		started++
	}
	for _, r := range a.Reserve {
		st, ok := p.jobs[r.ID]
		switch {
		case !ok || st.running:
			return started, p.errorf(line, "reserve: job %d is not queued", r.ID)
		case r.At < int64(p.now):
			return started, p.errorf(line, "reserve: job %d at %d, before now", r.ID, r.At)
		case r.At > int64(workload.MaxTime):
			return started, p.errorf(line, "reserve: job %d at %d, after the last time schedsim represents, %d", r.ID, r.At, workload.MaxTime)
		}
		i := p.indexOf(v, r.ID)
		if i < 0 {
			return started, p.errorf(line, "reserve: job %d is not in the queue", r.ID)
		}
		if at := workload.Time(r.At); at < st.promise {
			st.promise = at
			p.jobs[r.ID] = st
		}
		d.Reserve(i, workload.Time(r.At))
	}
	if a.Wake != nil {
		t := *a.Wake
		switch {
		case t <= int64(p.now):
			return started, p.errorf(line, "wake: %d is not after now", t)
		case t > int64(workload.MaxTime):
			return started, p.errorf(line, "wake: %d is after the last time schedsim represents, %d", t, workload.MaxTime)
		}
		d.WakeAt(workload.Time(t))
		k, _ := slices.BinarySearch(p.wakes, workload.Time(t))
		p.wakes = slices.Insert(p.wakes, k, workload.Time(t))
	}
	if q := a.Quiet; q != nil {
		if q.Procs < 0 || q.Extra < 0 {
			return started, p.errorf(line, "quiet: procs %d and extra %d: want counts ≥ 0", q.Procs, q.Extra)
		}
		p.quiet = quietRule{valid: true, procs: int(min(q.Procs, 1<<40)), extra: int(min(q.Extra, 1<<40)), until: -1}
		if q.Until != nil {
			p.quiet.until = workload.Time(max(min(*q.Until, int64(workload.MaxTime)), -1))
		}
	}
	return started, nil
}

// seqSearcher and arrivalOrdered are optional interfaces of the engine's
// View: finding a job by Seq in an arrival-ordered queue.
type seqSearcher interface {
	SearchSeq(lo, hi int, seq int64) int
}

type arrivalOrdered interface {
	ArrivalOrder() bool
}

// seqIndexer is an optional interface of a View (the engine's under
// reservations and limits) that finds a job by Seq itself.
type seqIndexer interface {
	IndexOfSeq(seq int64) int
}

// indexOf returns the queue index of the job with Seq id, or -1.
func (p *Policy) indexOf(v policy.View, id int64) int {
	if si, ok := v.(seqIndexer); ok {
		return si.IndexOfSeq(id)
	}
	n := v.Len()
	if ao, ok := v.(arrivalOrdered); ok && ao.ArrivalOrder() {
		if ss, ok := v.(seqSearcher); ok {
			if k := ss.SearchSeq(0, n, id); k < n && v.Job(k).Seq == id {
				return k
			}
			return -1
		}
	}
	for i := 0; i < n; i++ {
		if v.Job(i).Seq == id {
			return i
		}
	}
	return -1
}

// exchange sends p.msg and reads one answer line, within the timeout.
func (p *Policy) exchange() ([]byte, error) {
	if p.watch != nil {
		p.watch.begin()
		defer p.watch.end()
	}
	if err := p.send(p.msg.b); err != nil {
		return nil, err
	}
	return p.readLine()
}

// send writes one message.
func (p *Policy) send(msg []byte) error {
	if p.cfg.Log != nil {
		p.cfg.Log.Write([]byte("> "))
		p.cfg.Log.Write(msg)
	}
	if _, err := p.in.Write(msg); err != nil {
		return p.ioError(err, msg)
	}
	return nil
}

// maxLine bounds an answer line.
const maxLine = 64 << 20

// readLine reads one line of the program's output.
func (p *Policy) readLine() ([]byte, error) {
	p.line = p.line[:0]
	for {
		b, err := p.rd.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			p.line = append(p.line, b...)
			if len(p.line) > maxLine {
				return nil, p.errorf(p.line, "a line longer than %d bytes", maxLine)
			}
			continue
		}
		if err != nil {
			if len(b) > 0 || len(p.line) > 0 {
				p.line = append(p.line, b...)
				if errors.Is(err, io.EOF) {
					return nil, p.errorf(p.line, "the policy's output ends without a newline")
				}
			}
			return nil, p.ioError(err, p.msg.b)
		}
		if len(p.line) > 0 {
			p.line = append(p.line, b...)
			b = p.line
		}
		if p.cfg.Log != nil {
			p.cfg.Log.Write([]byte("< "))
			p.cfg.Log.Write(b)
		}
		return b, nil
	}
}

// ioError words a failure to talk to the program: interrupted, timed out,
// or the program exited.
func (p *Policy) ioError(err error, sent []byte) error {
	e := &Error{Pass: p.pass, Time: p.now, Sent: string(sent)}
	switch {
	case p.stopCtx != nil && p.cfg.Context.Err() != nil:
		e.Msg, e.Err, e.Sent = "interrupted", p.cfg.Context.Err(), ""
	case p.timedOut.Load():
		e.Msg = fmt.Sprintf("no answer within %s", p.timeout)
		p.wait()
	case p.cmd != nil:
		p.kill()
		werr := p.wait()
		var ee *exec.ExitError
		switch {
		case errors.As(werr, &ee) && ee.ExitCode() >= 0:
			e.Msg = fmt.Sprintf("the policy exited with status %d without answering", ee.ExitCode())
		case werr == nil:
			e.Msg = "the policy exited with status 0 without answering"
		default:
			e.Msg = fmt.Sprintf("the policy stopped without answering (%v)", werr)
		}
	default:
		e.Msg = fmt.Sprintf("cannot talk to the policy: %v", err)
	}
	return e
}

// start starts the program and makes the handshake.
func (p *Policy) start(procs int) error {
	p.started = true
	if p.cfg.Context != nil && p.cfg.Context.Err() != nil {
		return &Error{Msg: "interrupted", Err: p.cfg.Context.Err()}
	}
	if p.cfg.Command == Stdio {
		p.in, p.out = os.Stdout, os.Stdin
	} else {
		if err := p.startProcess(); err != nil {
			return err
		}
		p.watch = newWatchdog(p.timeout, func() {
			p.timedOut.Store(true)
			p.kill()
		})
	}
	p.rd = bufio.NewReaderSize(p.out, 64<<10)
	if p.cfg.Context != nil {
		p.stopCtx = context.AfterFunc(p.cfg.Context, p.kill)
	}
	p.msg.helloMsg(procs, p.cfg.NodeEvents, p.cfg.Calendar, p.spec, p.cfg.TimeUnit)
	line, err := p.exchange()
	if err != nil {
		return err
	}
	var h hello
	if err := parseHello(line, &h); err != nil {
		return &Error{Msg: err.Error(), Line: string(line)}
	}
	p.name = h.Name
	p.fields, _ = fieldMask(h.Fields)
	p.msg.rows, p.sub.rows = h.Rows, h.Rows
	p.nodeEvents = h.NodeEvents
	p.placed = h.Placed
	return nil
}

// startProcess starts the command with pipes for its standard input and
// output, in a process group of its own.
func (p *Policy) startProcess() error {
	cmd := exec.Command(shell, "-c", p.cfg.Command)
	inR, inW, err := pipe()
	if err != nil {
		return err
	}
	outR, outW, err := pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	cmd.Stderr = p.cfg.Stderr
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	cmd.Env = append(os.Environ(), "SCHEDSIM_POLICY_PROTOCOL="+Protocol)
	cmd.WaitDelay = time.Second
	newGroup(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return &Error{Msg: fmt.Sprintf("cannot start %q: %v", p.cfg.Command, err)}
	}
	p.cmd, p.in, p.out = cmd, inW, outR
	return nil
}

// kill kills the program's process group (once); safe from any goroutine.
func (p *Policy) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.killed {
		return
	}
	if p.cmd != nil && p.cmd.Process != nil {
		p.killed = true
		killGroup(p.cmd.Process)
	}
}

// wait reaps the program (once) and returns cmd.Wait's error.
func (p *Policy) wait() error {
	if p.cmd == nil || p.cmd.ProcessState != nil {
		return nil
	}
	return p.cmd.Wait()
}

// Close ends the program: after a run that went well it sends the end
// message, closes the program's input and gives it the timeout to exit;
// then, and always, its process group is killed and it is reaped. Close
// returns nil: a run's result does not depend on how its policy exits.
func (p *Policy) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	if p.stopCtx != nil {
		p.stopCtx()
	}
	if !p.started {
		return nil
	}
	if p.err == nil && p.in != nil {
		p.msg.endMsg(max(p.last, p.now), p.pass, p.ends)
		p.ends = p.ends[:0]
		_ = p.send(p.msg.b)
	}
	if p.cmd == nil {
		return nil // standard output stays open
	}
	p.in.Close()
	if p.err == nil {
		// Let the program exit by itself, within the timeout: read its
		// output to the end.
		p.watch.begin()
		io.Copy(io.Discard, p.rd)
		p.watch.end()
	}
	p.watch.stop()
	p.kill()
	p.out.Close()
	_ = p.wait()
	return nil
}
