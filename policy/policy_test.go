package policy_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

const (
	forever = workload.Forever
	none    = workload.Unknown
)

// running is a running job as the fake view shows it.
type running struct {
	end   workload.Time // predicted end
	procs int
}

// fakeView is a policy.View and policy.Decisions over a fixed queue and
// running set. Start applies at once (the started job shows as running, by
// its estimate) and is logged, like Reserve, as a line of text.
type fakeView struct {
	policy.View // methods this fake does not implement panic (nil interface)

	now      workload.Time
	capacity int
	running  []running // kept sorted by end, ties in order of start
	queue    []workload.Job
	started  []bool
	log      []string
}

func newView(now workload.Time, capacity int, run []running, queue ...workload.Job) *fakeView {
	v := &fakeView{now: now, capacity: capacity, queue: queue, started: make([]bool, len(queue))}
	for _, r := range run {
		v.addRunning(r)
	}
	return v
}

func (v *fakeView) addRunning(r running) {
	k := sort.Search(len(v.running), func(i int) bool { return v.running[i].end > r.end })
	v.running = append(v.running, running{})
	copy(v.running[k+1:], v.running[k:])
	v.running[k] = r
}

func (v *fakeView) Now() workload.Time { return v.now }
func (v *fakeView) Capacity() int      { return v.capacity }
func (v *fakeView) Len() int           { return len(v.queue) }
func (v *fakeView) Job(i int) *workload.Job {
	return &v.queue[i]
}
func (v *fakeView) Ended() []policy.Ended { return nil }

func (v *fakeView) Free() int {
	f := v.capacity
	for _, r := range v.running {
		f -= r.procs
	}
	return f
}

func (v *fakeView) NumRunning() int { return len(v.running) }

func (v *fakeView) Running(k int) (workload.Time, int) {
	return v.running[k].end, v.running[k].procs
}

func (v *fakeView) Start(i int) {
	j := &v.queue[i]
	if v.started[i] {
		panic(fmt.Sprintf("fake: job %d started twice", i))
	}
	if j.Procs > v.Free() {
		panic(fmt.Sprintf("fake: job %d (%d procs) started with %d free", i, j.Procs, v.Free()))
	}
	v.started[i] = true
	end := forever
	if j.Estimate > 0 {
		end = v.now + j.Estimate
	}
	v.addRunning(running{end, j.Procs})
	v.log = append(v.log, fmt.Sprintf("start %d", i))
}

func (v *fakeView) WakeAt(t workload.Time) {
	v.log = append(v.log, fmt.Sprintf("wake at %d", t))
}

func (v *fakeView) Reserve(i int, at workload.Time) {
	v.log = append(v.log, fmt.Sprintf("reserve %d at %d", i, at))
}

// q builds a queued job of procs processors and an estimate (none: no
// estimate); the policy does not look at the run time.
func q(procs int, estimate workload.Time) workload.Job {
	return workload.Job{Procs: procs, Run: 1, Estimate: estimate}
}

