package schedsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/cluster/energy"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// jobTableNames are the per-job tables a run writes (--format), in the
// order verify checks them.
var jobTableNames = report.JobTableNames

// TableResult is what VerifyDir found in one per-job table of a
// directory.
type TableResult struct {
	Label      string // the directory, or its table's path when it has two
	Jobs       int    // jobs in the table
	Violations int    // broken invariants and differences from summary.json
}

// VerifyDir checks each per-job table of one result directory (jobs.csv,
// jobs.parquet) against the simulator's invariants (sim.Verify) and against
// summary.json, prints at most maxShown violations of each (0: all) to w,
// and returns the number of jobs and of violations of each table. A
// directory without a table, or with a malformed one, is an *InputError.
func VerifyDir(dir string, maxShown int, w io.Writer) ([]TableResult, error) {
	var sum report.Summary
	sp := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(sp)
	if err != nil {
		return nil, &InputError{err}
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, inputf("%s: %v", sp, err)
	}
	// A run in a finer unit (--time-unit) is checked in its ticks: the
	// tables' times are read exactly, and the summary's values recomputed
	// in ticks are turned into seconds as the run turned them.
	tick, err := TimeUnitTicks(sum.TimeUnit)
	if err != nil {
		return nil, inputf("%s: time_unit %v", sp, err)
	}
	if sum.Procs <= 0 {
		return nil, inputf("%s: no machine size (procs)", sp)
	}
	if strings.HasPrefix(sum.Policy, "scored(") {
		// SCore-D's checks read jobs.csv's times in the run's unit.
		return verifyScoreDDir(dir, &sum, maxShown, w)
	}
	if strings.Contains(sum.Policy, "+grow=") {
		return nil, inputf("%s: a run with --grow cannot be checked from jobs.csv (it does not record when jobs grew)", dir)
	}
	var tables []string
	for _, name := range jobTableNames {
		switch _, err := os.Stat(filepath.Join(dir, name)); {
		case err == nil:
			tables = append(tables, name)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, &InputError{err}
		}
	}
	if len(tables) == 0 {
		return nil, inputf("%s: neither %s nor %s: no per-job table to check", dir, jobTableNames[0], jobTableNames[1])
	}
	var opts sim.VerifyOptions
	// Only submission order with the requested times as estimates makes
	// the FCFS and head-reservation promises: other orders let later jobs
	// overtake the head, predictions that prove wrong void reservations,
	// and activation filters may delay any job.
	base, mods, _ := strings.Cut(sum.Policy, "+")
	switch {
	case mods != "" && mods != "order=fcfs":
	case base == "fcfs":
		opts = sim.VerifyOptions{FCFS: true, HeadReservation: true}
	case strings.HasPrefix(base, "easy(") || strings.HasPrefix(base, "backfill(depth="):
		opts.HeadReservation = true
	}
	opts.TierOrder = tierOrderOf(base, mods)
	if sum.Cluster != nil {
		spec := sum.Cluster.Spec()
		if err := spec.Validate(); err != nil {
			return nil, inputf("%s: cluster: %v", sp, err)
		}
		if spec.Cores() != sum.Procs {
			return nil, inputf("%s: cluster has %d cores, procs says %d", sp, spec.Cores(), sum.Procs)
		}
		spec.Tick = workload.Time(tick)
		opts.Cluster = spec
		opts.Members = sum.Cluster.Members()
		for _, m := range opts.Members {
			m.Tick = workload.Time(tick)
		}
	}
	if sum.NodeFailures != nil {
		evs, err := sum.NodeFailures.Schedule()
		if err != nil {
			return nil, inputf("%s: node_failures: %v", sp, err)
		}
		opts.NodeEvents = ticksOf(evs, tick)
		opts.NodeSize = sum.NodeFailures.NodeSize
	}
	var results []TableResult
	for _, name := range tables {
		path := filepath.Join(dir, name)
		outs, err := readJobTable(path, sum.ClosedLoop != nil, tick)
		if err != nil {
			return nil, err
		}
		label := dir
		if len(tables) > 1 {
			label = path
		}
		msgs := summaryMismatches(&sum, outs, name, tick)
		pm, err := verifyPower(dir, &sum, outs, tick)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, pm...)
		if pm, err = verifyMachineStates(dir, &sum, outs, tick); err != nil {
			return nil, err
		}
		msgs = append(msgs, pm...)
		if sum.Constraints != nil {
			opts.Constraints = sum.Constraints.InTicks(tick)
			opts.NoWho = !knowsWho(outs)
		}
		if qs := sum.ImmediateQueues; len(qs) > 0 {
			opts.Immediate = inQueues(qs)
			opts.NoWho = !knowsWho(outs)
		}
		if qs := sum.SharedQueues; len(qs) > 0 {
			opts.Shared = inQueues(qs)
			opts.NoWho = !knowsWho(outs)
		}
		for _, v := range sim.Verify(sum.Procs, outs, opts) {
			msgs = append(msgs, v.Error())
		}
		for i, m := range msgs {
			if maxShown > 0 && i == maxShown {
				fmt.Fprintf(w, "%s: … and %d more\n", label, len(msgs)-i)
				break
			}
			fmt.Fprintf(w, "%s: %s\n", label, m)
		}
		results = append(results, TableResult{Label: label, Jobs: len(outs), Violations: len(msgs)})
	}
	return results, nil
}

