package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

const verifyUsage = `Usage: schedsim verify DIR...

Checks the schedule a run wrote to DIR (jobs.csv and summary.json, as written
by "schedsim run --out DIR") against the simulator's invariants:

  - no processor runs two jobs at once, and every job runs on exactly the
    processors it asked for, all on the machine;
  - no job starts before its submission; every job that was not rejected
    started once; rejected jobs are exactly those larger than the machine;
  - a job ends at start + run, or at its requested time when it was killed;
  - utilisation is at most 1;
  - with backfilling off (fcfs): no job starts before a job submitted earlier;
  - with fcfs, EASY or reservation depth: every job starts no later than
    the reservation it got when it became the head of the queue (not
    checked under other queue orders, runtime predictions or filters,
    which make no such promise).

A run on a cluster of nodes (summary.json has "cluster") is checked on its
nodes (select linear: a job holds whole nodes, at least its processors) or
cores (cons_res: exactly its processors); a cons_res rejection whose reason
names memory is valid, and head reservations are not checked (the plan is
in processor counts, not on nodes).

A run with node events (summary.json has "node_failures") is also checked
against its schedule: no job starts on a node that is down or draining or
runs on one while it goes down, a job killed by a node failure
(COMPLETED_KILLED) ends when one of its nodes goes down, jobs left queued
because too few processors stayed in service are validly rejected; head
reservations are not checked (a failure voids them) and the FCFS check
skips requeued jobs.

Jobs submitted at the same second are taken in job-id order. It prints every
violation and exits 1 if there is any, 2 if a file cannot be read.

Example:
  schedsim run --trace LANL-CM5-1994-4.1-cln.swf.gz --out res && schedsim verify res
`

func cmdVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify", verifyUsage, stdout)
	maxShown := fs.Int("max", 20, "print at most this many violations per directory (0: all)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usagef("%v (see schedsim verify --help)", err)
	}
	if fs.NArg() == 0 {
		return usagef("give the result directories to check (see schedsim verify --help)")
	}
	bad := 0
	for _, dir := range fs.Args() {
		n, total, err := verifyDir(dir, *maxShown, stdout)
		if err != nil {
			return err
		}
		if total == 0 {
			fmt.Fprintf(stdout, "%s: %d jobs, all invariants hold\n", dir, n)
			continue
		}
		fmt.Fprintf(stdout, "%s: %d jobs, %d violations\n", dir, n, total)
		bad++
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d result directories break invariants", bad, fs.NArg())
	}
	return nil
}

