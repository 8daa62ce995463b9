package simtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// Limits of a scenario file: scenarios are small enough to check by hand.
const (
	MaxProcs = 1 << 16             // the largest machine
	MaxTime  = workload.Time(1e12) // the latest submit time, the longest run time and estimate
	MaxJobs  = 10_000              // the most jobs
)

// ScheduleMarker starts the line that separates a scenario from the
// schedule it must give.
const ScheduleMarker = "-- schedule"

// Scenario is a small test case read from a scenario file: a pool of
// processors, a policy and jobs, and the schedule they must give.
//
// A scenario file is text, one statement a line; a # starts a comment, to
// the end of the line, and blank lines are ignored:
//
//	# EASY: job 3 ends by the head's reservation at 10 and backfills.
//	procs 4
//	policy backfill=easy lookahead=all
//	#    id  submit  procs  run  estimate
//	job  1   0       2      10   10
//	job  2   0       4      10   10
//	job  3   0       2      10   10
//	-- schedule (go test -update rewrites what follows) --
//	# job  start  end  state      processors
//	1      0      10   completed  0-1
//	2      10     20   completed  0-3
//	3      0      10   completed  2-3
//
// procs gives the machine size, once. policy gives the policy, at most
// once, as NAME=VALUE settings named after schedsim run's flags, each with
// that flag's default when absent: backfill (off, easy, conservative or
// slurm; easy), lookahead (a number of jobs or all; 1000), reservation-depth
// (a number of jobs or all; 1), order (fcfs, sjf, …; fcfs), sjbf (true or
// false; a bare sjbf is true) and estimates (user, perfect, factor:F or
// predict; user). Each job line gives a job's id, submit time, processors,
// run time and estimate (its requested time, - for none) in seconds, in
// submission order; the job's other fields are those of Job.
//
// A job line may end with key=value fields: user, group, queue and
// partition (SWF fields 12, 13, 15, 16). The machine's constraints
// (sim.Constraints; its calendar is UTC from trace time 0, a Thursday)
// come on lines of their own, values in seconds:
//
//	reservation NAME START DURATION [recur=once|daily|weekdays|weekends|weekly] [until=T] [procs=N] [users=1,2] [accounts=…] [partitions=…]
//	window DAYS FROM-TO MAXWALL [partition=N] [queue=N]   # DAYS: Mon-Fri, Sat,Sun or *; FROM-TO: 07:00-16:00
//	limit users=*|1,2 [accounts=…] [max_jobs=N] [max_submit=N] [max_cpus=N] [grp_cpus=N] [max_wall=N] [assoc_max_jobs=N] [assoc_max_submit=N] [assoc_max_cpus=N]
//
// A reservation naming no users, accounts or partitions is a maintenance
// one. The policy line may also give sched-interval=N (seconds).
//
// Everything after the line that starts with ScheduleMarker is the
// schedule (Want), as FormatSchedule writes it.
type Scenario struct {
	// Path names the file in errors.
	Path string
	// Procs is the machine size.
	Procs int
	// Policy and Estimates are the policy line's settings.
	Policy    policy.Config
	Estimates string
	// Constraints are the reservation, window and limit lines' (nil
	// without any), and SchedInterval the policy line's sched-interval.
	Constraints   *sim.Constraints
	SchedInterval workload.Time
	// Jobs are the jobs in file order, numbered (Seq) in that order.
	Jobs []workload.Job
	// Want is the text after the schedule marker's line; HasSchedule
	// reports whether the file has that line.
	Want        string
	HasSchedule bool
	// head is the file's text before the schedule marker's line.
	head []byte
}

// ParseScenario reads a scenario file's text (see Scenario). An error is
// a *workload.ParseError naming path, the line and the field.
func ParseScenario(path string, data []byte) (*Scenario, error) {
	return parse(path, data, false)
}

// ParseJobs reads jobs written as a scenario file's job lines (job ID
// SUBMIT PROCS RUN ESTIMATE, in submission order; # comments and blank
// lines), and nothing else: a compact form for a test's workload. It
// returns them numbered (Seq) in order. An error is a
// *workload.ParseError naming path, the line and the field.
func ParseJobs(path string, data []byte) ([]workload.Job, error) {
	s, err := parse(path, data, true)
	if err != nil {
		return nil, err
	}
	return s.Jobs, nil
}