// summaryMismatches recomputes from a per-job table (named table) what
// summary.json states that the table can confirm — the job counts by final
// state, the first submission, last end and makespan, the wait
// distribution, the mean response and bounded slowdown, the utilisation
// and the throughput — as report.Metrics computes them, and returns a
// message for each value that differs. The table's times are ticks of
// 1/tick second; the values are turned into seconds as a run in that unit
// turns its summary's (report.Summary.ScaleTime).
func summaryMismatches(s *report.Summary, outs []sim.Outcome, table string, tick int64) []string {
	var jobs, completed, killed, nodeFail, rejected, failed, pending, preempted int64
	var waitSum, respSum, procSec int64
	var bsldSum float64
	var first, last workload.Time
	tau := workload.Time(report.BoundedSlowdownTauSec * max(tick, 1))
	waits := make([]int64, 0, len(outs))
	for i := range outs {
		o := &outs[i]
		jobs++
		switch o.State {
		case sim.Rejected:
			rejected++
			continue
		case sim.Failed:
			failed++
			continue
		case sim.Pending:
			pending++
			continue
		case sim.Killed:
			killed++
		case sim.NodeFail:
			nodeFail++
		case sim.Preempted:
			preempted++
		default:
			completed++
		}
		wait, run := o.Start-o.Job.Submit, o.End-o.Start
		if len(waits) == 0 || o.Job.Submit < first {
			first = o.Job.Submit
		}
		if len(waits) == 0 || o.End > last {
			last = o.End
		}
		waits = append(waits, int64(wait))
		waitSum += int64(wait)
		respSum += int64(wait + run)
		if !o.Immediate { // beside the machine: none of its processors
			procSec += int64(o.Job.Procs) * int64(run)
		}
		bsldSum += max(1, float64(wait+run)/float64(max(run, tau)))
	}
	var msgs []string
	ints := func(key string, said, got int64) {
		if said != got {
			msgs = append(msgs, fmt.Sprintf("summary.json says %s = %d, %s gives %d", key, said, table, got))
		}
	}
	floats := func(key string, said, got float64) {
		if said != got && !(math.Abs(said-got) <= 1e-9*math.Max(math.Abs(said), math.Abs(got))) {
			msgs = append(msgs, fmt.Sprintf("summary.json says %s = %s, %s gives %s", key,
				strconv.FormatFloat(said, 'g', -1, 64), table, strconv.FormatFloat(got, 'g', -1, 64)))
		}
	}
	started := completed + killed + nodeFail + preempted
	ints("jobs", s.Jobs, jobs)
	ints("started", s.Started, started)
	ints("completed", s.Completed, completed)
	ints("killed", s.Killed, killed)
	ints("node_fail", s.NodeFail, nodeFail)
	ints("preempted", s.Preempted, preempted)
	ints("rejected", s.Rejected, rejected)
	ints("failed", s.Failed, failed)
	ints("pending", s.Pending, pending)
	n := int64(len(waits))
	var got report.Summary
	if n > 0 {
		slices.Sort(waits)
		rank := func(p int64) float64 { return float64(waits[max(1, (p*n+99)/100)-1]) }
		got.Wait = report.Dist{Mean: float64(waitSum) / float64(n), Median: rank(50), P90: rank(90), P95: rank(95), P99: rank(99), Max: float64(waits[n-1])}
		got.MeanResponse = float64(respSum) / float64(n)
		got.MeanBoundedSlowdown = bsldSum / float64(n)
		got.MakespanSec = int64(last - first)
		got.FirstSubmit, got.LastEnd = first, last
		if got.MakespanSec > 0 {
			got.ThroughputPerHour = float64(started) * 3600 / float64(got.MakespanSec)
			got.Utilisation = float64(procSec) / (float64(s.Procs) * float64(got.MakespanSec))
		}
	}
	got.ScaleTime(tick)
	ints("first_submit", int64(s.FirstSubmit), int64(got.FirstSubmit))
	ints("last_end", int64(s.LastEnd), int64(got.LastEnd))
	ints("makespan_sec", s.MakespanSec, got.MakespanSec)
	floats("wait.mean", s.Wait.Mean, got.Wait.Mean)
	floats("wait.median", s.Wait.Median, got.Wait.Median)
	floats("wait.p90", s.Wait.P90, got.Wait.P90)
	floats("wait.p95", s.Wait.P95, got.Wait.P95)
	floats("wait.p99", s.Wait.P99, got.Wait.P99)
	floats("wait.max", s.Wait.Max, got.Wait.Max)
	floats("mean_response", s.MeanResponse, got.MeanResponse)
	floats("mean_bounded_slowdown", s.MeanBoundedSlowdown, got.MeanBoundedSlowdown)
	floats("utilisation", s.Utilisation, got.Utilisation)
	floats("throughput_jobs_per_hour", s.ThroughputPerHour, got.ThroughputPerHour)
	return msgs
}

