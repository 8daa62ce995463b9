package infer

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/schedsim/schedsim/workload"
)

// plant are the rules a synthetic machine follows.
type plant struct {
	// drain: every day at drainUTC (seconds after midnight UTC, on a
	// clock without daylight saving) for drainSec, nothing runs; no job
	// runs across it.
	drain              bool
	drainUTC, drainSec int64
	// window: on weekdays, between winFromUTC and winToUTC (hours UTC), a
	// job asking more than winMaxSec may not start.
	window               bool
	winFromUTC, winToUTC int
	winMaxSec            int64
	// capUser runs at most capJobs jobs at once (0: no cap).
	capUser, capJobs int
	// outage: from outageAt for outageSec nothing runs.
	outage              bool
	outageAt, outageSec int64
	// queuePriority: queue 1's jobs are started before queue 2's.
	queuePriority bool
	// outOfService processors are never used; arrivalSec is the mean time
	// between submissions (0: 2400 s); sizes replaces the job sizes drawn.
	outOfService int
	arrivalSec   float64
	sizes        []int
	// nightQueue's jobs start only from 18:00 to 06:00 UTC (0: none).
	nightQueue int
	// holdEvery: every holdEvery-th job (by number) is held holdSec after
	// its submission, by something the log does not record (0: none).
	holdEvery int64
	holdSec   int64
	// throttleUser holds at most throttleProcs processors, but
	// throttleBurst on the one day in the middle of the log (0: none).
	throttleUser, throttleProcs, throttleBurst int
}

const (
	synthProcs = 64
	synthDays  = 120
)

// synthEpoch is Monday 1 January 2024, 00:00 UTC.
var synthEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

// synthLog schedules a seeded random workload on a 64-processor machine,
// minute by minute: at each minute it starts, in queue order, every queued
// job that fits and that the planted rules allow. The header's zone is
// Europe/Stockholm, but the planted clock rules are on UTC.
func synthLog(t *testing.T, p plant, seed uint64) *Log {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 24))
	type sjob struct {
		Job
		run int64
	}
	var jobs []*sjob
	reqs := []int64{1800, 3600, 7200, 4 * 3600, 8 * 3600, 12 * 3600, 20 * 3600}
	sizes := []int{1, 1, 2, 4, 8, 16, 32}
	if p.sizes != nil {
		sizes = p.sizes
	}
	arrival := 2400.0
	if p.arrivalSec > 0 {
		arrival = p.arrivalSec
	}
	var at int64
	for id := int64(1); ; id++ {
		at += int64(rng.ExpFloat64() * arrival)
		if at >= synthDays*86400 {
			break
		}
		req := reqs[rng.IntN(len(reqs))]
		user := 1 + rng.IntN(20)
		procs := sizes[rng.IntN(len(sizes))]
		if rng.IntN(4) == 0 {
			user, procs = 7, 1+rng.IntN(2) // a busy user of small jobs
		}
		run := max(60, int64(float64(req)*(0.2+0.8*rng.Float64())))
		jobs = append(jobs, &sjob{Job: Job{ID: id, Submit: workload.Time(at), Procs: procs, ReqTime: workload.Time(req), User: user, Queue: 1 + rng.IntN(2)}, run: run})
	}
	inDrain := func(t int64) bool {
		return p.drain && (t%86400-p.drainUTC+86400)%86400 < p.drainSec
	}
	// crossesDrain: a job running [s, s+d) overlaps a drain.
	crossesDrain := func(s, d int64) bool {
		if !p.drain {
			return false
		}
		day := s / 86400 * 86400
		for k := int64(-1); k <= d/86400+1; k++ {
			ds := day + k*86400 + p.drainUTC
			if s < ds+p.drainSec && ds < s+d {
				return true
			}
		}
		return false
	}
	inOutage := func(s, d int64) bool { return p.outage && s < p.outageAt+p.outageSec && p.outageAt < s+d }
	var queue []*sjob
	var running []*sjob
	busy := 0
	userRun := map[int]int{}
	userProcs := map[int]int{}
	next := 0
	for now := int64(0); now < (synthDays+3)*86400; now += 60 {
		kept := running[:0]
		for _, j := range running {
			if int64(j.End) <= now {
				busy -= j.Procs
				userRun[j.User]--
				userProcs[j.User] -= j.Procs
				continue
			}
			kept = append(kept, j)
		}
		running = kept
		for next < len(jobs) && int64(jobs[next].Submit) <= now {
			queue = append(queue, jobs[next])
			next++
		}
		if p.queuePriority {
			slices.SortStableFunc(queue, func(a, b *sjob) int { return a.Queue - b.Queue })
		}
		if inDrain(now) {
			continue
		}
		wd := time.Unix(synthEpoch+now, 0).UTC().Weekday()
		h := int(now % 86400 / 3600)
		windowOn := p.window && wd != time.Saturday && wd != time.Sunday && h >= p.winFromUTC && h < p.winToUTC
		rest := queue[:0]
		for _, j := range queue {
			ok := j.Procs <= synthProcs-p.outOfService-busy &&
				!(p.holdEvery > 0 && j.ID%p.holdEvery == 0 && now < int64(j.Submit)+p.holdSec) &&
				!(p.nightQueue > 0 && j.Queue == p.nightQueue && h >= 6 && h < 18) &&
				!crossesDrain(now, int64(j.ReqTime)) &&
				!inOutage(now, int64(j.ReqTime)) &&
				!(windowOn && int64(j.ReqTime) > p.winMaxSec) &&
				!(p.capJobs > 0 && j.User == p.capUser && userRun[j.User] >= p.capJobs) &&
				!(p.throttleUser > 0 && j.User == p.throttleUser && userProcs[j.User]+j.Procs > throttleAt(p, now))
			if !ok {
				rest = append(rest, j)
				continue
			}
			j.Start, j.End = workload.Time(now), workload.Time(now+j.run)
			busy += j.Procs
			userRun[j.User]++
			userProcs[j.User] += j.Procs
			running = append(running, j)
		}
		queue = rest
	}
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	l := &Log{Procs: synthProcs, Epoch: synthEpoch, Zone: stockholm, HasCalendar: true, Name: "synthetic.swf"}
	for _, j := range jobs {
		if j.End > 0 {
			l.Jobs = append(l.Jobs, j.Job)
		} else {
			l.Skipped++
		}
	}
	return l
}