func TestSchedule(t *testing.T) {
	cases := []struct {
		name string
		pol  policy.Policy
		view *fakeView
		want []string
	}{
		{
			name: "fcfs: heads start while they fit, then nothing, no reservation",
			pol:  policy.FCFS{},
			view: newView(0, 4, []running{{10, 2}}, q(1, 5), q(4, 5), q(1, 5)),
			want: []string{"start 0"},
		},
		{
			name: "fcfs: empty queue",
			pol:  policy.FCFS{},
			view: newView(0, 4, nil),
			want: nil,
		},
		{
			name: "easy: all heads fit, in order, no reservation",
			pol:  &policy.EASY{Lookahead: policy.LookaheadAll},
			view: newView(0, 4, nil, q(2, 5), q(1, 5), q(1, 5)),
			want: []string{"start 0", "start 1", "start 2"},
		},
		{
			name: "easy: blocked head reserved at the shadow 10; 1 ends at 10 and backfills, 2 ends at 11 and does not",
			pol:  &policy.EASY{Lookahead: policy.LookaheadAll},
			view: newView(0, 4, []running{{10, 2}}, q(4, 10), q(1, 10), q(1, 11)),
			want: []string{"reserve 0 at 10", "start 1"},
		},
		{
			name: "easy: the window is measured from now (5): estimate 5 ends at the shadow 10, 6 does not",
			pol:  &policy.EASY{Lookahead: policy.LookaheadAll},
			view: newView(5, 4, []running{{10, 2}}, q(4, 10), q(1, 6), q(1, 5)),
			want: []string{"reserve 0 at 10", "start 2"},
		},
		{
			name: "easy: crossing jobs consume the extra (2): 1 takes 1, 2 (2) refused, 3 takes 1, 4 ends before the shadow",
			pol:  &policy.EASY{Lookahead: policy.LookaheadAll},
			view: newView(0, 10, []running{{10, 6}}, q(8, 10), q(1, 100), q(2, 100), q(1, 100), q(2, 5)),
			want: []string{"reserve 0 at 10", "start 1", "start 3", "start 4"},
		},
		{
			name: "easy: jobs without an estimate (unknown or 0) are never backfilled",
			pol:  &policy.EASY{Lookahead: policy.LookaheadAll},
			view: newView(0, 4, []running{{10, 2}}, q(4, 10), q(1, none), q(1, 0), q(1, 10)),
			want: []string{"reserve 0 at 10", "start 3"},
		},
		{
			name: "easy: a head without an estimate starts as head; the next head's shadow ignores it (10)",
			pol:  &policy.EASY{Lookahead: policy.LookaheadAll},
			view: newView(0, 4, []running{{10, 2}}, q(2, none), q(2, none)),
			want: []string{"start 0", "reserve 1 at 10"},
		},
		{
			name: "easy: shadow unknown (running job without estimate): no reservation, only the extra (2)",
			pol:  &policy.EASY{Lookahead: policy.LookaheadAll},
			view: newView(0, 10, []running{{forever, 6}}, q(8, 10), q(2, 5), q(1, 5)),
			want: []string{"start 1"},
		},
		{
			name: "easy: the lookahead counts from behind the blocked head, not from the queue's start",
			pol:  &policy.EASY{Lookahead: 1},
			view: newView(0, 8, nil, q(3, 10), q(2, 10), q(8, 10), q(1, 5), q(1, 5)),
			want: []string{"start 0", "start 1", "reserve 2 at 10", "start 3"},
		},
		{
			name: "easy: lookahead 0 reserves but backfills nothing",
			pol:  &policy.EASY{Lookahead: 0},
			view: newView(0, 4, []running{{10, 2}}, q(4, 10), q(1, 5)),
			want: []string{"reserve 0 at 10"},
		},
		{
			name: "easy: lookahead 2 looks at 1 (refused) and 2, not 3",
			pol:  &policy.EASY{Lookahead: 2},
			view: newView(0, 8, []running{{10, 5}}, q(8, 10), q(1, 20), q(1, 5), q(1, 5)),
			want: []string{"reserve 0 at 10", "start 2"},
		},
		{
			name: "easy: lookahead longer than the queue is the whole queue",
			pol:  &policy.EASY{Lookahead: 100},
			view: newView(0, 8, []running{{10, 5}}, q(8, 10), q(1, 20), q(1, 5), q(1, 5)),
			want: []string{"reserve 0 at 10", "start 2", "start 3"},
		},
		{
			name: "easy: nothing free: the reservation only",
			pol:  &policy.EASY{Lookahead: policy.LookaheadAll},
			view: newView(0, 4, []running{{10, 4}}, q(2, 10), q(1, 1)),
			want: []string{"reserve 0 at 10"},
		},
		{
			name: "easy: a job started as head in this pass delays the shadow (it counts as running)",
			pol:  &policy.EASY{Lookahead: policy.LookaheadAll},
			// 0 starts (ends 20), head 1 needs 4: 2 free now + 2 at 20 → shadow 20; 2 ends by 20.
			view: newView(0, 4, nil, q(2, 20), q(4, 10), q(2, 20)),
			want: []string{"start 0", "reserve 1 at 20", "start 2"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.pol.Schedule(c.view, c.view)
			if got, want := strings.Join(c.view.log, "; "), strings.Join(c.want, "; "); got != want {
				t.Errorf("%s decided %q, want %q", c.pol.Name(), got, want)
			}
		})
	}
}