// readJobTable reads a per-job table (jobs.csv or jobs.parquet,
// report.ReadJobTableIn) of a run in ticks of 1/tick second into outcomes
// in ticks; loop says the run was a closed loop (see inSubmissionOrder).
func readJobTable(path string, loop bool, tick int64) ([]sim.Outcome, error) {
	var outs []sim.Outcome
	err := report.ReadJobTableIn(path, tick, func(where string, row *report.JobRow) error {
		o, err := outcomeOf(row, where, tick)
		if err != nil {
			return err
		}
		outs = append(outs, o)
		return nil
	})
	if err != nil {
		var ue *InputError
		if errors.As(err, &ue) {
			return nil, err
		}
		return nil, &InputError{err}
	}
	return inSubmissionOrder(outs, loop), nil
}

// outcomeOf makes the outcome of the job of one row of a run in ticks of
// 1/tick second; where names the row in errors ("jobs.csv:12").
func outcomeOf(row *report.JobRow, where string, tick int64) (sim.Outcome, error) {
	var o sim.Outcome
	o.Job = workload.Job{ID: row.ID, Submit: row.Submit, Procs: int(row.Procs), Estimate: row.Estimate}
	o.Start, o.End = row.Start, row.End
	switch row.State {
	case "COMPLETED_SUCCESSFULLY":
		o.State = sim.Completed
		o.Job.Run = row.Exec
	case "COMPLETED_WALLTIME_REACHED":
		o.State = sim.Killed
		o.Job.Run = row.Exec + 1 // it would have run longer than its limit
	case "COMPLETED_KILLED": // killed by a node failure, before its end
		o.State = sim.NodeFail
		o.Job.Run = row.Exec + 1
	case "REJECTED":
		o.State = sim.Rejected
		o.Reason = row.Metadata
	case "COMPLETED_FAILED": // failed by a filter; it never ran
		o.State = sim.Failed
	case "SUBMITTED": // still queued at the end, kept waiting by filters; it never ran
		o.State = sim.Pending
	default:
		return o, inputf("%s: final_state: unknown state %q", where, row.State)
	}
	if !row.Ran {
		o.Start, o.End = o.Job.Submit, o.Job.Submit
	}
	o.Requeues = requeuesOf(row.Metadata)
	if row.Ran {
		whoOf(row.Metadata, &o.Job)
		o.Immediate = strings.HasPrefix(row.Metadata, "immediate=1")
		h, err := holdOf(row.Metadata, tick)
		if err != nil {
			return o, inputf("%s: metadata: %v", where, err)
		}
		o.Job.HoldUntil = h
	}
	if row.Ran {
		o.PriorityTier, o.HasPriorityTier = tierOfMeta(row.Metadata)
	}
	if err := preemptionOf(row, &o, tick); err != nil {
		return o, inputf("%s: metadata: %v", where, err)
	}
	if row.Ran {
		var err error
		if o.Alloc, err = cluster.ParseRanges(row.Alloc); err != nil {
			return o, inputf("%s: allocated_resources: %v", where, err)
		}
	}
	return o, nil
}

// inSubmissionOrder numbers outs (Seq) in submission order: by submit
// time, then job id — or, for a closed-loop run (loop), then start time
// and job id: a job a closed loop submitted at its preceding job's end
// joined the queue after the trace's jobs of that instant, which the table
// does not record, and under the order-keeping policies verify checks
// jobs submitted together start in queue order. It returns outs.
func inSubmissionOrder(outs []sim.Outcome, loop bool) []sim.Outcome {
	idx := make([]int, len(outs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := &outs[idx[a]], &outs[idx[b]]
		if x.Job.Submit != y.Job.Submit {
			return x.Job.Submit < y.Job.Submit
		}
		if loop && x.Start != y.Start {
			return x.Start < y.Start
		}
		return x.Job.ID < y.Job.ID
	})
	for seq, i := range idx {
		outs[i].Job.Seq = int64(seq)
	}
	return outs
}

// preemptionOf sets o's tier and preemptions from a row of a run with
// preemption by partition priority (report.ParsePreemption). A job
// cancelled by preemption (COMPLETED_KILLED, its last preemption a
// cancel) is sim.Preempted; a preempted job's run time is what its runs
// since its last requeue add up to (its execution time spans its
// suspensions). Its times are read in ticks of 1/tick second.
func preemptionOf(row *report.JobRow, o *sim.Outcome, tick int64) error {
	p, err := report.ParsePreemptionIn(row.Metadata, tick)
	if err != nil || !p.HasTier {
		return err
	}
	o.Tier, o.HasTier = p.Tier, true
	o.Preemptions, o.Runs, o.LostRun = p.Preemptions, p.Runs, p.Lost
	if len(p.Runs) == 0 {
		return nil
	}
	var attempt workload.Time
	for k, r := range p.Runs {
		attempt += r.To - r.From
		if k < len(p.Preemptions) && p.Preemptions[k].Mode == policy.PreemptRequeue {
			attempt = 0
		}
	}
	switch o.State {
	case sim.Completed:
		o.Job.Run = attempt
	case sim.Killed:
		o.Job.Run = attempt + 1
	case sim.NodeFail:
		if n := len(p.Preemptions); n > 0 && p.Preemptions[n-1].Mode == policy.PreemptCancel {
			o.State = sim.Preempted
			o.Job.Run = attempt + 1 // it would have run longer
		}
	}
	return nil
}

