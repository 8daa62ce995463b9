package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// appendPreemption appends the metadata words of a job of a run with
// preemption by partition priority (sim.Preemption) to parts: tier=T for
// every job; for a preempted job also preempted=AT@BY:MODE;… (each
// preemption: when, by which job, suspend, requeue or cancel),
// runs=FROM-TO:RESOURCES;… (the stretches it ran, RESOURCES as
// allocated_resources with commas) and lost=S (run time requeues threw
// away). Its times are ticks of 1/tick second, written in seconds with the
// unit's decimals like the table's other times (whole seconds for tick 1).
// ParsePreemptionIn reads them back.
func appendPreemption(parts []string, r *sim.Record, tick int64) []string {
	parts = append(parts, "tier="+strconv.Itoa(r.Tier))
	if len(r.Runs) == 0 {
		return parts
	}
	var b strings.Builder
	if len(r.Preemptions) > 0 {
		b.WriteString("preempted=")
		for i, m := range r.Preemptions {
			if i > 0 {
				b.WriteByte(';')
			}
			fmt.Fprintf(&b, "%s@%d:%s", workload.FormatTicks(m.At, tick), m.By, m.Mode)
		}
		parts = append(parts, b.String())
		b.Reset()
	}
	b.WriteString("runs=")
	for i, x := range r.Runs {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "%s-%s:%s", workload.FormatTicks(x.From, tick), workload.FormatTicks(x.To, tick), formatRangesComma(x.Alloc))
	}
	parts = append(parts, b.String(), "lost="+workload.FormatTicks(r.LostRun, tick))
	return parts
}

// Preemption is what a jobs.csv row's metadata says of a job's
// preemptions (appendPreemption).
type Preemption struct {
	// HasTier reports a tier=T word: the run had preemption.
	HasTier     bool
	Tier        int
	Preemptions []sim.PreemptMark
	Runs        []sim.RunSpan
	Lost        workload.Time
}

// ParsePreemption reads the preemption words of a jobs.csv metadata
// field (tier=, preempted=, runs=, lost=) of a run in seconds; other words
// are skipped. A malformed word is an error naming it.
func ParsePreemption(meta string) (Preemption, error) { return ParsePreemptionIn(meta, 1) }

// ParsePreemptionIn is ParsePreemption for a run in ticks of 1/tick second
// (--time-unit): the words' times are seconds with at most the unit's
// decimals, read as ticks, exactly.
func ParsePreemptionIn(meta string, tick int64) (Preemption, error) {
	var p Preemption
	tick = max(tick, 1)
	ticks := func(s string) (int64, error) {
		if s == "" || s[0] == '-' || s[0] == '+' {
			return 0, strconv.ErrSyntax
		}
		return ParseTicks(s, tick)
	}
	for _, w := range strings.Fields(meta) {
		key, val, ok := strings.Cut(w, "=")
		if !ok {
			continue
		}
		bad := func(why string) error { return fmt.Errorf("%q: %s", w, why) }
		switch key {
		case "tier":
			n, err := strconv.Atoi(val)
			if err != nil {
				return p, bad("want tier=N")
			}
			p.Tier, p.HasTier = n, true
		case "lost":
			n, err := ticks(val)
			if err != nil {
				return p, bad("want lost=SECONDS")
			}
			p.Lost = workload.Time(n)
		case "preempted":
			for _, item := range strings.Split(val, ";") {
				at, rest, ok1 := strings.Cut(item, "@")
				by, mode, ok2 := strings.Cut(rest, ":")
				a, err1 := ticks(at)
				b, err2 := strconv.ParseInt(by, 10, 64)
				m, err3 := policy.ParsePreemptMode(mode)
				if !ok1 || !ok2 || err1 != nil || err2 != nil || err3 != nil || m == policy.PreemptOff {
					return p, bad("want AT@JOB:MODE;…")
				}
				p.Preemptions = append(p.Preemptions, sim.PreemptMark{At: workload.Time(a), By: b, Mode: m})
			}
		case "runs":
			for _, item := range strings.Split(val, ";") {
				span, res, ok1 := strings.Cut(item, ":")
				from, to, ok2 := strings.Cut(span, "-")
				f, err1 := ticks(from)
				t, err2 := ticks(to)
				rs, err3 := cluster.ParseRanges(strings.ReplaceAll(res, ",", " "))
				if !ok1 || !ok2 || err1 != nil || err2 != nil || err3 != nil || t < f {
					return p, bad("want FROM-TO:RESOURCES;…")
				}
				p.Runs = append(p.Runs, sim.RunSpan{From: workload.Time(f), To: workload.Time(t), Alloc: rs})
			}
		}
	}
	return p, nil
}