// throttleAt is the planted throttled user's processor cap at now.
func throttleAt(p plant, now int64) int {
	if mid := int64(synthDays / 2 * 86400); now >= mid && now < mid+86400 {
		return p.throttleBurst
	}
	return p.throttleProcs
}

// planted is a machine with every rule.
var planted = plant{
	drain: true, drainUTC: 5 * 3600, drainSec: 1800,
	window: true, winFromUTC: 8, winToUTC: 17, winMaxSec: 4 * 3600,
	capUser: 7, capJobs: 2,
	outage: true, outageAt: 40*86400 + 10*3600, outageSec: 6 * 3600,
	queuePriority: true,
}

func TestInferFindsPlantedRules(t *testing.T) {
	l := synthLog(t, planted, 1)
	r, err := Infer(l, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := r.WriteTOML(&out, "synthetic.swf"); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d jobs; scenario:\n%s", len(l.Jobs), out.String())

	if r.Procs != synthProcs {
		t.Errorf("procs %d, want %d", r.Procs, synthProcs)
	}
	// The drains sit at 05:00 UTC all year: Stockholm's standard time
	// (UTC+01:00) lines them up, not its daylight saving time.
	if r.Zone != "UTC+01:00" {
		t.Errorf("zone %q, want UTC+01:00", r.Zone)
	}
	var drain *Reservation
	for i := range r.Drains {
		d := &r.Drains[i]
		if d.Recur == "daily" && d.DurationSec == 1800 && r.wall(l.Epoch, d.Start).Format("15:04") == "06:00" {
			drain = d
		}
	}
	if drain == nil {
		t.Errorf("no daily drain at 06:00 (UTC+01:00) for 30 min; drains: %+v", r.Drains)
	}
	// The window: weekdays 08:00-17:00 UTC = 09:00-18:00 UTC+01:00, at
	// most 4 h.
	for h := 9; h < 18; h++ {
		if w := windowAt(r, "Mon-Fri", h); w == nil || w.MaxWallSec != 4*3600 {
			t.Errorf("weekdays %02d:00: window %+v, want max_wall 4h", h, w)
		}
	}
	if w := windowAt(r, "Sat,Sun", 12); w != nil && w.MaxWallSec <= 4*3600 {
		t.Errorf("weekends 12:00: window %+v, want none or longer than 4h", w)
	}
	// The cap of user 7.
	found := false
	for _, lim := range r.Limits {
		if slices.Equal(lim.Users, []string{"7"}) && lim.MaxJobs == 2 {
			found = true
		}
		if slices.Contains(lim.Users, "*") {
			t.Errorf("a limit for every user: %+v", lim)
		}
	}
	if !found {
		t.Errorf("no cap of 2 jobs for user 7; limits %+v", r.Limits)
	}
	// The outage on day 40 from 10:00 UTC for 6 h.
	found = false
	for _, o := range r.Outages {
		if o.Start <= 40*86400+10*3600+600 && o.Start+o.DurationSec >= 40*86400+16*3600-600 && o.DurationSec < 12*3600 {
			found = true
		} else {
			t.Errorf("an outage not planted: %+v", o)
		}
	}
	if !found {
		t.Errorf("the outage of day 40 not found: %+v", r.Outages)
	}
	if len(r.Queues) == 0 || r.Queues[0].Queue != 1 {
		t.Errorf("queue order %+v, want queue 1 first", r.Queues)
	}
	checkTOML(t, out.Bytes(), r)
}

// windowAt returns the window of days covering hour h, or nil.
func windowAt(r *Result, days string, h int) *StartWindow {
	for i := range r.Windows {
		w := &r.Windows[i]
		if w.Days != days {
			continue
		}
		if (w.FromHour < w.ToHour && h >= w.FromHour && h < w.ToHour) || (w.FromHour >= w.ToHour && (h >= w.FromHour || h < w.ToHour)) {
			return w
		}
	}
	return nil
}

func TestInferFindsNothingWithoutRules(t *testing.T) {
	l := synthLog(t, plant{}, 2)
	r, err := Infer(l, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := r.WriteTOML(&out, "synthetic.swf"); err != nil {
		t.Fatal(err)
	}
	if len(r.Drains)+len(r.Windows)+len(r.Limits)+len(r.Outages)+len(r.Capacity)+len(r.Queues) > 0 {
		t.Errorf("found rules in a log without any:\n%s", out.String())
	}
	if r.Zone != "Europe/Stockholm" {
		t.Errorf("zone %q, want the header's", r.Zone)
	}
	for _, want := range []string{"recurring drains: none", "start windows: none", "per-user caps: none", "planned outages: none", "capacity timeline: the whole machine"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the scenario does not say %q", want)
		}
	}
	checkTOML(t, out.Bytes(), r)
}

func TestInferCapacityDrop(t *testing.T) {
	// Take away half the machine for days 30-59 by a reservation of
	// processors: the synthetic machine is the planted one without its
	// other rules, and a long job of 32 processors that the log shows
	// holding half the machine would look like load, so the drop is made
	// by replaying on a smaller machine for those days.
	l := synthLog(t, plant{}, 3)
	l2 := synthLogCapacity(t, 4)
	r, err := Infer(l2, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Capacity) != 1 {
		t.Fatalf("capacity drops %+v, want one", r.Capacity)
	}
	c := r.Capacity[0]
	if c.Procs < 28 || c.Procs > 36 || c.Start < 29*86400 || c.Start > 32*86400 || c.Start+c.DurationSec < 58*86400 || c.Start+c.DurationSec > 61*86400 {
		t.Errorf("capacity drop %+v (days %.1f to %.1f), want about 32 processors from day 30 to 60", c, float64(c.Start)/86400, float64(c.Start+c.DurationSec)/86400)
	}
	if r0, _ := Infer(l, Defaults()); len(r0.Capacity) != 0 {
		t.Errorf("capacity drops without one: %+v", r0.Capacity)
	}
}

// synthLogCapacity is a log whose machine had only 32 of its 64
// processors from day 30 to day 60: jobs there ran on the 32 left.
func synthLogCapacity(t *testing.T, seed uint64) *Log {
	l := synthLog(t, plant{}, seed)
	// Reschedule: every job keeps its submission; the machine is 64
	// processors except in [30d, 60d), where it is 32; greedy in
	// submission order, minute by minute.
	type run struct {
		j   *Job
		len workload.Time
	}
	jobs := make([]run, len(l.Jobs))
	for i := range l.Jobs {
		jobs[i] = run{&l.Jobs[i], l.Jobs[i].End - l.Jobs[i].Start}
	}
	var queue, running []run
	busy, next := 0, 0
	for now := workload.Time(0); next < len(jobs) || len(queue) > 0; now += 60 {
		kept := running[:0]
		for _, r := range running {
			if r.j.End <= now {
				busy -= r.j.Procs
				continue
			}
			kept = append(kept, r)
		}
		running = kept
		for next < len(jobs) && jobs[next].j.Submit <= now {
			queue = append(queue, jobs[next])
			next++
		}
		size := synthProcs
		if now >= 30*86400 && now < 60*86400 {
			size = 32
		}
		rest := queue[:0]
		for _, r := range queue {
			if r.j.Procs > size-busy || (r.j.Procs > 32 && now+r.len >= 30*86400 && now < 60*86400) || (now < 30*86400 && now+r.len > 30*86400 && busy+r.j.Procs > 32) {
				rest = append(rest, r)
				continue
			}
			r.j.Start, r.j.End = now, now+r.len
			busy += r.j.Procs
			running = append(running, r)
		}
		queue = rest
	}
	return l
}

// checkTOML parses the scenario back and checks its keys against the
// result.
func checkTOML(t *testing.T, b []byte, r *Result) {
	t.Helper()
	var sc struct {
		Trace       string `toml:"trace"`
		Backfill    string `toml:"backfill"`
		Procs       int    `toml:"procs"`
		Timezone    string `toml:"timezone"`
		Immediate   string `toml:"immediate_queues"`
		Shared      string `toml:"shared_queues"`
		Missing     string `toml:"missing_estimate"`
		Latency     string `toml:"submit_latency"`
		Reservation []struct {
			Name     string `toml:"name"`
			Start    string `toml:"start"`
			Duration string `toml:"duration"`
			Recur    string `toml:"recur"`
			Until    string `toml:"until"`
			Procs    int    `toml:"procs"`
			Maint    bool   `toml:"maint"`
		} `toml:"reservation"`
		StartWindow []struct {
			Queue    *int   `toml:"queue"`
			Days     string `toml:"days"`
			Hours    string `toml:"hours"`
			MaxWall  string `toml:"max_wall"`
			MaxProcs int    `toml:"max_procs"`
			MinProcs int    `toml:"min_procs"`
		} `toml:"start_window"`
		Limit []struct {
			Users   []string `toml:"users"`
			MaxJobs int      `toml:"max_jobs_per_user"`
			MaxCPUs int      `toml:"max_cpus_per_user"`
		} `toml:"limit"`
		PriorityTier []struct {
			Queue int `toml:"queue"`
			Tier  int `toml:"tier"`
		} `toml:"priority_tier"`
	}
	md, err := toml.Decode(string(b), &sc)
	if err != nil {
		t.Fatalf("the scenario is not TOML: %v\n%s", err, b)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Errorf("keys outside the contract: %v", u)
	}
	if sc.Trace != "synthetic.swf" || sc.Backfill != "easy" || sc.Procs != r.Procs || sc.Timezone != r.Zone {
		t.Errorf("top-level keys %q %q %d %q", sc.Trace, sc.Backfill, sc.Procs, sc.Timezone)
	}
	if l, err := workload.ParseLatency(sc.Latency, nil); err != nil || (len(r.Latency.Evidence) > 0) != (sc.Latency != "") ||
		sc.Latency != "" && (l.Default != r.Latency.Default || len(l.Queues) != len(r.Latency.Queues)) {
		t.Errorf("submit_latency %q (%v) in the file, %+v found", sc.Latency, err, r.Latency)
	}
	if sc.Missing != "" && sc.Missing != "runtime" {
		t.Errorf("missing_estimate %q", sc.Missing)
	}
	var imm []string
	for _, iq := range r.Immediate {
		imm = append(imm, strconv.Itoa(iq.Queue))
	}
	if sc.Immediate != strings.Join(imm, ",") {
		t.Errorf("immediate_queues %v in the file, %v found", sc.Immediate, imm)
	}
	var shared []string
	for _, q := range r.Shared {
		shared = append(shared, strconv.Itoa(q))
	}
	if sc.Shared != strings.Join(shared, ",") {
		t.Errorf("shared_queues %v in the file, %v found", sc.Shared, shared)
	}
	all := slices.Concat(r.Capacity, r.Outages, r.Drains, r.SharedDay)
	if len(sc.Reservation) != len(all) {
		t.Fatalf("%d reservations in the file, %d found", len(sc.Reservation), len(all))
	}
	names := map[string]bool{}
	for i, res := range sc.Reservation {
		want := all[i]
		loc := r.loc
		st, err := time.ParseInLocation("2006-01-02T15:04:05", res.Start, loc)
		if err != nil || workload.Time(st.Unix()-r.Log.Epoch) != want.Start {
			t.Errorf("reservation %s: start %q (%v), want trace time %d", res.Name, res.Start, err, want.Start)
		}
		d, ok := workload.ParseSeconds(res.Duration, workload.Forever)
		if !ok || d != roundUpMinute(want.DurationSec) || d <= 0 {
			t.Errorf("reservation %s: duration %q, want %d s", res.Name, res.Duration, want.DurationSec)
		}
		if names[res.Name] || res.Name == "" || !res.Maint || res.Procs != want.Procs {
			t.Errorf("reservation %+v", res)
		}
		names[res.Name] = true
		if want.Recur != "once" && res.Recur != want.Recur {
			t.Errorf("reservation %s: recur %q, want %q", res.Name, res.Recur, want.Recur)
		}
	}
	if len(sc.PriorityTier) != len(r.Queues) {
		t.Errorf("%d priority tiers in the file, %d queues ranked", len(sc.PriorityTier), len(r.Queues))
	}
	for i, pt := range sc.PriorityTier {
		if q := r.Queues[i]; pt.Queue != q.Queue || pt.Tier != q.Tier || pt.Tier < 1 || (i > 0 && pt.Tier > sc.PriorityTier[i-1].Tier) {
			t.Errorf("priority tier %+v, want queue %d tier %d, tiers not rising down the order", pt, q.Queue, q.Tier)
		}
	}
	if len(sc.StartWindow) != len(r.Windows) || len(sc.Limit) != len(r.Limits) {
		t.Errorf("%d windows and %d limits in the file, %d and %d found", len(sc.StartWindow), len(sc.Limit), len(r.Windows), len(r.Limits))
	}
	for i, w := range sc.StartWindow {
		if q := r.Windows[i].Queue; (q < 0) != (w.Queue == nil) || (w.Queue != nil && *w.Queue != q) {
			t.Errorf("start window %d: queue %v in the file, %d found", i, w.Queue, q)
		}
		d, ok := workload.ParseSeconds(w.MaxWall, workload.Forever)
		if w.MaxWall == "" {
			d, ok = 0, w.MaxProcs > 0 || w.MinProcs > 0 // a size window
		}
		if !ok || d != r.Windows[i].MaxWallSec || w.MaxProcs != r.Windows[i].MaxProcs || w.MinProcs != r.Windows[i].MinProcs || len(w.Hours) != len("07:00-16:00") || (w.Days != "Mon-Fri" && w.Days != "Sat,Sun") {
			t.Errorf("start window %+v", w)
		}
	}
	// Same log, same bytes.
	var again bytes.Buffer
	if err := r.WriteTOML(&again, "synthetic.swf"); err != nil || !bytes.Equal(again.Bytes(), b) {
		t.Error("a second WriteTOML differs")
	}
}

var update = flag.Bool("update", false, "rewrite testdata/planted.swf.gz and its golden scenario testdata/planted.toml")

// TestInferGolden reads the planted log as an SWF file (testdata, made by
// synthLog with -update) and checks the scenario written against the
// golden file. The command line's end-to-end test replays it.
func TestInferGolden(t *testing.T) {
	swf := filepath.Join("testdata", "planted.swf.gz")
	if *update {
		l := synthLog(t, planted, 1)
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		fmt.Fprintf(zw, "; Version: 2.2\n; Computer: a synthetic 64-processor machine with planted rules (schedsim's infer tests)\n; UnixStartTime: %d\n; TimeZoneString: Europe/Stockholm\n; MaxProcs: %d\n;\n", synthEpoch, synthProcs)
		for _, j := range l.Jobs {
			fmt.Fprintf(zw, "%d %d %d %d %d -1 -1 %d %d -1 1 %d 1 1 %d 1 -1 -1\n", j.ID, j.Submit, j.Start-j.Submit, j.End-j.Start, j.Procs, j.Procs, j.ReqTime, j.User, j.Queue)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(swf, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rd, err := workload.Open(swf, workload.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := Read(rd)
	rd.Close()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Infer(l, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := r.WriteTOML(&got, "planted.swf.gz"); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "planted.toml")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the scenario differs from %s (go test -run TestInferGolden -update rewrites it):\n%s", golden, got.String())
	}
	if r.Zone != "UTC+01:00" || len(r.Drains) == 0 || len(r.Windows) == 0 || len(r.Limits) == 0 {
		t.Errorf("read from SWF, the planted rules are not all found: zone %s, %d drains, %d windows, %d limits", r.Zone, len(r.Drains), len(r.Windows), len(r.Limits))
	}
}

func TestWriteNodeEvents(t *testing.T) {
	l := &Log{Jobs: []Job{{ID: 1, End: 5000}}, Zone: time.UTC, Name: "x.swf"}
	for _, tc := range []struct {
		name string
		r    Result
		want []string
	}{
		{"a capacity drop with an outage inside", Result{Procs: 64,
			Capacity: []Reservation{{Start: 0, DurationSec: 1000, Recur: "once", Procs: 16}},
			Outages:  []Reservation{{Start: 500, DurationSec: 100, Recur: "once"}}},
			[]string{"0 DRAIN 48-63", "500 DRAIN 0-47", "600 RESUME 0-47", "1000 RESUME 48-63"}},
		{"back to back", Result{Procs: 8,
			Outages: []Reservation{{Start: 10, DurationSec: 10, Recur: "once"}, {Start: 20, DurationSec: 10, Recur: "once", Procs: 2}}},
			[]string{"10 DRAIN 0-7", "20 RESUME 0-5", "30 RESUME 6-7"}},
		{"a daily drain until the log's end", Result{Procs: 4,
			Drains: []Reservation{{Start: 3600, DurationSec: 600, Recur: "daily"}}},
			nil}, // the log ends at 5000: one occurrence
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			r.Log, r.loc = l, time.UTC
			var b bytes.Buffer
			if err := r.WriteNodeEvents(&b); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.Split(b.String(), "\n") {
				if f := strings.Fields(line); len(f) >= 3 && f[0] != "#" {
					got = append(got, strings.Join(f[:3], " "))
				}
			}
			want := tc.want
			if want == nil {
				want = []string{"3600 DRAIN 0-3", "4200 RESUME 0-3"}
			}
			if !slices.Equal(got, want) {
				t.Errorf("events %q, want %q", got, want)
			}
		})
	}
}

// TestInferHeld: on a machine that starts whatever fits, every 10th job is
// held 3 hours after its submission. The rule finds those that waited the
// hour --held-room asks with room for them, and no other job; the holds
// file it writes reads back as workload.ParseHolds reads it. A quieter
// machine finds none with the rule off.
func TestInferHeld(t *testing.T) {
	l := synthLog(t, plant{holdEvery: 10, holdSec: 3 * 3600}, 3)
	planted := 0
	for _, j := range l.Jobs {
		if j.ID%10 == 0 {
			planted++
		}
	}
	for _, tc := range []struct {
		name    string
		roomSec workload.Time
		atLeast float64 // the share of the planted holds found
	}{
		{"default", Defaults().HeldRoomSec, 0.6},
		{"2h", 2 * 3600, 0.45},
		{"off", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := Defaults()
			opt.HeldRoomSec = tc.roomSec
			r, err := Infer(l, opt)
			if err != nil {
				t.Fatal(err)
			}
			starts := map[int64]workload.Time{}
			for _, j := range l.Jobs {
				starts[j.ID] = j.Start
			}
			for _, h := range r.Holds {
				if h.ID%10 != 0 {
					t.Errorf("job %d held, but nothing held it", h.ID)
				}
				if h.Until != starts[h.ID] {
					t.Errorf("job %d held until %d, want its recorded start %d", h.ID, h.Until, starts[h.ID])
				}
			}
			if got := float64(len(r.Holds)) / float64(planted); got < tc.atLeast || (tc.roomSec == 0 && len(r.Holds) > 0) {
				t.Fatalf("%d holds of %d planted (%.2f), want %.2f or more", len(r.Holds), planted, got, tc.atLeast)
			}
			if tc.roomSec == 0 {
				return
			}
			var b bytes.Buffer
			if err := r.WriteHolds(&b); err != nil {
				t.Fatal(err)
			}
			back, err := workload.ParseHolds(&b, "held.txt")
			if err != nil || len(back) != len(r.Holds) {
				t.Fatalf("the holds file reads back as %d holds (%v), want %d", len(back), err, len(r.Holds))
			}
			r.HoldsFile = "held.txt"
			var sc bytes.Buffer
			if err := r.WriteTOML(&sc, "synthetic.swf"); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(sc.String(), "\nholds = \"held.txt\"\n") {
				t.Errorf("the scenario does not name the holds file:\n%s", sc.String())
			}
		})
	}
}

// TestInferThrottled: a busy user of small jobs held to 2 processors, but
// to 6 on one day in the middle of the log, on a machine that starts
// whatever else fits and has room most of the time. The caps rule sees no
// plateau at the user's most (6, one day); the throttle rule finds that
// user and no other, capped at 2 (its largest job) up to below 6, and
// none with the rule off.
func TestInferThrottled(t *testing.T) {
	l := synthLog(t, plant{throttleUser: 7, throttleProcs: 2, throttleBurst: 6, arrivalSec: 3600}, 5)
	for _, tc := range []struct {
		name     string
		quantile float64
		want     bool
		backlog  workload.Time
	}{{"default", Defaults().ThrottleQuantile, true, Defaults().ThrottleMinBacklogSec}, {"off", 0, false, Defaults().ThrottleMinBacklogSec},
		{"any backlog, highest quantile", 1, false, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			opt := Defaults()
			opt.ThrottleQuantile, opt.ThrottleMinBacklogSec = tc.quantile, tc.backlog
			r, err := Infer(l, opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []Limit
			for _, lim := range r.Limits {
				if lim.MaxCPUs > 0 && len(lim.Evidence) == 2 && strings.Contains(lim.Evidence[1], "a limit that moved") {
					got = append(got, lim)
				}
			}
			if !tc.want {
				if len(got) > 0 {
					t.Fatalf("throttled users with the rule off: %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Users[0] != "7" || got[0].MaxCPUs < 2 || got[0].MaxCPUs >= 6 {
				t.Fatalf("throttled %+v, want user 7 alone, capped at 2 to 5 processors; all limits %+v, notes %q", got, r.Limits, r.Notes)
			}
		})
	}
}