// requeuesOf returns N from a "requeues=N" word of a jobs.csv metadata
// field (report.RanMetadata), or 0.
func requeuesOf(meta string) int {
	for _, w := range strings.Fields(meta) {
		if v, ok := strings.CutPrefix(w, "requeues="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// holdOf returns T from a "hold_until=T" word of a ran job's metadata
// (report.RanMetadata: the job was held out of the queue until T, in
// seconds with the run's unit's decimals) in ticks of 1/tick second, or 0.
func holdOf(meta string, tick int64) (workload.Time, error) {
	for _, w := range strings.Fields(meta) {
		if v, ok := strings.CutPrefix(w, "hold_until="); ok {
			t, err := report.ParseTicks(v, max(tick, 1))
			if err != nil {
				return 0, fmt.Errorf("%q: want hold_until=SECONDS", w)
			}
			return workload.Time(t), nil
		}
	}
	return 0, nil
}

// whoOf sets j's user, account (group), partition and queue from a ran
// job's metadata ("user=U account=G partition=P queue=Q", written under
// reservations, start windows or limits), and marks a job without them
// with user −1.
func whoOf(meta string, j *workload.Job) {
	j.User = -1
	for _, f := range strings.Fields(meta) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			continue
		}
		switch k {
		case "user":
			j.User = n
		case "account":
			j.Group = n
		case "partition":
			j.Partition = n
		case "queue":
			j.Queue = n
		}
	}
}

// knowsWho reports whether the jobs that ran know their users (see whoOf).
func knowsWho(outs []sim.Outcome) bool {
	for i := range outs {
		if outs[i].State != sim.Rejected && outs[i].State != sim.Failed && outs[i].State != sim.Pending && !outs[i].Immediate && outs[i].Job.User >= 0 {
			return true
		}
	}
	return false
}

// verifyScoreDDir is VerifyDir for a run of SCore-D's queues: it checks
// its jobs.csv with sim.VerifyScoreD (limits per host, the limits held,
// the matrix's rows and the priority between queues), from the SCore-D
// columns (report.NewScoreDJobsCSV) and summary.json's scored.
func verifyScoreDDir(dir string, sum *report.Summary, maxShown int, w io.Writer) ([]TableResult, error) {
	sp := filepath.Join(dir, "summary.json")
	if sum.ScoreD == nil {
		return nil, inputf("%s: a run of SCore-D queues (%s) without scored (its limits): written by a schedsim older than verify's SCore-D checks; run it again", sp, sum.Policy)
	}
	path := filepath.Join(dir, jobTableNames[0])
	tps, err := TimeUnitTicks(sum.TimeUnit)
	if err != nil {
		return nil, inputf("%s: time_unit %v", sp, err)
	}
	outs, imm, err := readScoreDJobs(path, tps)
	if err != nil {
		return nil, err
	}
	sd := sum.ScoreD
	lim := sim.ScoreDLimits{MemKB: sd.MemoryKB, DiskKB: sd.DiskKB, MPL: sd.MPL, TicksPerSec: tps}
	for _, q := range sd.Queues {
		lim.MemPercent = append(lim.MemPercent, q.MemoryPercent)
		lim.DiskPercent = append(lim.DiskPercent, q.DiskPercent)
	}
	if err := exclusiveLimits(sd, &lim); err != nil {
		return nil, inputf("%s: scored: %v", sp, err)
	}
	if sum.NodeFailures != nil {
		if lim.NodeEvents, err = sum.NodeFailures.Schedule(); err != nil {
			return nil, inputf("%s: node_failures: %v", sp, err)
		}
		lim.NodeSize = sum.NodeFailures.NodeSize
	}
	lim.Clusters, lim.ClusterMemKB, lim.ClusterDiskKB = sd.Clusters, sd.ClusterMemoryKB, sd.ClusterDiskKB
	vs := sim.VerifyScoreD(sum.Procs, outs, lim)
	if len(imm) > 0 || len(sum.ImmediateQueues) > 0 {
		qs := sum.ImmediateQueues
		vs = append(vs, sim.Verify(sum.Procs, imm, sim.VerifyOptions{Immediate: inQueues(qs)})...)
	}
	var msgs []string
	if n := int64(len(outs) + len(imm)); n != sum.Jobs {
		msgs = append(msgs, fmt.Sprintf("summary.json says jobs = %d, %s gives %d", sum.Jobs, jobTableNames[0], n))
	}
	for _, v := range vs {
		msgs = append(msgs, v.Error())
	}
	pm, err := verifyScoreDPower(dir, sum, outs, tps)
	if err != nil {
		return nil, err
	}
	msgs = append(msgs, pm...)
	for i, m := range msgs {
		if maxShown > 0 && i == maxShown {
			fmt.Fprintf(w, "%s: … and %d more\n", dir, len(msgs)-i)
			break
		}
		fmt.Fprintf(w, "%s: %s\n", dir, m)
	}
	return []TableResult{{Label: dir, Jobs: len(outs) + len(imm), Violations: len(msgs)}}, nil
}

// verifyScoreDPower checks a SCore-D run with a power model, whose
// stints name their processors: no stint holds a processor of a node while
// that node is off or switching (pstate_changes.csv: switching nodes off,
// --power-policy), and machine_states.csv's computing nodes at each
// instant are those a stint holds then — a node is computing while any
// row of the matrix holds one of its processors. A stint's times are
// rounded up to the run's tick, as the meter's busy stretches are. outs'
// times are in ticks of 1/runTick s. Without a power model, or without
// the files, it checks nothing.
func verifyScoreDPower(dir string, sum *report.Summary, outs []sim.ScoreDOutcome, runTick int64) ([]string, error) {
	nodesOf := verifyNodes(sum)
	if nodesOf == nil {
		return nil, nil
	}
	// up returns ms in the run's ticks, rounded up.
	up := func(ms int64) int64 {
		if runTick >= 1000 {
			return ms * (runTick / 1000)
		}
		return (ms + 999) / 1000
	}
	type hold struct {
		from, to int64 // run ticks
		nodes    []int
		id       int64
	}
	var holds []hold
	for i := range outs {
		o := &outs[i]
		for k, st := range o.Stints {
			if k >= len(o.StintAllocs) || up(st.FromMs) >= up(st.ToMs) {
				continue
			}
			h := hold{from: up(st.FromMs), to: up(st.ToMs), id: o.ID}
			for _, r := range o.StintAllocs[k] {
				for _, n := range nodesOf(r) {
					if !slices.Contains(h.nodes, n) {
						h.nodes = append(h.nodes, n)
					}
				}
			}
			holds = append(holds, h)
		}
	}
	var msgs []string
	off, tick, err := offSpans(dir, runTick)
	if err != nil {
		return nil, err
	}
	per := tick / runTick
	for _, h := range holds {
		for _, n := range h.nodes {
			for _, sp := range off[n] {
				if h.from*per < sp.to && sp.from < h.to*per {
					msgs = append(msgs, fmt.Sprintf("job %d held node %d from %s to %s, which was off or switching from %s s to %s s (%s)", h.id, n,
						report.AppendTicks(nil, h.from, runTick), report.AppendTicks(nil, h.to, runTick),
						strconv.FormatFloat(float64(sp.from)/float64(tick), 'f', -1, 64), strconv.FormatFloat(float64(sp.to)/float64(tick), 'f', -1, 64), report.PStateChangesCSV))
					break
				}
			}
		}
	}
	path := filepath.Join(dir, report.MachineStatesCSV)
	f, err := openOptional(path)
	if f == nil || err != nil {
		return msgs, err
	}
	defer f.Close()
	rows, err := energy.ReadMachineStates(path, f, max(runTick, 1))
	if err != nil {
		return nil, &InputError{err}
	}
	// Each node's holds begin (+1) and end (−1), ends first at an instant.
	type ev struct {
		t    int64
		d    int
		node int
	}
	var evs []ev
	for _, h := range holds {
		for _, n := range h.nodes {
			evs = append(evs, ev{h.from, 1, n}, ev{h.to, -1, n})
		}
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return evs[a].d < evs[b].d
	})
	held := map[int]int{}
	k := 0
	for _, row := range rows {
		for ; k < len(evs) && evs[k].t <= row.Time; k++ {
			if held[evs[k].node] += evs[k].d; held[evs[k].node] == 0 {
				delete(held, evs[k].node)
			}
		}
		if got := row.Counts[energy.Computing]; got != len(held) {
			msgs = append(msgs, fmt.Sprintf("%s at %s s: %d nodes computing, but jobs.csv's stints hold %d", report.MachineStatesCSV,
				report.AppendTicks(nil, row.Time, runTick), got, len(held)))
		}
	}
	return msgs, nil
}

