package main

import (
	"fmt"
	"io"

	"github.com/schedsim/schedsim"
)

const verifyUsage = `Usage: schedsim verify DIR...

Checks the schedule a run wrote to DIR (summary.json and the per-job table,
jobs.csv or jobs.parquet, as written by "schedsim run --out DIR" with any
--format) against the simulator's invariants:

  - summary.json agrees with the table: the number of jobs, of jobs
    started, completed, killed, rejected, failed and pending, the first
    submission, last end and makespan, the waits (mean, median, p90, p95,
    p99, max), the mean response and bounded slowdown, the utilisation
    and the throughput, recomputed from the table's rows (a table cut
    short, or a summary edited, fails here);
  - no processor runs two jobs at once, and every job runs on exactly the
    processors it asked for, all on the machine;
  - no job starts before its submission, nor before its hold ends (Hold
    Until: hold_until=T in the metadata); every job not rejected started
    once; rejected jobs are exactly those larger than the machine;
  - a job ends at start + run, or at its requested time when it was killed;
  - utilisation is at most 1;
  - with backfilling off (fcfs): no job starts before a job submitted
    earlier (a held one is queued from the end of its hold);
  - with fcfs, EASY or reservation depth: every job starts no later than
    the reservation it got when it became the head of the queue (not
    checked under other queue orders, runtime predictions or filters,
    which make no such promise);
  - with priority tiers (the policy's name has +priority-tier; jobs.csv
    gives each job's priority_tier): under fcfs no job starts while a job
    of a higher tier, or an earlier one of its own tier, waits (jobs a
    [[limit]] applies to may be passed over); under EASY or a reservation
    depth the head of the ranked queue starts no later than the
    reservation it got when it became the head (a job of a higher tier
    arriving voids it), on a pool without reservations or limits.

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

A run of SCore-D's queues (--mode, [scored]) is checked from its jobs.csv's
SCore-D columns (its limits and stints_ms: when each job held processors,
in which queue and row) and summary.json's "scored" (the cluster's limits
and the queues' percentages):

  - limits per host: a job whose memory use on one host (mem_kb_per_host)
    exceeds its limit was killed for it (COMPLETED_KILLED), and only such a
    job; a job's limits are at most the cluster's times its queue's
    percentage, and only where both set one;
  - the limits the started jobs hold (a suspended or descheduled job keeps
    them, a requeued one gives them back) never sum beyond the cluster's;
  - no row of the gang matrix holds more processors than the machine has;
  - priority between queues: whenever gang jobs run, every row taking time
    slices holds a job of the highest queue that has one running, so a
    lower queue's job never shares time with, or slows, a higher queue's;
  - on a cluster of clusters (summary.json's scored has "clusters"): every
    stint of a job lies on the one cluster it was given (on several only
    when no one cluster has its processors), no processor is held twice
    in a row at once, and the limits held on a cluster stay within its
    own.

A directory with both tables has each checked, its lines labelled with the
table. Jobs submitted at the same second are taken in job-id order. It
prints every violation and exits 1 if there is any, 2 if a file cannot be
read.

Example:
  schedsim run --trace LANL-CM5-1994-4.1-cln.swf.gz --out res && schedsim verify res
`

func cmdVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify", verifyUsage, stdout)
	maxShown := fs.Int("max", 20, "print at most this many violations per table (0: all)")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("give the result directories to check (see schedsim verify --help)")
	}
	bad := 0
	for _, dir := range fs.Args() {
		results, err := schedsim.VerifyDir(dir, *maxShown, stdout)
		if err != nil {
			return err
		}
		broken := false
		for _, r := range results {
			if r.Violations == 0 {
				fmt.Fprintf(stdout, "%s: %d jobs, all invariants hold\n", r.Label, r.Jobs)
				continue
			}
			fmt.Fprintf(stdout, "%s: %d jobs, %d violations\n", r.Label, r.Jobs, r.Violations)
			broken = true
		}
		if broken {
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d result directories break invariants", bad, fs.NArg())
	}
	return nil
}
