package infer

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// WriteTOML writes the result as a schedsim scenario: trace names the log
// as the scenario should (relative to the scenario file's folder), and
// every entry comes after comment lines with its evidence. The output
// depends only on the log and the options.
func (r *Result) WriteTOML(w io.Writer, trace string) error {
	b := bufio.NewWriter(w)
	l := r.Log
	comment := func(lines ...string) {
		for _, s := range lines {
			fmt.Fprintf(b, "# %s\n", s)
		}
	}
	comment(fmt.Sprintf("Scenario inferred by schedsim infer from %s: %d jobs with a recorded start and end", baseName(l.Name), len(l.Jobs)),
		fmt.Sprintf("(%d more without a recorded wait or run time were left out).", l.Skipped),
		"Each entry below follows the evidence for it, taken from the log's recorded starts and ends alone.",
		"Edit what you know better, then see how close the replay comes to the log:",
		"  schedsim fidelity THIS_FILE.toml")
	fmt.Fprintln(b)
	fmt.Fprintf(b, "trace = %s\nbackfill = \"easy\"\n\n", strconv.Quote(trace))
	comment(r.ProcsEvidence...)
	if r.NodeSize > 1 {
		comment(fmt.Sprintf("procs = %d: given by the cluster of whole nodes below", r.Nodes*r.NodeSize))
		fmt.Fprintln(b)
	} else {
		fmt.Fprintf(b, "procs = %d\n\n", r.Procs)
	}
	comment(r.ZoneEvidence...)
	fmt.Fprintf(b, "timezone = %s\n", strconv.Quote(r.Zone))
	// The immediate queues' jobs plan nothing: they start at submission.
	imm := r.immediateSet()
	noReq, planned := 0, 0
	for _, j := range l.Jobs {
		if imm[j.Queue] {
			continue
		}
		planned++
		if j.ReqTime <= 0 {
			noReq++
		}
	}
	if noReq > 0 && len(r.Capacity)+len(r.Outages)+len(r.Drains)+len(r.SharedDay)+len(r.Windows) > 0 {
		fmt.Fprintln(b)
		comment(fmt.Sprintf("%d jobs (%.1f %%) give no requested time. Planned around a reservation, a job without one could never start", noReq, 100*float64(noReq)/float64(planned)),
			"(it would run into the next one): they plan with their run time instead, as a default time limit would bound them.")
		fmt.Fprintf(b, "missing_estimate = \"runtime\"\n")
	}
	if len(r.Holds) > 0 {
		fmt.Fprintln(b)
		comment(r.HoldEvidence...)
		if r.HoldsFile != "" {
			fmt.Fprintf(b, "holds = %s\n", strconv.Quote(r.HoldsFile))
		} else {
			comment("Not written: schedsim infer --holds FILE writes them to FILE and names it here (holds = \"FILE\").")
		}
	}
	if len(r.Latency.Evidence) > 0 {
		fmt.Fprintln(b)
		comment(r.Latency.Evidence...)
		fmt.Fprintf(b, "submit_latency = %s\n", strconv.Quote(r.Latency.String()))
	}
	if len(r.Immediate) > 0 {
		fmt.Fprintln(b)
		comment("Immediate queues: their jobs start at submission, beside the machine, on processors of their own; no policy schedules them.")
		for _, iq := range r.Immediate {
			comment(iq.Evidence...)
		}
		fmt.Fprintf(b, "immediate_queues = %s\n", r.immediateList())
	}
	if len(r.Shared) > 0 {
		fmt.Fprintln(b)
		comment("Shared queues: time-shared (non-dedicated) jobs; each starts when it reaches the scheduler and its start windows let it, on whatever processors are free,",
			"held only by reservations of the whole machine (outages); the other jobs start only where they fit beside them.")
		comment(r.SharedEvidence...)
		fmt.Fprintf(b, "shared_queues = %s\n", r.sharedList())
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(b)
		comment("Looked for and not found:")
		for _, n := range r.Notes {
			comment("  " + n)
		}
	}
	if len(r.Queues) > 0 {
		fmt.Fprintln(b)
		comment("Queue priorities: the jobs of a higher tier are scheduled first (Slurm's PriorityTier), backfilling behind them.")
		var order []string
		for _, q := range r.Queues {
			order = append(order, strconv.Itoa(q.Queue))
		}
		comment("  order, highest first: " + strings.Join(order, " > "))
		for _, e := range r.QueueEvidence {
			comment("  " + e)
		}
		for _, q := range r.Queues {
			fmt.Fprintf(b, "\n[[priority_tier]]\nqueue = %d\ntier = %d\n", q.Queue, q.Tier)
		}
	}
	groups := []struct {
		title string
		res   []Reservation
	}{
		{"Capacity timeline: processors out of service, held by maintenance reservations.", r.Capacity},
		{"Planned outages.", r.Outages},
		{"Recurring drains: no job runs across them.", r.Drains},
		{"Processors kept for the shared queues by day: the dedicated queues' jobs may not use them; the shared queues' jobs are not held by them.", r.SharedDay},
	}
	for _, g := range groups {
		if len(g.res) == 0 {
			continue
		}
		fmt.Fprintln(b)
		comment(g.title)
		for _, res := range g.res {
			fmt.Fprintln(b)
			comment(res.Evidence...)
			fmt.Fprintf(b, "[[reservation]]\nname = %s\nstart = %s\nduration = %s\n", strconv.Quote(res.Name), r.timeValue(res.Start), strconv.Quote(durationText(roundUpMinute(res.DurationSec))))
			if res.Recur != "once" {
				fmt.Fprintf(b, "recur = %s\n", strconv.Quote(res.Recur))
				if res.Until > 0 {
					fmt.Fprintf(b, "until = %s\n", r.timeValue(res.Until))
				}
			}
			if res.Procs > 0 {
				fmt.Fprintf(b, "procs = %d\n", res.Procs)
			}
			fmt.Fprintf(b, "maint = true\n")
		}
	}
	if len(r.Windows) > 0 {
		fmt.Fprintln(b)
		comment("Start windows: a job asking more than max_wall (more processors than max_procs, fewer than min_procs) may not start inside the window.")
		for _, sw := range r.Windows {
			fmt.Fprintln(b)
			comment(sw.Evidence...)
			fmt.Fprintf(b, "[[start_window]]\n")
			if sw.Queue >= 0 {
				fmt.Fprintf(b, "queue = %d\n", sw.Queue)
			}
			fmt.Fprintf(b, "days = %s\nhours = \"%02d:00-%02d:00\"\n", strconv.Quote(sw.Days), sw.FromHour, sw.ToHour)
			if sw.MaxWallSec > 0 {
				fmt.Fprintf(b, "max_wall = %s\n", strconv.Quote(durationText(sw.MaxWallSec)))
			}
			if sw.MaxProcs > 0 {
				fmt.Fprintf(b, "max_procs = %d\n", sw.MaxProcs)
			}
			if sw.MinProcs > 0 {
				fmt.Fprintf(b, "min_procs = %d\n", sw.MinProcs)
			}
		}
	}
	if len(r.Limits) > 0 {
		fmt.Fprintln(b)
		comment("Per-user concurrency caps.")
		for _, lim := range r.Limits {
			fmt.Fprintln(b)
			comment(lim.Evidence...)
			q := make([]string, len(lim.Users))
			for i, u := range lim.Users {
				q[i] = strconv.Quote(u)
			}
			fmt.Fprintf(b, "[[limit]]\nusers = [%s]\n", strings.Join(q, ", "))
			if lim.MaxJobs > 0 {
				fmt.Fprintf(b, "max_jobs_per_user = %d\n", lim.MaxJobs)
			}
			if lim.MaxCPUs > 0 {
				fmt.Fprintf(b, "max_cpus_per_user = %d\n", lim.MaxCPUs)
			}
		}
	}
	if r.NodeSize > 1 {
		fmt.Fprintln(b)
		comment(r.NodeEvidence...)
		fmt.Fprintf(b, "[cluster]\nselect = \"linear\"\n\n[[cluster.groups]]\nname = \"node\"\ncount = %d\ncores = %d\n", r.Nodes, r.NodeSize)
	}
	return b.Flush()
}

// timeValue writes trace time t as the scenario's start and until take
// it: the wall-clock time on the inferred clock, or, without a calendar,
// seconds of trace time.
func (r *Result) timeValue(t workload.Time) string {
	if !r.Log.HasCalendar {
		return strconv.Quote(strconv.FormatInt(int64(t), 10))
	}
	return strconv.Quote(r.wall(r.Log.Epoch, t).Format("2006-01-02T15:04:05"))
}

// roundUpMinute rounds seconds up to whole minutes.
func roundUpMinute(sec workload.Time) workload.Time { return (sec + 59) / 60 * 60 }

// baseName is the last element of a slash- or backslash-separated path.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