// exclusiveLimits sets lim's queue modes, preemption mode and holds from
// summary.json's scored, for sim.VerifyScoreD's exclusive-mode check; a
// summary without them (written before that check) leaves lim.Modes nil,
// which skips it.
func exclusiveLimits(sd *report.ScoreDInfo, lim *sim.ScoreDLimits) error {
	if sd.Preempt == "" {
		return nil
	}
	pm, err := policy.ParsePreemptMode(sd.Preempt)
	if err != nil {
		return fmt.Errorf("preempt %q: %v", sd.Preempt, err)
	}
	lim.Preempt = pm
	for i, q := range sd.Queues {
		m, err := policy.ParseQueueMode(q.Mode)
		if err != nil {
			return fmt.Errorf("queue %d: mode %q: %v", i, q.Mode, err)
		}
		lim.Modes = append(lim.Modes, m)
	}
	for _, h := range sd.Holds {
		lim.Holds = append(lim.Holds, sim.QueueHold{Queue: h.Queue, At: h.At})
	}
	return nil
}

// scoredColumns are the columns of a SCore-D run's jobs.csv that
// readScoreDJobs reads, found by name.
var scoredColumns = []string{"job_id", "submission_time", "requested_number_of_resources", "finish_time", "final_state",
	"queue", "end_reason", "mem_limit_kb", "mem_kb_per_host", "disk_limit_kb", "stints_ms", "starting_time", "metadata"}