// verifyDir checks one result directory and returns the number of jobs and
// of violations.
func verifyDir(dir string, maxShown int, w io.Writer) (jobs, violations int, err error) {
	var sum struct {
		Policy  string               `json:"policy"`
		Procs   int                  `json:"procs"`
		Cluster *report.ClusterInfo  `json:"cluster"`
		Nodes   *report.NodeFailures `json:"node_failures"`
	}
	sp := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(sp)
	if err != nil {
		return 0, 0, usageError{err}
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		return 0, 0, usagef("%s: %v", sp, err)
	}
	if sum.Procs <= 0 {
		return 0, 0, usagef("%s: no machine size (procs)", sp)
	}
	if strings.HasPrefix(sum.Policy, "scored(") {
		return 0, 0, usagef("%s: a run of SCore-D queues (%s): verify checks space-shared schedules only; the SCore-D engine checks its invariants as it runs", dir, sum.Policy)
	}
	if strings.Contains(sum.Policy, "+grow=") {
		return 0, 0, usagef("%s: a run with --grow cannot be checked from jobs.csv (it does not record when jobs grew)", dir)
	}
	outs, err := readJobsCSV(filepath.Join(dir, "jobs.csv"))
	if err != nil {
		return 0, 0, err
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
	if sum.Cluster != nil {
		spec := sum.Cluster.Spec()
		if err := spec.Validate(); err != nil {
			return 0, 0, usagef("%s: cluster: %v", sp, err)
		}
		if spec.Cores() != sum.Procs {
			return 0, 0, usagef("%s: cluster has %d cores, procs says %d", sp, spec.Cores(), sum.Procs)
		}
		opts.Cluster = spec
		opts.Members = sum.Cluster.Members()
	}
	if sum.Nodes != nil {
		if opts.NodeEvents, err = sum.Nodes.Schedule(); err != nil {
			return 0, 0, usagef("%s: node_failures: %v", sp, err)
		}
		opts.NodeSize = sum.Nodes.NodeSize
	}
	vs := sim.Verify(sum.Procs, outs, opts)
	for i, v := range vs {
		if maxShown > 0 && i == maxShown {
			fmt.Fprintf(w, "%s: … and %d more\n", dir, len(vs)-i)
			break
		}
		fmt.Fprintf(w, "%s: %v\n", dir, v)
	}
	return len(outs), len(vs), nil
}

// readJobsCSV reads a Batsim jobs.csv into outcomes. Columns are found by
// name, so extra columns are fine.
func readJobsCSV(path string) ([]sim.Outcome, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError{err}
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return nil, usagef("%s: %v", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	need := []string{"job_id", "submission_time", "requested_number_of_resources", "requested_time",
		"final_state", "starting_time", "execution_time", "finish_time", "allocated_resources"}
	for _, n := range need {
		if _, ok := col[n]; !ok {
			return nil, usagef("%s: no %s column", path, n)
		}
	}
	var outs []sim.Outcome
	line := 1
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			return nil, usagef("%s: %v", path, err)
		}
		num := func(name string) (int64, error) {
			v, err := strconv.ParseFloat(rec[col[name]], 64)
			if err != nil {
				return 0, usagef("%s:%d: %s: %q is not a number", path, line, name, rec[col[name]])
			}
			return int64(v), nil
		}
		var o sim.Outcome
		var vals [7]int64
		for k, n := range []string{"job_id", "submission_time", "requested_number_of_resources", "requested_time", "starting_time", "execution_time", "finish_time"} {
			if vals[k], err = num(n); err != nil {
				return nil, err
			}
		}
		o.Job = workload.Job{ID: vals[0], Submit: workload.Time(vals[1]), Procs: int(vals[2]), Estimate: workload.Time(vals[3])}
		if o.Job.Estimate <= 0 {
			o.Job.Estimate = workload.Unknown
		}
		o.Start, o.End = workload.Time(vals[4]), workload.Time(vals[6])
		exec := workload.Time(vals[5])
		switch st := rec[col["final_state"]]; st {
		case "COMPLETED_SUCCESSFULLY":
			o.State = sim.Completed
			o.Job.Run = exec
		case "COMPLETED_WALLTIME_REACHED":
			o.State = sim.Killed
			o.Job.Run = exec + 1 // it would have run longer than its limit
		case "COMPLETED_KILLED": // killed by a node failure, before its end
			o.State = sim.NodeFail
			o.Job.Run = exec + 1
		case "REJECTED":
			o.State = sim.Rejected
			o.Start, o.End = o.Job.Submit, o.Job.Submit
			if k, ok := col["metadata"]; ok {
				o.Reason = rec[k]
			}
		case "COMPLETED_FAILED": // failed by a filter; it never ran
			o.State = sim.Failed
			o.Start, o.End = o.Job.Submit, o.Job.Submit
		case "SUBMITTED": // still queued at the end, kept waiting by filters; it never ran
			o.State = sim.Pending
			o.Start, o.End = o.Job.Submit, o.Job.Submit
		default:
			return nil, usagef("%s:%d: final_state: unknown state %q", path, line, st)
		}
		if k, ok := col["metadata"]; ok {
			o.Requeues = requeuesOf(rec[k])
		}
		if o.State != sim.Rejected && o.State != sim.Failed && o.State != sim.Pending {
			if o.Alloc, err = cluster.ParseRanges(rec[col["allocated_resources"]]); err != nil {
				return nil, usagef("%s:%d: allocated_resources: %v", path, line, err)
			}
		}
		outs = append(outs, o)
	}
	// Submission order: by submit time, then job id.
	idx := make([]int, len(outs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := &outs[idx[a]].Job, &outs[idx[b]].Job
		return x.Submit < y.Submit || (x.Submit == y.Submit && x.ID < y.ID)
	})
	for seq, i := range idx {
		outs[i].Job.Seq = int64(seq)
	}
	return outs, nil
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
