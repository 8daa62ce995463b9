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

func cmdInfer(args []string, stdout, stderr io.Writer) error {
	opt := infer.Defaults()
	var out, nodeEvents, holds, outageMin, capHold, heldRoom, throttleBacklog, immediateWait, latencyWait string
	outageMin, capHold, heldRoom, throttleBacklog, immediateWait, latencyWait = "2h", "24h", "1h", "100h", "1m", "1m"
	fs := newFlagSet("infer", infer.Usage, stdout)
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
	fs.Float64Var(&opt.NonDedicatedFrac, "non-dedicated", opt.NonDedicatedFrac, "on a time-shared machine, name the fewest queues without whose jobs the others held more than the machine on under this fraction of the 5-minute steps: they ran time-shared beside the others (written as shared_queues, or a comment with --non-dedicated-note; 0: never)")
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
	fs.StringVar(&latencyWait, "latency-wait", latencyWait, "the jobs that found their processors idle at submission and started within this long (seconds, or with unit; 0: never) give the submission latency, their median wait")
	fs.BoolVar(&opt.NonDedicatedNote, "non-dedicated-note", opt.NonDedicatedNote, "on a time-shared machine, name the non-dedicated queues (--non-dedicated) in a comment only, instead of writing them as shared_queues (and look for no processors kept for them by day)")
	fs.Float64Var(&opt.SharedDayFreeFrac, "shared-day-free", opt.SharedDayFreeFrac, "with shared queues, the dedicated queues' jobs kept off processors by day (a weekday reservation) when, at a plateau of 4 hours or more in a row, their median load left at least this fraction of the machine while some of them waited (0: never look)")
	fs.BoolVar(&opt.ImmediateBeside, "immediate-beside", opt.ImmediateBeside, "the rules that count busy processors leave the immediate queues' jobs out, as they ran beside the machine (false: count them)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one log as argument, got %d (see schedsim infer --help)", fs.NArg())
	}
	for _, d := range []struct {
		flag, v string
		to      *workload.Time
	}{{"outage-min", outageMin, &opt.OutageMinSec}, {"cap-hold", capHold, &opt.CapMinHoldSec}, {"throttle-backlog", throttleBacklog, &opt.ThrottleMinBacklogSec},
		{"held-room", heldRoom, &opt.HeldRoomSec}, {"immediate-wait", immediateWait, &opt.ImmediateWaitSec}, {"latency-wait", latencyWait, &opt.LatencyWaitSec}} {
		var ok bool
		if *d.to, ok = workload.ParseSeconds(d.v, 1<<40); !ok {
			return usagef("--%s %q: want seconds, or a number with unit s, m, h or d", d.flag, d.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"--near-zero", opt.NearZeroFrac}, {"--drain-frac", opt.DrainMinFrac}, {"--capacity-low", opt.CapacityLowFrac}, {"--window-leak", opt.WindowLeakFrac},
		{"--time-share", opt.TimeShareFrac}, {"--non-dedicated", opt.NonDedicatedFrac}, {"--effective-min", opt.EffectiveMinFrac}, {"--node-share", opt.NodeMinShare},
		{"--throttle-quantile", opt.ThrottleQuantile}, {"--throttle-room", opt.ThrottleRoomFrac}, {"--immediate-share", opt.ImmediateShare}, {"--immediate-past", opt.ImmediatePastFrac}, {"--shared-day-free", opt.SharedDayFreeFrac}} {
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
	lat := "none"
	if len(res.Latency.Evidence) > 0 {
		lat = res.Latency.String()
	}
	fmt.Fprintf(stderr, "wrote %s: %d capacity drops, %d outages, %d recurring drains, %d start windows, %d limits, %d held jobs, %d immediate queues, %d shared queues (%d daytime cuts), submission latency %s\n",
		out, len(res.Capacity), len(res.Outages), len(res.Drains), len(res.Windows), len(res.Limits), len(res.Holds), len(res.Immediate), len(res.Shared), len(res.SharedDay), lat)
	return nil
}