// readScoreDJobs reads the jobs of a SCore-D run's jobs.csv at path for
// sim.VerifyScoreD, its times in ticks of 1/tps s (jobs.csv writes them in
// seconds with the unit's decimals). A missing column, a value that is not
// a number or a malformed stint is an *InputError naming the file, the line
// and the column.
func readScoreDJobs(path string, tps int64) ([]sim.ScoreDOutcome, []sim.Outcome, error) {
	var outs []sim.ScoreDOutcome
	var imm []sim.Outcome // the jobs of immediate queues, beside the machine
	// starting_time and metadata tell the jobs of immediate queues, which
	// a table without them has none of.
	optional := make([]bool, len(scoredColumns))
	optional[11], optional[12] = true, true
	err := report.ScanCSVTable(path, scoredColumns, optional, func(where string, vals []string) error {
		num := func(k int) (int64, error) {
			v, err := strconv.ParseInt(vals[k], 10, 64)
			if err != nil || v < 0 {
				return 0, inputf("%s: %s: %q is not a whole number ≥ 0", where, scoredColumns[k], vals[k])
			}
			return v, nil
		}
		// ticks reads a time in ticks.
		ticks := func(k int) (int64, error) {
			v, err := report.ParseTicks(vals[k], tps)
			if err != nil || v < 0 {
				return 0, inputf("%s: %s: %q is not a time ≥ 0 in whole ticks of 1/%d s", where, scoredColumns[k], vals[k], tps)
			}
			return v, nil
		}
		if strings.HasPrefix(vals[12], "immediate=1") {
			// Beside SCore-D's machine: checked as any run's (sim.Verify).
			var o sim.Outcome
			whoOf(vals[12], &o.Job)
			var t [5]int64
			for i, k := range []int{0, 1, 11, 3, 2} {
				read := ticks
				if k == 0 || k == 2 {
					read = num
				}
				var err error
				if t[i], err = read(k); err != nil {
					return err
				}
			}
			o.Job.ID, o.Job.Submit, o.Start, o.End = t[0], workload.Time(t[1]), workload.Time(t[2]), workload.Time(t[3])
			o.Job.Run, o.State = o.End-o.Start, sim.Completed
			if vals[4] == "COMPLETED_WALLTIME_REACHED" {
				o.Job.Estimate, o.Job.Run, o.State = o.End-o.Start, o.End-o.Start+1, sim.Killed
			}
			o.Job.Procs, o.Immediate = int(t[4]), true
			imm = append(imm, o)
			return nil
		}
		var o sim.ScoreDOutcome
		var v [8]int64
		for i, k := range []int{0, 1, 2, 5, 7, 8, 9} {
			read := num
			if k == 1 {
				read = ticks
			}
			var err error
			if v[i], err = read(k); err != nil {
				return err
			}
		}
		o.ID, o.Submit, o.Procs, o.Queue = v[0], workload.Time(v[1]), int(v[2]), int(v[3])
		o.MemLimitKB, o.MemKBPerHost, o.DiskLimitKB = v[4], v[5], v[6]
		o.Reason = vals[6]
		o.End = o.Submit
		switch st := vals[4]; st {
		case "COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED", "COMPLETED_KILLED":
			o.State = map[string]sim.State{"COMPLETED_SUCCESSFULLY": sim.Completed, "COMPLETED_WALLTIME_REACHED": sim.Killed,
				"COMPLETED_KILLED": sim.LimitKilled}[st]
			if st == "COMPLETED_KILLED" && strings.HasPrefix(o.Reason, "node ") {
				o.State = sim.NodeFail // "node 17 down: …" (a limit's reason starts "memory use")
			}
			end, err := ticks(3)
			if err != nil {
				return err
			}
			o.End = workload.Time(end)
		case "REJECTED":
			o.State = sim.Rejected
		case "SUBMITTED": // held by its deactivated queue to the end of the run
			o.State, o.End = sim.Pending, workload.Forever
		default:
			return inputf("%s: final_state: %q is not a state of a SCore-D run", where, st)
		}
		var err error
		if o.Stints, o.StintAllocs, err = report.ParseStints(vals[10]); err != nil {
			return inputf("%s: stints_ms: %v", where, err)
		}
		outs = append(outs, o)
		return nil
	})
	var ie *InputError
	if err != nil && !errors.As(err, &ie) {
		if errors.Is(err, report.ErrNoColumn) {
			err = fmt.Errorf("%w: verify checks a SCore-D run from its SCore-D columns (written by schedsim since verify checks them; run it again)", err)
		}
		err = &InputError{err}
	}
	return outs, imm, err
}

