package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/workload"
	"github.com/schedsim/schedsim/workload/infer"
)

const inferUsage = `Usage: schedsim infer LOG [options]

Reads a log that records what the real machine did — each job's wait (SWF
field 3) and run time (field 4), so its start (submit + wait) and end — and
writes a scenario file (TOML) with the rules of the machine it can infer, for
schedsim run and schedsim fidelity. Each entry follows comment lines with its
evidence (counts, hours), so you can read it, edit it and rerun it; what was
looked for and not found is said too. It never looks at a simulation.

What it looks for, and how it shows in a log:

  machine size     the header's MaxProcs, or the most processors busy at once
  capacity         --capacity-days days or more in a row whose most busy
                   processors stay under --capacity-low of the machine while
                   queued jobs would have fit: processors out of service,
                   written as maintenance reservations holding them
  outages          idle-with-queue gaps (at most --near-zero of the machine
                   busy while a queued job would fit) of --outage-min or more
                   that end with the queue starting together: one-off
                   maintenance reservations
  drains           weekday and clock times at which the machine is near idle
                   with jobs queued on --drain-frac of the days or more:
                   recurring maintenance reservations (daily, weekdays,
                   weekends or weekly), on the clock (the header's zone, or
                   its standard time kept all year) where they line up best
                   — written as timezone
  start windows    start hours (weekdays, weekends) where jobs asking more
                   than a bound are nearly absent (--window-leak of those
                   expected from their share of all starts): start_window
                   entries with that max_wall; then the same for each
                   queue's jobs alone, written with queue = N where
                   stricter than the windows for all jobs
  size windows     start hours where a queue's (or all) jobs asking more
                   than a processor count are nearly absent (--window-leak
                   of those expected, --size-window-expected or more, from
                   the queue's own starts there): start_window entries
                   with max_procs
  user caps        users whose running jobs (or processors) sat at their
                   maximum for --cap-hold in --cap-episodes episodes or more
                   while a job of theirs would have fit the idle processors:
                   limit entries; a cap shared by several users that no user
                   exceeds becomes one limit for every user ("*")
  queue priorities queues whose jobs start ahead of other queues' earlier
                   jobs far more often than the reverse ([[priority_tier]])
  immediate queues queues whose jobs (--immediate-share of --immediate-min-jobs
                   or more) started within --immediate-wait, also while earlier
                   jobs of other queues waited for processors (--immediate-past):
                   they ran beside the machine (immediate_queues); the other
                   rules leave their jobs out (--immediate-beside)
  throttled users  users whose jobs were queued --throttle-backlog or more in
                   all with room for them (idle processors at least their
                   median job size) --throttle-room of that time or more: a
                   limit that moved kept them back; each is capped at the
                   --throttle-quantile quantile of the processors it held
                   then (a limit entry)
  held jobs        jobs that waited --held-room or more although the recorded
                   jobs left their processors idle for that long after their
                   submission (and no outage, drain, window or cap inferred
                   explains it): held by something the log does not record;
                   with --holds FILE they are written there, each held until
                   its recorded start, and the scenario names the file
  time sharing     the recorded jobs hold more processors than the machine
                   on --time-share of the time or more (said in a comment;
                   effective size and nodes are then not inferred)
  non-dedicated    on a time-shared machine, the fewest queues without whose
                   jobs the others stay within the machine in all but
                   --non-dedicated of the steps: they ran beside the others
                   (said in a comment)
  effective size   the median of the busy processors while jobs were queued,
                   when at least --effective-min of the machine: procs
  nodes            the largest k (2 to --node-max) such that --node-share of
                   the jobs asking more than one processor and a count that
                   is not a power of two ask a multiple of k: a [cluster] of
                   whole nodes of k processors

--node-events FILE also writes the capacity timeline, the outages and the
drains as node events (processors DRAIN and RESUME) for schedsim run
--node-events FILE, which engines without reservations run: nothing new
starts on held processors, but running jobs are not stopped and nothing is
kept from running into a drain.

The thresholds' defaults suit logs of a few months or more; the README's
"How close is the simulation to the real machine?" section shows results.

Examples:
  schedsim infer CTC-SP2-1996-3.1-cln.swf.gz --out ctc.toml
  schedsim fidelity ctc.toml
  schedsim infer log.swf.gz --drain-frac 0.3 --outage-min 1h
  schedsim infer log.swf.gz --out log.toml --node-events log.nodes
  schedsim infer log.swf.gz --out log.toml --holds log.holds
  schedsim fidelity --trace log.swf.gz --node-events log.nodes
`

