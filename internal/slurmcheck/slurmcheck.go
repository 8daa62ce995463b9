// Package slurmcheck holds what .ci/slurm-backfill-check.sh needs to hold
// schedsim's --backfill slurm against a real slurmctld: the seeded workload
// the script submits with sbatch, a reader of `scontrol -o show job`, the
// SWF trace written from what Slurm recorded, and the job-by-job comparison
// of the real starts with the simulated ones, with the gate of issue 28.
package slurmcheck

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Submission is one job of the workload: sbatch -n CPUs -t LimitMin
// --wrap "sleep Sleep", Offset seconds after t0.
type Submission struct {
	Offset   int64
	CPUs     int
	LimitMin int
	Sleep    int64
}

// Workload returns n jobs drawn from seed: submission offsets spread over
// span seconds (sorted, the first at 0), 1 to maxCPUs CPUs (half of them
// 1–4, a third 1–6, the rest from a quarter of the machine to all of it),
// sleeps of 10 to 120 s (10 + 110 u³, most of them short, so that 40 jobs
// on 32 CPUs finish in about five minutes) and limits of whole minutes, the
// sleep's minutes rounded up plus 0 or 1. The same arguments give the same jobs on every machine (PCG).
func Workload(seed uint64, n int, span int64, maxCPUs int) []Submission {
	r := rand.New(rand.NewPCG(seed, 28))
	jobs := make([]Submission, n)
	for i := range jobs {
		var cpus int
		switch u := r.IntN(6); {
		case u < 3:
			cpus = 1 + r.IntN(min(4, maxCPUs))
		case u < 5:
			cpus = 1 + r.IntN(min(6, maxCPUs))
		default:
			lo := max(1, maxCPUs/4)
			cpus = lo + r.IntN(maxCPUs-lo+1)
		}
		u := r.Float64()
		sleep := 10 + int64(110*u*u*u+0.5)
		jobs[i] = Submission{
			Offset:   r.Int64N(max(span, 1)),
			CPUs:     min(cpus, maxCPUs),
			LimitMin: int((sleep+59)/60) + r.IntN(2),
			Sleep:    sleep,
		}
	}
	if n > 0 {
		jobs[0].Offset = 0
	}
	slices.SortStableFunc(jobs, func(a, b Submission) int {
		switch {
		case a.Offset < b.Offset:
			return -1
		case a.Offset > b.Offset:
			return 1
		}
		return 0
	})
	return jobs
}

// WriteWorkload writes jobs one a line, "offset cpus limit_minutes sleep",
// for the script to read with `read`.
func WriteWorkload(w io.Writer, jobs []Submission) error {
	bw := bufio.NewWriter(w)
	for _, j := range jobs {
		fmt.Fprintf(bw, "%d %d %d %d\n", j.Offset, j.CPUs, j.LimitMin, j.Sleep)
	}
	return bw.Flush()
}

// Record is what `scontrol -o show job` says of one job: times in Unix
// seconds (Slurm records whole seconds), the limit in minutes.
type Record struct {
	JobID      int64
	State      string
	Submit     int64
	Start      int64
	End        int64
	CPUs       int
	LimitMin   int
	Nodes      string // NodeList, e.g. n[08-31]
	Scheduler  string // Main or Backfill, when scontrol says
	SourceLine int
}

// ParseScontrol reads the output of `scontrol -o show job` (one job a
// line, KEY=VALUE fields), with the times in loc. name is the file's name
// for errors, which say the line and the field. Lines of array jobs or
// jobs that did not complete are errors: the check submits neither.
func ParseScontrol(r io.Reader, name string, loc *time.Location) ([]Record, error) {
	var out []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	ln := 0
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line == "No jobs in the system" {
			continue
		}
		fields := map[string]string{}
		last := ""
		for _, tok := range strings.Fields(line) {
			k, v, ok := strings.Cut(tok, "=")
			if !ok || k == "" || strings.ContainsAny(k, "/:()") {
				// A value with a space in it (Reason=..., Comment=...).
				if last != "" {
					fields[last] += " " + tok
				}
				continue
			}
			if _, dup := fields[k]; !dup {
				fields[k] = v
			}
			last = k
		}
		bad := func(field, format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s: %s", name, ln, field, fmt.Sprintf(format, a...))
		}
		get := func(field string) (string, error) {
			v, ok := fields[field]
			if !ok {
				return "", bad(field, "missing")
			}
			return v, nil
		}
		var rec Record
		rec.SourceLine = ln
		v, err := get("JobId")
		if err != nil {
			return nil, err
		}
		if rec.JobID, err = strconv.ParseInt(v, 10, 64); err != nil || rec.JobID < 1 {
			return nil, bad("JobId", "%q is not a job number", v)
		}
		if a, ok := fields["ArrayJobId"]; ok && a != "" {
			return nil, bad("ArrayJobId", "job %d is part of an array; the check submits none", rec.JobID)
		}
		if rec.State, err = get("JobState"); err != nil {
			return nil, err
		}
		if rec.State != "COMPLETED" {
			return nil, bad("JobState", "job %d is %s, want COMPLETED", rec.JobID, rec.State)
		}
		for _, f := range []struct {
			key string
			dst *int64
		}{{"SubmitTime", &rec.Submit}, {"StartTime", &rec.Start}, {"EndTime", &rec.End}} {
			if v, err = get(f.key); err != nil {
				return nil, err
			}
			t, err := time.ParseInLocation("2006-01-02T15:04:05", v, loc)
			if err != nil {
				return nil, bad(f.key, "%q is not a time YYYY-MM-DDTHH:MM:SS", v)
			}
			*f.dst = t.Unix()
		}
		if rec.Start < rec.Submit || rec.End < rec.Start {
			return nil, bad("StartTime", "job %d: submit %d, start %d, end %d are not in order", rec.JobID, rec.Submit, rec.Start, rec.End)
		}
		if v, err = get("NumCPUs"); err != nil {
			return nil, err
		}
		if rec.CPUs, err = strconv.Atoi(v); err != nil || rec.CPUs < 1 {
			return nil, bad("NumCPUs", "%q is not a positive count", v)
		}
		if v, err = get("TimeLimit"); err != nil {
			return nil, err
		}
		if rec.LimitMin, err = parseLimit(v); err != nil {
			return nil, bad("TimeLimit", "%q: %v", v, err)
		}
		rec.Nodes = fields["NodeList"]
		rec.Scheduler = fields["Scheduler"]
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, ln+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no job", name)
	}
	slices.SortFunc(out, func(a, b Record) int {
		switch {
		case a.JobID < b.JobID:
			return -1
		case a.JobID > b.JobID:
			return 1
		}
		return 0
	})
	for i := 1; i < len(out); i++ {
		if out[i].JobID == out[i-1].JobID {
			return nil, fmt.Errorf("%s:%d: JobId: job %d appears twice", name, out[i].SourceLine, out[i].JobID)
		}
	}
	return out, nil
}