// verifyPower checks, for a run with a power model (summary.json's
// energy, with one node size), that no job ran on a node while it was off
// or switching, as pstate_changes.csv says: from its -2 (switching off) to
// the end of its switch-on (the computing pstate after its -1). Without
// pstate_changes.csv it checks nothing. outs are in ticks of 1/runTick
// second.
func verifyPower(dir string, sum *report.Summary, outs []sim.Outcome, runTick int64) ([]string, error) {
	nodesOf := verifyNodes(sum)
	if nodesOf == nil {
		return nil, nil
	}
	off, tick, err := offSpans(dir, runTick)
	if off == nil || err != nil {
		return nil, err
	}
	per := tick / runTick // the file's ticks in one of the run's
	var msgs []string
	for i := range outs {
		o := &outs[i]
		if len(o.Alloc) == 0 || o.End <= o.Start {
			continue
		}
		// A growing job holds each step's processors from that step.
		parts := []sim.GrowStep{{At: o.Start, Alloc: o.Alloc}}
		if len(o.Steps) > 0 {
			parts = o.Steps
		}
		e := int64(o.End) * per
		for _, p := range parts {
			s := int64(p.At) * per
			for _, r := range p.Alloc {
				for _, n := range nodesOf(r) {
					for _, sp := range off[n] {
						if s < sp.to && sp.from < e {
							msgs = append(msgs, fmt.Sprintf("job %d ran %s–%s on node %d, which was off or switching from %s s to %s s (%s)", o.Job.ID,
								report.AppendTicks(nil, int64(p.At), runTick), report.AppendTicks(nil, int64(o.End), runTick), n,
								strconv.FormatFloat(float64(sp.from)/float64(tick), 'f', -1, 64), strconv.FormatFloat(float64(sp.to)/float64(tick), 'f', -1, 64), report.PStateChangesCSV))
							break
						}
					}
				}
			}
		}
	}
	return msgs, nil
}

// offSpan is a stretch [from, to) of time in which a node was off or
// switching (offSpans).
type offSpan struct{ from, to int64 }

// offSpans reads each node's spans off or switching from dir's
// pstate_changes.csv: from its -2 (switching off) to the end of its
// switch-on (the computing pstate after its -1), the last one to the end
// of time if it is not switched on again. Its times are in ticks of the
// second value returned: the run's (1/runTick s), or ms if finer (a run in
// seconds may have switches of fractional length). Without the file it
// returns nil.
func offSpans(dir string, runTick int64) (map[int][]offSpan, int64, error) {
	path := filepath.Join(dir, report.PStateChangesCSV)
	f, err := openOptional(path)
	if f == nil || err != nil {
		return nil, 0, err
	}
	defer f.Close()
	tick := max(runTick, 1000)
	changes, err := energy.ReadPStateChanges(path, f, tick)
	if err != nil {
		return nil, 0, &InputError{err}
	}
	type span = offSpan
	off := map[int][]span{}
	from := map[int]int64{}  // when a node that is off went off
	waking := map[int]bool{} // nodes switching on
	for _, c := range changes {
		for _, r := range c.Nodes {
			for n := r.First; n <= r.Last; n++ {
				_, isOff := from[n]
				switch {
				case c.PState == -2 && !isOff:
					from[n] = c.Time
				case c.PState == -1 && isOff:
					waking[n] = true
				case c.PState >= 0 && waking[n]:
					off[n] = append(off[n], span{from[n], c.Time})
					delete(from, n)
					delete(waking, n)
				}
			}
		}
	}
	for n, t := range from {
		off[n] = append(off[n], span{t, math.MaxInt64})
	}
	return off, tick, nil
}

// verifyMachineStates checks, for a run with a power model, that
// machine_states.csv counts every node once in every row, and that its
// computing nodes at each instant are those on which jobs.csv has a job
// running then (a node's processors mapped as the run's: the power model's
// node size on the processor pool, the cluster's nodes on a cluster).
// When node failures requeued jobs, whose cut-short runs jobs.csv does
// not show, it checks that at least those nodes compute. Without
// machine_states.csv, or with nodes of different sizes on the pool, it
// checks nothing.
// outs are in ticks of 1/runTick second, and so are the file's times read.
func verifyMachineStates(dir string, sum *report.Summary, outs []sim.Outcome, runTick int64) ([]string, error) {
	if sum.Energy == nil {
		return nil, nil
	}
	nodeOf := verifyUnitNode(sum)
	if nodeOf == nil {
		return nil, nil
	}
	path := filepath.Join(dir, report.MachineStatesCSV)
	f, err := openOptional(path)
	if f == nil || err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := energy.ReadMachineStates(path, f, max(runTick, 1))
	if err != nil {
		return nil, &InputError{err}
	}
	// The jobs' starts (+1) and ends (−1) on each of their nodes, ends
	// first at an instant.
	type ev struct {
		t    workload.Time
		d    int
		node int
	}
	var evs []ev
	var msgs []string
	for i := range outs {
		o := &outs[i]
		if len(o.Alloc) == 0 || o.End <= o.Start {
			continue
		}
		// A growing job has each node from the step that gave it.
		parts := []sim.GrowStep{{At: o.Start, Alloc: o.Alloc}}
		if len(o.Steps) > 0 {
			parts = o.Steps
		}
		var seen []int
		for _, p := range parts {
			for _, r := range p.Alloc {
				for u := r.Lo; u < r.Hi; u++ {
					n := nodeOf(u)
					if n < 0 {
						msgs = append(msgs, fmt.Sprintf("job %d: resource %d is on no node of the cluster", o.Job.ID, u))
						continue
					}
					if !slices.Contains(seen, n) {
						seen = append(seen, n)
						evs = append(evs, ev{p.At, 1, n}, ev{o.End, -1, n})
					}
				}
			}
		}
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return evs[a].d < evs[b].d
	})
	requeued := sum.NodeFailures != nil && sum.NodeFailures.Requeued > 0
	running := map[int]int{}
	nodes := -1
	k := 0
	for _, row := range rows {
		total := 0
		for _, c := range row.Counts {
			total += c
		}
		if nodes < 0 {
			nodes = total
		} else if total != nodes {
			msgs = append(msgs, fmt.Sprintf("%s at %d s: %d nodes in all, %d in the first row", report.MachineStatesCSV, row.Time, total, nodes))
		}
		for k < len(evs) && int64(evs[k].t) <= row.Time {
			e := evs[k]
			if running[e.node] += e.d; running[e.node] == 0 {
				delete(running, e.node)
			}
			k++
		}
		got := row.Counts[energy.Computing]
		if got != len(running) && !(requeued && got > len(running)) {
			msgs = append(msgs, fmt.Sprintf("%s at %d s: %d nodes computing, but jobs.csv has jobs running on %d", report.MachineStatesCSV, row.Time, got, len(running)))
		}
	}
	return msgs, nil
}