func cmdInfer(args []string, stdout, stderr io.Writer) error {
	opt := infer.Defaults()
	var out, nodeEvents, holds, outageMin, capHold, heldRoom, throttleBacklog, immediateWait string
	outageMin, capHold, heldRoom, throttleBacklog, immediateWait = "2h", "24h", "1h", "100h", "1m"
	fs := newFlagSet("infer", inferUsage, stdout)
	fs.StringVar(&out, "out", "", "write the scenario to this file (default: standard output)")
	fs.StringVar(&nodeEvents, "node-events", "", "also write the capacity timeline, outages and drains to this file as node events (DRAIN, RESUME) for schedsim run --node-events, an approximation that engines without reservations run")
	fs.StringVar(&holds, "holds", "", "also write the held jobs to this file (lines JOB HOLD_UNTIL) and name it in the scenario (holds = FILE): each is held until its recorded start")
	fs.Float64Var(&opt.NearZeroFrac, "near-zero", opt.NearZeroFrac, "busy processors at most this fraction of the machine count as near idle (drains, outages)")
	fs.Float64Var(&opt.DrainMinFrac, "drain-frac", opt.DrainMinFrac, "a weekday and clock time is a drain when the machine was near idle with jobs queued there on at least this fraction of those days")
	fs.IntVar(&opt.DrainMinDays, "drain-days", opt.DrainMinDays, "... seen on at least this many days")
	fs.StringVar(&outageMin, "outage-min", outageMin, "an idle-with-queue gap at least this long (seconds, or with unit s, m, h, d) may be a planned outage")
	fs.IntVar(&opt.OutageMinStarts, "outage-starts", opt.OutageMinStarts, "... when at least this many jobs start within 15 min of its end")
	fs.IntVar(&opt.CapacityMinDays, "capacity-days", opt.CapacityMinDays, "a capacity drop lasts at least this many days")
	fs.Float64Var(&opt.CapacityLowFrac, "capacity-low", opt.CapacityLowFrac, "... in which at most this fraction of the machine was ever busy while queued jobs would have fit for 4 h a day or more")
	fs.Float64Var(&opt.WindowLeakFrac, "window-leak", opt.WindowLeakFrac, "a start hour is restricted to a maximum requested time when at most this fraction of the longer jobs expected there started there")
	fs.Float64Var(&opt.WindowMinExpected, "window-expected", opt.WindowMinExpected, "... and at least this many were expected")
	fs.Float64Var(&opt.SizeWindowMinExpected, "size-window-expected", opt.SizeWindowMinExpected, "a start hour of a queue is restricted to a processor count when at least this many of its larger jobs were expected there (0: never look for size windows)")
	fs.Float64Var(&opt.NonDedicatedFrac, "non-dedicated", opt.NonDedicatedFrac, "on a time-shared machine, name the fewest queues without whose jobs the others held more than the machine on under this fraction of the 5-minute steps: they ran beside the others (a comment; 0: never)")
	fs.StringVar(&capHold, "cap-hold", capHold, "a user sat at its maximum concurrency, with a job of its own waiting that would have fit, at least this long in all (seconds, or with unit) ...")
	fs.IntVar(&opt.CapMinEpisodes, "cap-episodes", opt.CapMinEpisodes, "... in at least this many episodes")
	fs.IntVar(&opt.CapMinUsers, "cap-users", opt.CapMinUsers, "a cap shared by at least this many users, which no user exceeds, applies to every user")
	fs.Float64Var(&opt.TimeShareFrac, "time-share", opt.TimeShareFrac, "the machine time-shared when the recorded jobs held more processors than it has on at least this fraction of the 5-minute steps (then no effective size or nodes are inferred)")
	fs.Float64Var(&opt.EffectiveMinFrac, "effective-min", opt.EffectiveMinFrac, "the machine's effective size is the median of the busy processors while jobs were queued when that is at least this fraction of it (0: never)")
	fs.Float64Var(&opt.NodeMinShare, "node-share", opt.NodeMinShare, "the machine has whole nodes of k processors when at least this fraction of the jobs asking more than one processor and no power of two ask a multiple of k")
	fs.IntVar(&opt.NodeMaxSize, "node-max", opt.NodeMaxSize, "the largest node size tried (below 2: never infer nodes)")
	fs.Float64Var(&opt.ThrottleQuantile, "throttle-quantile", opt.ThrottleQuantile, "a throttled user is capped at this quantile of the processors it held while its jobs were queued (0: never look for throttled users)")
	fs.Float64Var(&opt.ThrottleRoomFrac, "throttle-room", opt.ThrottleRoomFrac, "a user is throttled when the recorded jobs left its median job size idle in at least this fraction of the time its jobs were queued ...")
	fs.StringVar(&throttleBacklog, "throttle-backlog", throttleBacklog, "... and its jobs were queued at least this long in all (seconds, or with unit)")
	fs.StringVar(&heldRoom, "held-room", heldRoom, "a job was held by something the log does not record when it waited at least this long although, for this long after its submission, the recorded jobs left its processors idle (seconds, or with unit; 0: never)")
	fs.StringVar(&immediateWait, "immediate-wait", immediateWait, "a job started at once when its recorded wait is at most this (seconds, or with unit); see --immediate-share")
	fs.Float64Var(&opt.ImmediateShare, "immediate-share", opt.ImmediateShare, "a queue is immediate (its jobs ran beside the machine: immediate_queues) when at least this fraction of its jobs started at once ... (0: never look for immediate queues)")
	fs.IntVar(&opt.ImmediateMinJobs, "immediate-min-jobs", opt.ImmediateMinJobs, "... it has at least this many jobs ...")
	fs.Float64Var(&opt.ImmediatePastFrac, "immediate-past", opt.ImmediatePastFrac, "... and at least this fraction of those started at once (20 or more) did so while a job of another queue, submitted before them, had waited --immediate-wait or more and still waited")
	fs.BoolVar(&opt.ImmediateBeside, "immediate-beside", opt.ImmediateBeside, "the rules that count busy processors leave the immediate queues' jobs out, as they ran beside the machine (false: count them)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one log as argument, got %d (see schedsim infer --help)", fs.NArg())
	}
	var ok bool
	if opt.OutageMinSec, ok = workload.ParseSeconds(outageMin, 1<<40); !ok {
		return usagef("--outage-min %q: want seconds, or a number with unit s, m, h or d", outageMin)
	}
	if opt.CapMinHoldSec, ok = workload.ParseSeconds(capHold, 1<<40); !ok {
		return usagef("--cap-hold %q: want seconds, or a number with unit s, m, h or d", capHold)
	}
	if opt.ThrottleMinBacklogSec, ok = workload.ParseSeconds(throttleBacklog, 1<<40); !ok {
		return usagef("--throttle-backlog %q: want seconds, or a number with unit s, m, h or d", throttleBacklog)
	}
	if opt.HeldRoomSec, ok = workload.ParseSeconds(heldRoom, 1<<40); !ok {
		return usagef("--held-room %q: want seconds, or a number with unit s, m, h or d", heldRoom)
	}
	if opt.ImmediateWaitSec, ok = workload.ParseSeconds(immediateWait, 1<<40); !ok {
		return usagef("--immediate-wait %q: want seconds, or a number with unit s, m, h or d", immediateWait)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"--near-zero", opt.NearZeroFrac}, {"--drain-frac", opt.DrainMinFrac}, {"--capacity-low", opt.CapacityLowFrac}, {"--window-leak", opt.WindowLeakFrac},
		{"--time-share", opt.TimeShareFrac}, {"--non-dedicated", opt.NonDedicatedFrac}, {"--effective-min", opt.EffectiveMinFrac}, {"--node-share", opt.NodeMinShare},
		{"--throttle-quantile", opt.ThrottleQuantile}, {"--throttle-room", opt.ThrottleRoomFrac}, {"--immediate-share", opt.ImmediateShare}, {"--immediate-past", opt.ImmediatePastFrac}} {
		if !(f.v >= 0 && f.v <= 1) {
			return usagef("%s %v: want a fraction from 0 to 1", f.name, f.v)
		}
	}
	if opt.DrainMinDays < 1 || opt.OutageMinStarts < 0 || opt.CapacityMinDays < 1 || opt.CapMinEpisodes < 1 || opt.CapMinUsers < 1 || !(opt.WindowMinExpected > 0) || !(opt.SizeWindowMinExpected >= 0) || opt.ImmediateMinJobs < 1 {
		return usagef("--drain-days, --capacity-days, --cap-episodes, --cap-users, --window-expected and --immediate-min-jobs want 1 or more, --outage-starts and --size-window-expected 0 or more")
	}
	sc := schedsim.Default()
	sc.Trace = fs.Arg(0)
	rd, err := schedsim.OpenTrace(&sc)
	if err != nil {
		return err
	}
	l, err := infer.Read(rd)
	rd.Close()
	if err != nil {
		return &schedsim.InputError{Err: err}
	}
	res, err := infer.Infer(l, opt)
	if err != nil {
		return usageError{err}
	}
	// The scenario names files relative to its own folder.
	rel := func(p string) string {
		if out == "" {
			return p
		}
		if abs, err := filepath.Abs(p); err == nil {
			if dir, err := filepath.Abs(filepath.Dir(out)); err == nil {
				if r, err := filepath.Rel(dir, abs); err == nil {
					return filepath.ToSlash(r)
				}
			}
		}
		return p
	}
	trace := rel(fs.Arg(0))
	if nodeEvents != "" {
		if err := report.WriteFileAtomic(nodeEvents, res.WriteNodeEvents); err != nil {
			return err
		}
	}
	if holds != "" && len(res.Holds) > 0 {
		if err := report.WriteFileAtomic(holds, res.WriteHolds); err != nil {
			return err
		}
		res.HoldsFile = rel(holds)
	}
	var buf bytes.Buffer
	if err := res.WriteTOML(&buf, trace); err != nil {
		return err
	}
	if out == "" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	if err := report.WriteFileAtomic(out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s: %d capacity drops, %d outages, %d recurring drains, %d start windows, %d limits, %d held jobs, %d immediate queues\n",
		out, len(res.Capacity), len(res.Outages), len(res.Drains), len(res.Windows), len(res.Limits), len(res.Holds), len(res.Immediate))
	return nil
}