// Jobs returns the jobs of text, as ParseJobs reads them; an error fails
// t.
func Jobs(t testing.TB, text string) []workload.Job {
	t.Helper()
	jobs, err := ParseJobs("jobs", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// parse reads a scenario file, or only job lines if jobsOnly.
func parse(path string, data []byte, jobsOnly bool) (*Scenario, error) {
	s := &Scenario{Path: path, Policy: policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.DefaultLookahead, Depth: 1}}
	head := data
	if !jobsOnly {
		var want []byte
		head, want, s.HasSchedule = cutSchedule(data)
		s.Want = string(want)
	}
	s.head = head
	var seenProcs bool
	policyLine := int64(0) // the policy line's number, 0 before it
	ids := make(map[int64]int)
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(nil, 1<<20)
	line := int64(0)
	fail := func(field string, format string, args ...any) error {
		return &workload.ParseError{Path: path, Line: line, Column: field, Err: fmt.Errorf(format, args...)}
	}
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		fs := strings.Fields(text)
		if len(fs) == 0 {
			continue
		}
		if jobsOnly && fs[0] != "job" {
			return nil, fail("", "unknown statement %q (want job ID SUBMIT PROCS RUN ESTIMATE)", fs[0])
		}
		switch fs[0] {
		case "procs":
			if seenProcs {
				return nil, fail("procs", "a second procs line")
			}
			seenProcs = true
			if len(fs) != 2 {
				return nil, fail("procs", "want procs N, got %d values", len(fs)-1)
			}
			n, err := strconv.Atoi(fs[1])
			if err != nil || n < 1 || n > MaxProcs {
				return nil, fail("procs", "%q: want a number of processors from 1 to %d", fs[1], MaxProcs)
			}
			s.Procs = n
		case "policy":
			if policyLine > 0 {
				return nil, fail("policy", "a second policy line (the first is line %d)", policyLine)
			}
			policyLine = line
			for _, kv := range fs[1:] {
				if err := s.setPolicy(kv); err != nil {
					return nil, fail("policy", "%v", err)
				}
			}
		case "job":
			if len(s.Jobs) == MaxJobs {
				return nil, fail("job", "more than %d jobs", MaxJobs)
			}
			j, err := parseJob(fs[1:])
			if err != nil {
				var fe *fieldError
				if errors.As(err, &fe) {
					return nil, fail(fe.field, "%v", fe.err)
				}
				return nil, fail("job", "%v", err)
			}
			if l, dup := ids[j.ID]; dup {
				return nil, fail("id", "job %d already given on line %d", j.ID, l)
			}
			ids[j.ID] = int(line)
			if n := len(s.Jobs); n > 0 && j.Submit < s.Jobs[n-1].Submit {
				return nil, fail("submit", "job %d submitted at %d, before job %d on the line above (%d): jobs come in submission order", j.ID, j.Submit, s.Jobs[n-1].ID, s.Jobs[n-1].Submit)
			}
			j.Seq = int64(len(s.Jobs))
			s.Jobs = append(s.Jobs, j)
		case "reservation", "window", "limit":
			if s.Constraints == nil {
				s.Constraints = &sim.Constraints{}
			}
			if err := parseConstraint(s.Constraints, fs); err != nil {
				return nil, fail(fs[0], "%v", err)
			}
		default:
			return nil, fail("", "unknown statement %q (want procs, policy, job, reservation, window or limit)", fs[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fail("", "%v", err)
	}
	if jobsOnly {
		return s, nil
	}
	line = 0
	if !seenProcs {
		return nil, fail("procs", "no procs line: the machine size is missing")
	}
	line = policyLine
	if _, err := s.NewPolicy(); err != nil {
		return nil, fail("policy", "%v", err)
	}
	return s, nil
}

// cutSchedule splits a file's text at the schedule marker's line.
func cutSchedule(data []byte) (head, want []byte, found bool) {
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		}
		if bytes.HasPrefix(data[off:], []byte(ScheduleMarker)) {
			return data[:off], data[next:], true
		}
		off = next
	}
	return data, nil, false
}

// setPolicy applies one NAME=VALUE setting of the policy line.
func (s *Scenario) setPolicy(kv string) error {
	k, v, hasValue := strings.Cut(kv, "=")
	if !hasValue && k != "sjbf" {
		return fmt.Errorf("%q: want NAME=VALUE", kv)
	}
	switch k {
	case "backfill":
		s.Policy.Backfill = policy.Backfill(v)
	case "lookahead":
		n, err := policy.ParseLookahead(v)
		if err != nil {
			return err
		}
		s.Policy.Lookahead = n
	case "reservation-depth":
		n, err := policy.ParseLookahead(v)
		if err != nil || n == 0 {
			return fmt.Errorf("reservation-depth %q: want a number of jobs ≥ 1 or all", v)
		}
		s.Policy.Depth = n
	case "order":
		s.Policy.Order = v
	case "sjbf":
		b := true
		if hasValue {
			var err error
			if b, err = strconv.ParseBool(v); err != nil {
				return fmt.Errorf("sjbf %q: want true or false", v)
			}
		}
		s.Policy.SJBF = b
	case "sched-interval":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("sched-interval %q: want seconds ≥ 0", v)
		}
		s.SchedInterval = workload.Time(n)
	case "estimates":
		if _, err := policy.ParseEstimator(v); err != nil {
			return err
		}
		s.Estimates = v
	default:
		return fmt.Errorf("unknown setting %q (want backfill, lookahead, reservation-depth, order, sjbf or estimates)", k)
	}
	return nil
}

// fieldError is an error in one field of a job line.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }

// jobFields names the values of a job line.
var jobFields = []string{"id", "submit", "procs", "run", "estimate"}

