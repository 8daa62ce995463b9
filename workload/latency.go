package workload

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Latency is a submission latency: how long after its submission a job
// reaches the scheduler, the time a real machine's submission daemon and
// scheduler take before a job can start (CTC-SP2's log: no recorded wait
// under 5 s, most of the jobs that started at once 10 to 14 s after their
// submission). Until then the job is not queued; it joins the queue at its
// submission-order place, as a job held until then does (Job.HoldUntil).
// Default holds for every job whose queue Queues does not name.
type Latency struct {
	Default Time
	Queues  []QueueLatency // in the order given, each queue once
}

// QueueLatency is the latency of the jobs of one trace queue (SWF field
// 15; −1: the jobs whose queue the log does not know).
type QueueLatency struct {
	Queue int64
	Delay Time
}

// ErrLatency is the error a bad latency specification wraps.
var ErrLatency = errors.New("bad submission latency")

// ParseLatency reads a submission latency: comma-separated entries, one
// without "=" the latency of every job ("15s"), and QUEUE=DELAY the latency
// of one queue's jobs ("2=4s"); a queue is a number (SWF field 15, −1 for
// unknown) or a name the header's Queue lines give (h may be nil when
// every queue is a number). A delay is whole seconds with an optional unit
// s, m, h or d, at most a day. The empty string is no latency. A default
// given twice, a queue named twice or a malformed entry is an error
// wrapping ErrLatency that names the entry.
func ParseLatency(s string, h *Header) (Latency, error) {
	var l Latency
	if strings.TrimSpace(s) == "" {
		return l, nil
	}
	if h == nil {
		h = &Header{}
	}
	haveDefault := false
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		q, d, named := strings.Cut(e, "=")
		if !named {
			q, d = "", e
		}
		q, d = strings.TrimSpace(q), strings.TrimSpace(d)
		t, ok := ParseSeconds(d, 86400)
		if !ok {
			return Latency{}, fmt.Errorf("%w: %q: want a delay in whole seconds from 0 to a day, optionally with a unit s, m, h or d (e.g. 15s), or QUEUE=DELAY", ErrLatency, e)
		}
		if !named {
			if haveDefault {
				return Latency{}, fmt.Errorf("%w: %q: the latency of every job is given twice", ErrLatency, e)
			}
			haveDefault, l.Default = true, t
			continue
		}
		if q == "" {
			return Latency{}, fmt.Errorf("%w: %q: no queue before =", ErrLatency, e)
		}
		var n int64
		if v, err := strconv.ParseInt(q, 10, 64); err == nil {
			if v < -1 {
				return Latency{}, fmt.Errorf("%w: %q: want a queue number ≥ 0, or −1 for the jobs whose queue the log does not know", ErrLatency, e)
			}
			n = v
		} else {
			ns, err := resolveList("queue", "Queue", []string{q}, h)
			if err != nil {
				return Latency{}, fmt.Errorf("%w: %v", ErrLatency, err)
			}
			n = ns[0]
		}
		if slices.ContainsFunc(l.Queues, func(x QueueLatency) bool { return x.Queue == n }) {
			return Latency{}, fmt.Errorf("%w: %q: queue %d is given twice", ErrLatency, e, n)
		}
		l.Queues = append(l.Queues, QueueLatency{Queue: n, Delay: t})
	}
	return l, nil
}

// Zero reports whether l delays no job.
func (l Latency) Zero() bool {
	return l.Default == 0 && !slices.ContainsFunc(l.Queues, func(x QueueLatency) bool { return x.Delay > 0 })
}

// Of returns the latency of a job of queue q.
func (l Latency) Of(q int) Time {
	for _, x := range l.Queues {
		if x.Queue == int64(q) {
			return x.Delay
		}
	}
	return l.Default
}

// String gives l in ParseLatency's form, queues by number ("" for none).
func (l Latency) String() string {
	if l.Default == 0 && len(l.Queues) == 0 {
		return ""
	}
	parts := []string{strconv.FormatInt(int64(l.Default), 10) + "s"}
	for _, x := range l.Queues {
		parts = append(parts, strconv.FormatInt(x.Queue, 10)+"="+strconv.FormatInt(int64(x.Delay), 10)+"s")
	}
	return strings.Join(parts, ",")
}

// Hold delays j's arrival at the scheduler by its queue's latency (l in
// seconds; tick is the run's ticks per second, 1 for seconds): j's Hold
// Until becomes at least its submission plus the latency. A hold of its
// own that ends later stays; a job whose submission plus the latency would
// pass MaxTime is left as it is.
func (l Latency) Hold(j *Job, tick int64) {
	if d := l.Of(j.Queue) * Time(max(tick, 1)); d > 0 && j.Submit < MaxTime-d {
		j.HoldUntil = max(j.HoldUntil, j.Submit+d)
	}
}