// verifyUnitNode returns the node of each resource id of a run with a
// power model (−1 for an id on no node): the cluster's nodes, or the
// power model's of summary.json's node_size on the pool; nil when it
// cannot tell (nodes of several sizes on the pool).
func verifyUnitNode(sum *report.Summary) func(u int) int {
	switch {
	case sum.Energy == nil:
		return nil
	case sum.Cluster != nil:
		members := sum.Cluster.Members()
		if members == nil {
			members = []*cluster.Spec{sum.Cluster.Spec()}
		}
		units, _ := report.ClusterUnits(members)
		return func(u int) int {
			if u < 0 || u >= len(units) {
				return -1
			}
			return int(units[u])
		}
	case sum.Energy.NodeSize > 0:
		size := sum.Energy.NodeSize
		return func(u int) int { return u / size }
	}
	return nil
}

// verifyNodes returns the nodes of a range of resource ids, in order,
// each once (see verifyUnitNode); nil when it cannot tell.
func verifyNodes(sum *report.Summary) func(r cluster.Range) []int {
	nodeOf := verifyUnitNode(sum)
	if nodeOf == nil {
		return nil
	}
	return func(r cluster.Range) []int {
		var out []int
		for u := r.Lo; u < r.Hi; u++ {
			if n := nodeOf(u); n >= 0 && (len(out) == 0 || out[len(out)-1] != n) {
				out = append(out, n)
			}
		}
		return out
	}
}

// openOptional opens a file a result directory may lack: nil, nil when it
// is not there, an *InputError when it cannot be opened.
func openOptional(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &InputError{err}
	}
	return f, nil
}

// tierOrderOf returns what verify checks of the priority tiers of a run
// of policy base with modifiers mods (the policy's name cut at its first
// "+"), whose queue tiers ranked ("+priority-tier", [[priority_tier]] or
// a cluster's partition PriorityTiers): FCFS starts no job while a job of
// a higher tier waits, nor, in submission order within tiers, while an
// earlier job of its own tier waits; EASY and a reservation depth, in
// submission order within tiers and with the requested times as
// estimates, keep the promise to the head of the ranked queue. HPC Pack's
// filters may hold any job, another order or estimates void the
// promises, and Slurm's backfill plans at its own cycle and resolution
// (the engine checks its promises): nothing is checked then.
func tierOrderOf(base, mods string) sim.TierOrder {
	tiered, within, cycle := false, false, false
	for _, m := range strings.Split(mods, "+") {
		switch {
		case m == "priority-tier":
			tiered = true
		case m == "order=fcfs":
			within = true
		case strings.HasPrefix(m, "order="):
		case strings.HasPrefix(m, "sched_interval="):
			cycle = true
		case strings.HasPrefix(m, "config="), strings.HasPrefix(m, "slurm-conf="), strings.HasPrefix(m, "select="):
			// where the run's description came from; the nodes (then
			// only FCFS's order is checked)
		default:
			return sim.TierOrderNone
		}
	}
	var flag sim.TierOrder
	if within {
		flag = sim.TierFCFS
	}
	switch {
	case !tiered:
		return sim.TierOrderNone
	case base == "fcfs":
		return sim.TierOrderStrict | flag
	case within && !cycle && (strings.HasPrefix(base, "easy(") || strings.HasPrefix(base, "backfill(depth=")):
		return sim.TierOrderHead | flag
	}
	return sim.TierOrderNone
}

// tierOfMeta reads the tier of a "priority_tier=T" word of a jobs.csv
// metadata field (tierNotes).
func tierOfMeta(meta string) (int, bool) {
	for _, w := range strings.Fields(meta) {
		if v, ok := strings.CutPrefix(w, priorityTierWord); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}