func TestShadow(t *testing.T) {
	cases := []struct {
		name      string
		now       workload.Time
		capacity  int
		running   []running
		procs     int
		at        workload.Time
		extra     int
		bug       string
		skipExtra bool
	}{
		{name: "enough free now: now, and the rest is extra", now: 7, capacity: 8, running: []running{{10, 4}},
			procs: 3, at: 7, extra: 1},
		{name: "first end that frees enough", capacity: 8, running: []running{{10, 4}, {20, 3}},
			procs: 3, at: 10, extra: 2},
		{name: "needs several ends", capacity: 8, running: []running{{5, 1}, {8, 2}, {12, 3}},
			procs: 7, at: 12, extra: 1},
		{name: "every job ending at the shadow time adds to the extra, none after", capacity: 8,
			running: []running{{10, 4}, {10, 3}, {20, 1}}, procs: 3, at: 10, extra: 4},
		{name: "a job without estimate the head does not need leaves the shadow finite", capacity: 8,
			running: []running{{10, 4}, {forever, 4}}, procs: 4, at: 10, extra: 0},
		{name: "a job without estimate the head needs: unknown", capacity: 8,
			running: []running{{10, 2}, {forever, 6}}, procs: 5, at: forever, skipExtra: true},
		{name: "exact fit: extra 0", capacity: 4, running: []running{{3, 4}}, procs: 4, at: 3, extra: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := newView(c.now, c.capacity, c.running)
			at, extra := policy.Shadow(v, c.procs)
			if at != c.at || (!c.skipExtra && extra != c.extra) {
				t.Errorf("Shadow(%d) = %d, extra %d; want %d, extra %d", c.procs, at, extra, c.at, c.extra)
			}
		})
	}
}

func TestLookaheadFlag(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"1000", 1000, true}, {"all", policy.LookaheadAll, true},
		{"ALL", policy.LookaheadAll, true}, {"-1", 0, false}, {"", 0, false}, {"x", 0, false}, {"1.5", 0, false},
	} {
		got, err := policy.ParseLookahead(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseLookahead(%q) = %d, %v; want %d, ok %v", c.in, got, err, c.want, c.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "policy: ") {
			t.Errorf("ParseLookahead(%q): error %q lacks the package prefix", c.in, err)
		}
		if c.ok {
			back, err := policy.ParseLookahead(policy.FormatLookahead(got))
			if err != nil || back != got {
				t.Errorf("round trip of %d through %q: %d, %v", got, policy.FormatLookahead(got), back, err)
			}
		}
	}
}

func TestNew(t *testing.T) {
	for _, c := range []struct {
		cfg  policy.Config
		name string
	}{
		{policy.Config{Backfill: policy.BackfillOff, Lookahead: 5}, "fcfs"},
		{policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.LookaheadAll}, "easy(lookahead=all)"},
		{policy.Config{Backfill: policy.BackfillEASY, Lookahead: 0}, "easy(lookahead=0)"},
		{policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.DefaultLookahead}, "easy(lookahead=1000)"},
	} {
		p, err := policy.New(c.cfg)
		if err != nil {
			t.Fatalf("New(%+v): %v", c.cfg, err)
		}
		if p.Name() != c.name {
			t.Errorf("New(%+v).Name() = %q, want %q", c.cfg, p.Name(), c.name)
		}
	}
	if _, err := policy.New(policy.Config{Backfill: "bogus"}); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("New(bogus): error %v, want one naming the value", err)
	}
	if _, err := policy.New(policy.Config{Backfill: policy.BackfillEASY, Lookahead: -2}); err == nil {
		t.Errorf("New with lookahead -2: no error")
	}
}

// TestShadowNoAllocs: a pass is on the simulator's hot path (one per
// instant), so computing the shadow must not allocate.
func TestShadowNoAllocs(t *testing.T) {
	v := newView(0, 8, []running{{5, 1}, {8, 2}, {12, 3}})
	if n := testing.AllocsPerRun(100, func() { policy.Shadow(v, 7) }); n != 0 {
		t.Errorf("Shadow allocates %v times per call", n)
	}
}