// parseJob parses the values of a job line.
func parseJob(fs []string) (workload.Job, error) {
	var extra []string
	if len(fs) > len(jobFields) {
		fs, extra = fs[:len(jobFields)], fs[len(jobFields):]
	}
	if len(fs) != len(jobFields) {
		return workload.Job{}, fmt.Errorf("want job ID SUBMIT PROCS RUN ESTIMATE, got %d values", len(fs))
	}
	var v [5]int64
	for i, f := range fs {
		if i == 4 && f == "-" {
			v[i] = int64(workload.Unknown)
			continue
		}
		n, err := strconv.ParseInt(f, 10, 64)
		switch {
		case err != nil:
			return workload.Job{}, &fieldError{jobFields[i], fmt.Errorf("%q is not a whole number", f)}
		case i == 0 && n < 0:
			return workload.Job{}, &fieldError{jobFields[i], fmt.Errorf("%d is negative", n)}
		case i == 2 && (n < 1 || n > MaxProcs):
			return workload.Job{}, &fieldError{jobFields[i], fmt.Errorf("%d: want 1 to %d processors (a job larger than procs is rejected)", n, MaxProcs)}
		case (i == 1 || i == 4) && (n < 0 || n > int64(MaxTime)):
			return workload.Job{}, &fieldError{jobFields[i], fmt.Errorf("%d: want 0 to %d seconds", n, MaxTime)}
		case i == 3 && (n < 1 || n > int64(MaxTime)):
			return workload.Job{}, &fieldError{jobFields[i], fmt.Errorf("%d: want 1 to %d seconds", n, MaxTime)}
		}
		v[i] = n
	}
	j := Job(v[0], workload.Time(v[1]), int(v[2]), workload.Time(v[3]), workload.Time(v[4]))
	for _, kv := range extra {
		k, val, _ := strings.Cut(kv, "=")
		n, err := strconv.Atoi(val)
		if err != nil {
			return workload.Job{}, &fieldError{k, fmt.Errorf("%q is not a whole number", val)}
		}
		switch k {
		case "user":
			j.User = n
		case "group":
			j.Group = n
		case "queue":
			j.Queue = n
		case "partition":
			j.Partition = n
		default:
			return workload.Job{}, &fieldError{k, fmt.Errorf("unknown job field (want user, group, queue or partition)")}
		}
	}
	return j, nil
}

// NewPolicy returns a new policy value of the scenario's settings.
func (s *Scenario) NewPolicy() (policy.Policy, error) {
	return policy.New(s.Policy)
}

// Config returns the scenario's sim.Config, with new policy and estimator
// values.
func (s *Scenario) Config() (sim.Config, error) {
	p, err := s.NewPolicy()
	if err != nil {
		return sim.Config{}, err
	}
	est, err := policy.ParseEstimator(s.Estimates)
	if err != nil {
		return sim.Config{}, err
	}
	return sim.Config{Procs: s.Procs, Policy: p, Estimator: est, Constraints: s.Constraints, SchedInterval: s.SchedInterval}, nil
}

// Run runs the scenario and returns the schedule it gave, as
// FormatSchedule writes it. The records must pass CheckSchedule, or t
// fails.
func (s *Scenario) Run(t testing.TB) string {
	t.Helper()
	cfg, err := s.Config()
	if err != nil {
		t.Fatalf("%s: %v", s.Path, err)
	}
	jobs := slices.Clone(s.Jobs)
	rec, _ := Run(t, cfg, jobs)
	if err := checkSchedule(s.Procs, jobs, rec.Records, s.Constraints != nil); err != nil {
		t.Fatalf("%s: %v\n%s", s.Path, err, Format(rec.Records))
	}
	return FormatSchedule(jobs, rec.Records)
}

// WithSchedule returns the scenario file's text with schedule as its
// schedule: the text before the marker's line as it was, a marker line,
// then schedule.
func (s *Scenario) WithSchedule(schedule string) []byte {
	var b bytes.Buffer
	b.Write(s.head)
	if len(s.head) > 0 && s.head[len(s.head)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(ScheduleMarker + " (go test -update rewrites what follows) --\n")
	b.WriteString(schedule)
	return b.Bytes()
}

// FormatSchedule writes, for each of jobs in order, the records of that
// job: its id, start, end, state and processors, in aligned columns, with
// the reason of a job that did not run after them. A job without a
// record gets a line that says so.
func FormatSchedule(jobs []workload.Job, recs []sim.Record) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "# job\tstart\tend\tstate\tprocessors")
	for _, j := range jobs {
		n := 0
		for i := range recs {
			r := &recs[i]
			if r.Job.ID != j.ID {
				continue
			}
			n++
			alloc := string(cluster.FormatRanges(nil, r.Alloc))
			if alloc == "" {
				alloc = "-"
			}
			fmt.Fprintf(tw, "%d\t%d\t%d\t%v\t%s", j.ID, r.Start, r.End, r.State, alloc)
			if r.Reason != "" {
				fmt.Fprintf(tw, "\t%s", r.Reason)
			}
			fmt.Fprintln(tw)
		}
		if n == 0 {
			fmt.Fprintf(tw, "%d\t-\t-\tnever recorded\n", j.ID)
		}
	}
	tw.Flush()
	return b.String()
}