// parseLimit reads a whole-minute TimeLimit: [days-]hours:minutes:00 or
// minutes:00.
func parseLimit(s string) (int, error) {
	days := 0
	if d, rest, ok := strings.Cut(s, "-"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad days")
		}
		days, s = n, rest
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("want [days-]hours:minutes:seconds")
	}
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 59 && i > 0 {
			return 0, fmt.Errorf("want [days-]hours:minutes:seconds")
		}
		v[3-len(parts)+i] = n
	}
	if v[2] != 0 {
		return 0, fmt.Errorf("not whole minutes")
	}
	m := days*24*60 + v[0]*60 + v[1]
	if m < 1 {
		return 0, fmt.Errorf("want at least a minute")
	}
	return m, nil
}

// WriteSWF writes the records as an SWF trace whose time 0 is t0 (Unix
// seconds), jobs numbered 1, 2, … in Slurm's job id order (the submission
// order): submit, the wait and run time Slurm gave, the CPUs and the limit
// in seconds. The header names the machine (cpus one-CPU nodes) and t0.
func WriteSWF(w io.Writer, recs []Record, t0 int64, cpus int, note string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "; Version: 2.2\n; Computer: Slurm on localhost, %d nodes of one CPU\n", cpus)
	if note != "" {
		fmt.Fprintf(bw, "; Note: %s\n", note)
	}
	fmt.Fprintf(bw, "; Note: job N is Slurm job %d+N-1; field 3 is Slurm's StartTime - SubmitTime\n", recs[0].JobID)
	fmt.Fprintf(bw, "; UnixStartTime: %d\n; TimeZoneString: UTC\n", t0)
	fmt.Fprintf(bw, "; MaxJobs: %d\n; MaxRecords: %d\n; MaxProcs: %d\n; MaxNodes: %d\n", len(recs), len(recs), cpus, cpus)
	for i, r := range recs {
		if r.Submit < t0 {
			return fmt.Errorf("job %d submitted at %d, before t0 %d", r.JobID, r.Submit, t0)
		}
		fmt.Fprintf(bw, "%d %d %d %d %d -1 -1 %d %d -1 1 1 1 -1 -1 -1 -1 -1\n",
			i+1, r.Submit-t0, r.Start-r.Submit, r.End-r.Start, r.CPUs, r.CPUs, r.LimitMin*60)
	}
	return bw.Flush()
}

// ReadWorkload reads what WriteWorkload wrote: one job a line, "offset
// cpus limit_minutes sleep", in submission order. name is the file's name
// for errors, which say the line and the field.
func ReadWorkload(r io.Reader, name string) ([]Submission, error) {
	var out []Submission
	sc := bufio.NewScanner(r)
	ln := 0
	for sc.Scan() {
		ln++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 fields (offset cpus limit_minutes sleep), got %d", name, ln, len(f))
		}
		var v [4]int64
		for i, field := range []string{"offset", "cpus", "limit_minutes", "sleep"} {
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil || n < 0 || (i > 0 && n < 1) || n > 1<<31 {
				return nil, fmt.Errorf("%s:%d: %s: %q is not a whole number in range", name, ln, field, f[i])
			}
			v[i] = n
		}
		out = append(out, Submission{Offset: v[0], CPUs: int(v[1]), LimitMin: int(v[2]), Sleep: v[3]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, ln+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no job", name)
	}
	return out, nil
}
