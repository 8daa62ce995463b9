package workload

import (
	"bytes"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sacctTable is sacct output as a table: the header's names, then one row
// per line, in the shape "sacct --allusers --parsable2
// --format=..." prints (see sacct's manual page: JobID forms, times as
// YYYY-MM-DDTHH:MM:SS, durations as [DD-[HH:]]MM:SS, ReqMem with its
// unit and c/n suffix, TRES lists, "Unknown"/"None" for unset times).
type sacctTable [][]string

// text joins the table with '|'; trailing adds the '|' --parsable ends
// each line with, and order, when not nil, permutes the columns.
func (tb sacctTable) text(trailing bool, order []int, eol string) string {
	var b strings.Builder
	for _, row := range tb {
		cells := row
		if order != nil {
			cells = make([]string, len(row))
			for i, k := range order {
				cells[i] = row[k]
			}
		}
		b.WriteString(strings.Join(cells, "|"))
		if trailing {
			b.WriteByte('|')
		}
		b.WriteString(eol)
	}
	return b.String()
}

// sacctFixture covers the cases the reader folds or maps: a job and its
// steps, an array task (with JobIDRaw), array tasks that never started,
// a job cancelled before it started, a timeout, a heterogeneous job of
// two components, a requeued job's two runs (sacct --duplicates), a job
// still running.
var sacctFixture = sacctTable{
	{"JobID", "JobIDRaw", "JobName", "User", "UID", "Group", "GID", "Account", "Partition", "QOS", "Priority", "Submit", "Eligible", "Start", "End", "Elapsed", "Timelimit", "State", "ExitCode", "NCPUS", "ReqCPUS", "NNodes", "ReqNodes", "ReqMem", "ReqTRES", "AllocTRES", "Reservation", "Constraints", "MaxRSS", "TotalCPU"},
	{"1001", "1001", "sim", "alice", "5001", "phys", "600", "proj1", "batch", "normal", "4294", "2024-03-01T10:00:00", "2024-03-01T10:00:00", "2024-03-01T10:00:30", "2024-03-01T11:00:30", "01:00:00", "02:00:00", "COMPLETED", "0:0", "8", "8", "2", "2", "4000Mc", "billing=8,cpu=8,mem=32000M,node=2", "billing=8,cpu=8,mem=32000M,node=2", "", "", "", "02:00:00"},
	{"1001.batch", "1001.batch", "batch", "", "", "", "", "proj1", "", "", "", "2024-03-01T10:00:30", "2024-03-01T10:00:30", "2024-03-01T10:00:30", "2024-03-01T11:00:30", "01:00:00", "", "COMPLETED", "0:0", "4", "4", "1", "1", "4000Mc", "", "cpu=4,mem=16000M,node=1", "", "", "2048K", "00:10.500"},
	{"1001.0", "1001.0", "a.out", "", "", "", "", "proj1", "", "", "", "2024-03-01T10:00:31", "2024-03-01T10:00:31", "2024-03-01T10:00:31", "2024-03-01T11:00:29", "00:59:58", "", "COMPLETED", "0:0", "8", "8", "2", "2", "4000Mc", "", "cpu=8,mem=32000M,node=2", "", "", "3.5M", "01:59:00"},
	{"1000_3", "1002", "sweep", "bob", "5002", "chem", "601", "proj2", "gpu", "high", "100", "2024-03-01T10:01:00", "2024-03-01T10:05:00", "2024-03-01T10:10:00", "2024-03-01T10:20:00", "00:10:00", "1-00:00:00", "CANCELLED by 5002", "0:15", "2", "2", "1", "1", "2Gn", "billing=2,cpu=2,gres/gpu=1,mem=2G,node=1", "billing=2,cpu=2,gres/gpu=1,mem=2G,node=1", "", "a100", "", ""},
	{"1000_[4-9%2]", "1000", "sweep", "bob", "5002", "chem", "601", "proj2", "gpu", "high", "100", "2024-03-01T10:01:00", "2024-03-01T10:05:00", "Unknown", "Unknown", "00:00:00", "1-00:00:00", "PENDING", "0:0", "2", "2", "1", "1", "2Gn", "billing=2,cpu=2,gres/gpu=1,mem=2G,node=1", "", "", "a100", "", ""},
	{"1004", "1004", "sim", "alice", "5001", "phys", "600", "proj1", "batch", "normal", "4000", "2024-03-01T10:02:00", "2024-03-01T10:02:00", "None", "2024-03-01T10:30:00", "00:00:00", "UNLIMITED", "CANCELLED by 5001", "0:0", "16", "16", "1", "1", "64G", "billing=16,cpu=16,mem=64G,node=1", "", "", "", "", ""},
	{"1005", "1005", "long", "carol", "5003", "phys", "600", "proj1", "batch", "normal", "3000", "2024-03-01T10:03:00", "2024-03-01T10:03:00", "2024-03-01T10:03:00", "2024-03-01T10:33:00", "00:30:00", "00:30:00", "TIMEOUT", "0:0", "1", "1", "1", "1", "1000M", "", "", "", "", "", ""},
	{"1006+0", "1006", "het", "alice", "5001", "phys", "600", "proj1", "batch", "normal", "4100", "2024-03-01T10:04:00", "2024-03-01T10:04:00", "2024-03-01T10:06:00", "2024-03-01T10:16:00", "00:10:00", "00:20:00", "COMPLETED", "0:0", "4", "4", "1", "1", "1000Mc", "billing=4,cpu=4,mem=4000M,node=1", "", "", "", "", ""},
	{"1006+0.batch", "1006.batch", "batch", "", "", "", "", "proj1", "", "", "", "2024-03-01T10:06:00", "2024-03-01T10:06:00", "2024-03-01T10:06:00", "2024-03-01T10:16:00", "00:10:00", "", "COMPLETED", "0:0", "4", "4", "1", "1", "1000Mc", "", "", "", "", "512K", ""},
	{"1006+1", "1007", "het", "alice", "5001", "phys", "600", "proj1", "batch", "normal", "4100", "2024-03-01T10:04:00", "2024-03-01T10:04:00", "2024-03-01T10:06:00", "2024-03-01T10:18:00", "00:12:00", "00:30:00", "FAILED", "1:0", "2", "2", "1", "1", "1000Mc", "billing=2,cpu=2,mem=2000M,node=1", "", "", "", "", ""},
	{"1008", "1008", "flaky", "dave", "5004", "bio", "602", "proj3", "batch", "normal", "50", "2024-03-01T10:05:00", "2024-03-01T10:05:00", "2024-03-01T10:05:10", "2024-03-01T10:07:10", "00:02:00", "01:00:00", "REQUEUED", "0:0", "4", "4", "1", "1", "", "billing=4,cpu=4,node=1", "", "", "", "", ""},
	{"1008", "1008", "flaky", "dave", "5004", "bio", "602", "proj3", "batch", "normal", "50", "2024-03-01T10:07:20", "2024-03-01T10:07:20", "2024-03-01T10:08:00", "2024-03-01T10:38:00", "00:30:00", "01:00:00", "COMPLETED", "0:0", "4", "4", "1", "1", "", "billing=4,cpu=4,node=1", "", "", "", "", ""},
	{"1009", "1009", "now", "erin", "5005", "bio", "602", "proj3", "debug", "normal", "10", "2024-03-01T10:09:00", "2024-03-01T10:09:00", "2024-03-01T10:09:30", "Unknown", "00:20:00", "00:40:00", "RUNNING", "0:0", "1", "1", "1", "1", "", "billing=1,cpu=1,node=1", "", "", "", "", ""},
}

// sacctWant is what the reader must make of a job: the fields it sets.
type sacctWant struct {
	ID                   int64
	Submit               Time
	Wait, Run            float64
	Alloc, Req           int
	ReqTime, MemKB       float64
	Status               int
	User, Group, Exe     int
	Queue, Partition     int
	Nodes, MemPerNodeKB  int64
	Priority             int64
	Hold                 Time
	UsedMemKB, AvgCPUSec float64
}

func sacctGot(j *Job) sacctWant {
	return sacctWant{j.ID, j.Submit, j.RawWait, j.RawRun, j.AllocProcs, j.ReqProcs, j.ReqTime, j.ReqMemKB,
		j.Status, j.User, j.Group, j.Executable, j.Queue, j.Partition, j.ReqNodes, j.MemPerNodeKB,
		j.Priority, j.HoldUntil, j.UsedMemKB, j.AvgCPUSec}
}

// sacctFixtureJobs are the fixture's jobs read raw (Raw), in submission
// order. Times count from 10:00:00, the first submission.
var sacctFixtureJobs = []sacctWant{
	// The job; its steps give its used memory (3.5M, the larger MaxRSS),
	// TotalCPU / NCPUS its CPU time. Memory: ReqTRES mem is the total.
	{1001, 0, 30, 3600, 8, 8, 7200, 32000 * 1024 / 8, 1, 5001, 600, 1, 1, 1, 2, 32000 * 1024 / 2, 4294, 0, 3.5 * 1024, 7200.0 / 8},
	// The array task: JobIDRaw is its number; eligible 4 minutes after
	// its submission.
	{1002, 60, 540, 600, 2, 2, 86400, 1024 * 1024, 5, 5002, 601, 2, 2, 2, 1, 2 * 1024 * 1024, 100, 300, -1, -1},
	// The tasks that never started: not finished when sacct ran.
	{1000, 60, -1, -1, -1, 2, 86400, 1024 * 1024, -1, 5002, 601, 2, 2, 2, 1, 2 * 1024 * 1024, 100, 300, -1, -1},
	// Cancelled before it started: no run time, no allocation.
	{1004, 120, -1, -1, -1, 16, -1, 4 * 1024 * 1024, 5, 5001, 600, 1, 1, 1, 1, 64 * 1024 * 1024, 4000, 0, -1, -1},
	// ReqMem without a suffix: per node.
	{1005, 180, 0, 1800, 1, 1, 1800, 1000 * 1024, 0, 5003, 600, 3, 1, 1, 1, 1000 * 1024, 3000, 0, -1, -1},
	// The heterogeneous job: 4 + 2 processors, 2 nodes, 6000M; its
	// longest run and limit; the failed component fails it.
	{1006, 240, 120, 720, 6, 6, 1800, 6000 * 1024 / 6, 0, 5001, 600, 4, 1, 1, 2, 3000 * 1024, 4100, 0, 512, -1},
	// The requeued job: its first run is a partial record.
	{1008, 300, 10, 120, 4, 4, 3600, -1, 2, 5004, 602, 5, 1, 1, 1, 0, 50, 0, -1, -1},
	{1008, 440, 40, 1800, 4, 4, 3600, -1, 1, 5004, 602, 5, 1, 1, 1, 0, 50, 0, -1, -1},
	// Still running: no run time yet.
	{1009, 540, 30, -1, 1, 1, 2400, -1, -1, 5005, 602, 6, 1, 3, 1, 0, 10, 0, -1, -1},
}

// readText reads every job of text with NewReader; it stops at the first
// error.
func readText(t *testing.T, text, name string, rules Rules, opts ...Option) ([]Job, Reader, error) {
	t.Helper()
	r, err := NewReader(strings.NewReader(text), name, rules, opts...)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var jobs []Job
	for {
		var j Job
		err := r.Next(&j)
		if err == io.EOF {
			return jobs, r, nil
		}
		if err != nil {
			return jobs, r, err
		}
		jobs = append(jobs, j)
	}
}

// TestSacctForms reads the fixture as sacct prints it with --parsable2,
// with --parsable, its columns reversed, with CRLF line ends and gzip
// compressed: every form gives the same jobs, detected from the content.
func TestSacctForms(t *testing.T) {
	reversed := make([]int, len(sacctFixture[0]))
	for i := range reversed {
		reversed[i] = len(reversed) - 1 - i
	}
	tests := []struct {
		name string
		text string
	}{
		{"parsable2", sacctFixture.text(false, nil, "\n")},
		{"parsable", sacctFixture.text(true, nil, "\n")},
		{"reversed columns", sacctFixture.text(false, reversed, "\n")},
		{"crlf", sacctFixture.text(true, nil, "\r\n")},
		{"gzip", string(gz(t, []byte(sacctFixture.text(false, nil, "\n"))))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jobs, r, err := readText(t, tc.text, "jobs.txt", Rules{}, Raw())
			if err != nil {
				t.Fatal(err)
			}
			var got []sacctWant
			for i := range jobs {
				got = append(got, sacctGot(&jobs[i]))
			}
			if !reflect.DeepEqual(got, sacctFixtureJobs) {
				for i := range max(len(got), len(sacctFixtureJobs)) {
					var g, w sacctWant
					if i < len(got) {
						g = got[i]
					}
					if i < len(sacctFixtureJobs) {
						w = sacctFixtureJobs[i]
					}
					if g != w {
						t.Errorf("job %d:\n got %+v\nwant %+v", i, g, w)
					}
				}
			}
			h := r.Header()
			for key, want := range map[string]string{"UnixStartTime": "1709287200", "TimeZoneString": "UTC", "MaxQueues": "2", "MaxPartitions": "3"} {
				if got := h.Get(key); got != want {
					t.Errorf("header %s = %q, want %q", key, got, want)
				}
			}
			if got := headerNumbers(h, "Partition"); !reflect.DeepEqual(got, map[string]int64{"batch": 1, "gpu": 2, "debug": 3}) {
				t.Errorf("partitions in the header: %v", got)
			}
			if got := headerNumbers(h, "Queue"); !reflect.DeepEqual(got, map[string]int64{"normal": 1, "high": 2}) {
				t.Errorf("queues (QOS) in the header: %v", got)
			}
		})
	}
}

// TestSacctRules reads the fixture with the default rules: unfinished
// jobs dropped, the job cancelled before it started dropped for its run
// time, steps and components counted.
func TestSacctRules(t *testing.T) {
	jobs, r, err := readText(t, sacctFixture.text(false, nil, "\n"), "x.sacct", Rules{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, j := range jobs {
		ids = append(ids, j.ID)
	}
	if want := []int64{1001, 1002, 1005, 1006, 1008, 1008}; !reflect.DeepEqual(ids, want) {
		t.Errorf("kept jobs %v, want %v", ids, want)
	}
	want := CleanStats{Records: 9, Kept: 6, DroppedRun: 1, DroppedUnfinished: 2, StepsFolded: 3, HetFolded: 1}
	if st := r.Stats(); st != want {
		t.Errorf("stats\n got %+v\nwant %+v", st, want)
	}
	// The requeued job's two runs share its number: the first is a
	// partial record, so the duplicate rule lets both through.
	if jobs[4].Status != 2 || jobs[5].Status != 1 {
		t.Errorf("requeued job's statuses %d, %d; want 2, 1", jobs[4].Status, jobs[5].Status)
	}
	// The job whose run reached its limit is not killed before it: run =
	// estimate.
	if j := jobs[2]; j.Run != 1800 || j.Estimate != 1800 || j.Killed() {
		t.Errorf("timeout job: run %d, estimate %d", j.Run, j.Estimate)
	}
}

// TestSacctWithoutRaw reads sacct output without JobIDRaw: array tasks
// are numbered after the largest job number, in file order, and the
// tasks that never started keep the array's.
func TestSacctWithoutRaw(t *testing.T) {
	text := "JobID|Submit|Start|End|Elapsed|NCPUS|State\n" +
		"77_2|2024-01-01T00:00:10|2024-01-01T00:00:20|2024-01-01T00:01:20|00:01:00|1|COMPLETED\n" +
		"77_0|2024-01-01T00:00:10|2024-01-01T00:00:15|2024-01-01T00:01:15|00:01:00|1|COMPLETED\n" +
		"90|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:30|00:00:30|2|COMPLETED\n" +
		"77_[3-5]|2024-01-01T00:00:10|Unknown|Unknown|00:00:00|1|CANCELLED by 0\n" +
		"91+0|2024-01-01T00:00:20|2024-01-01T00:00:25|2024-01-01T00:00:35|00:00:10|1|COMPLETED\n" +
		"91+1|2024-01-01T00:00:20|2024-01-01T00:00:25|2024-01-01T00:00:35|00:00:10|3|COMPLETED\n"
	jobs, _, err := readText(t, text, "t", Rules{}, Raw())
	if err != nil {
		t.Fatal(err)
	}
	type idSubmit struct {
		id     int64
		submit Time
		procs  int
	}
	var got []idSubmit
	for _, j := range jobs {
		got = append(got, idSubmit{j.ID, j.Submit, j.Procs})
	}
	want := []idSubmit{{90, 0, 2}, {92, 10, 1}, {93, 10, 1}, {77, 10, -1}, {91, 20, 4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("jobs %v, want %v", got, want)
	}
}

// TestSacctStates maps each Slurm state to its SWF status, or to a job
// dropped as unfinished.
func TestSacctStates(t *testing.T) {
	tests := []struct {
		state      string
		status     int
		unfinished bool
	}{
		{"COMPLETED", 1, false}, {"CD", 1, false},
		{"CANCELLED by 1234", 5, false}, {"CANCELLED", 5, false}, {"CA", 5, false}, {"CANCELLED+", 5, false},
		{"FAILED", 0, false}, {"TIMEOUT", 0, false}, {"NODE_FAIL", 0, false}, {"OUT_OF_MEMORY", 0, false},
		{"OOM", 0, false}, {"BOOT_FAIL", 0, false}, {"DEADLINE", 0, false}, {"PREEMPTED", 0, false},
		{"REQUEUED", 2, false}, {"RQ", 2, false},
		{"PENDING", -1, true}, {"RUNNING", -1, true}, {"SUSPENDED", -1, true}, {"REVOKED", -1, true},
		{"REQUEUE_HOLD", -1, true}, {"completed", 1, false},
		{"SOME_NEW_STATE", -1, false},
	}
	for _, tc := range tests {
		t.Run(tc.state, func(t *testing.T) {
			text := "JobID|Submit|Start|Elapsed|NCPUS|State\n7|2024-01-01T00:00:00|2024-01-01T00:00:05|00:01:00|4|" + tc.state + "\n"
			jobs, r, err := readText(t, text, "t", Rules{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.unfinished {
				if len(jobs) != 0 || r.Stats().DroppedUnfinished != 1 {
					t.Errorf("kept %d jobs, %d dropped as unfinished; want it dropped", len(jobs), r.Stats().DroppedUnfinished)
				}
				return
			}
			if len(jobs) != 1 || jobs[0].Status != tc.status {
				t.Fatalf("jobs %+v, want one of status %d", jobs, tc.status)
			}
		})
	}
}

// TestSacctMemory derives the memory per processor (SWF field 10, KB)
// from ReqTRES's total, else ReqMem per CPU (c) or per node (n, or no
// suffix).
func TestSacctMemory(t *testing.T) {
	tests := []struct {
		name            string
		reqMem, reqTRES string
		cpus, nodes     string
		want            float64
	}{
		{"per cpu", "2000Mc", "", "8", "2", 2000 * 1024},
		{"per node", "16Gn", "", "8", "2", 16 * 1024 * 1024 * 2 / 8},
		{"no suffix is per node", "16G", "", "8", "2", 16 * 1024 * 1024 * 2 / 8},
		{"no unit is MB", "1024c", "", "4", "1", 1024 * 1024},
		{"KB", "512Kc", "", "4", "1", 512},
		{"TRES total wins", "1Gn", "cpu=8,mem=64G,node=2", "8", "2", 64 * 1024 * 1024 / 8},
		{"unknown", "", "", "8", "2", -1},
		{"per node, nodes unknown", "4G", "", "8", "", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := "JobID|Submit|Start|Elapsed|ReqCPUS|ReqNodes|ReqMem|ReqTRES\n" +
				"1|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|" + tc.cpus + "|" + tc.nodes + "|" + tc.reqMem + "|" + tc.reqTRES + "\n"
			jobs, _, err := readText(t, text, "t", Rules{})
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != 1 || jobs[0].ReqMemKB != tc.want {
				t.Errorf("memory per processor %v KB, want %v", jobs[0].ReqMemKB, tc.want)
			}
		})
	}
}

// TestSacctTimeZone checks that the wall-clock times are read in the
// zone WithTimeZone gives: across the start of summer time in Paris,
// 01:30 to 03:30 is one hour; in UTC two; an explicit offset keeps its
// own.
func TestSacctTimeZone(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skipf("skipping: no time zone database here (%v)", err)
	}
	text := "JobID|Submit|Start|Elapsed|NCPUS\n" +
		"1|2024-03-31T01:30:00|2024-03-31T01:30:00|00:01:00|1\n" +
		"2|2024-03-31T03:30:00|2024-03-31T03:30:00|00:01:00|1\n" +
		"3|2024-03-31T02:30:00Z|2024-03-31T02:30:00Z|00:01:00|1\n" +
		"4|1711852200|1711852200|00:01:00|1\n"
	tests := []struct {
		name    string
		opts    []Option
		submits []Time
		start   string
	}{
		{"UTC", nil, []Time{0, 3600, 3600, 7200}, "Sun Mar 31 01:30:00 UTC 2024"},
		{"Paris", []Option{WithTimeZone(paris)}, []Time{0, 3600, 7200, 7200}, "Sun Mar 31 01:30:00 CET 2024"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jobs, r, err := readText(t, text, "t", Rules{}, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			var got []Time
			for _, j := range jobs {
				got = append(got, j.Submit)
			}
			// Jobs 3 and 4 are at 02:30 UTC: in UTC one hour after job 1
			// (01:30), before job 2 (03:30); in Paris two hours after job
			// 1 (00:30 UTC), after job 2 (01:30 UTC).
			if !reflect.DeepEqual(got, tc.submits) {
				t.Errorf("submit times %v, want %v", got, tc.submits)
			}
			if s := r.Header().Get("StartTime"); s != tc.start {
				t.Errorf("StartTime %q, want %q", s, tc.start)
			}
		})
	}
}

// TestSacctErrors checks that bad sacct output is a *ParseError naming
// the line and the column.
func TestSacctErrors(t *testing.T) {
	const head = "JobID|JobIDRaw|Submit|Start|Elapsed|Timelimit|NCPUS|State|ReqMem\n"
	const good = "1|1|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|00:10:00|4|COMPLETED|1Gn\n"
	tests := []struct {
		name   string
		text   string
		line   int64
		column string
		msg    string
	}{
		{"no job id", "Submit|Elapsed|NCPUS\n2024-01-01T00:00:00|00:01:00|1\n", 1, "", "JobID or JobIDRaw"},
		{"no submit", "JobID|Elapsed|NCPUS\n1|00:01:00|1\n", 1, "", "Submit"},
		{"no run time", "JobID|Submit|Start|NCPUS\n1|2024-01-01T00:00:00|2024-01-01T00:00:00|1\n", 1, "", "Elapsed"},
		{"no processors", "JobID|Submit|Elapsed\n1|2024-01-01T00:00:00|00:01:00\n", 1, "", "NCPUS"},
		{"column twice", "JobID|Submit|Elapsed|NCPUS|Submit\n", 1, "Submit", "twice"},
		{"field count", head + good + "2|2|2024-01-01T00:00:00\n", 3, "", "3 fields"},
		{"job id", head + good + "x1|2|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|00:10:00|4|COMPLETED|1Gn\n", 3, "JobID", "not a job number"},
		{"raw id", head + "3_1|3_1|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|00:10:00|4|COMPLETED|1Gn\n", 2, "JobIDRaw", "not a job number"},
		{"submit", head + "1|1|yesterday|2024-01-01T00:00:00|00:01:00|00:10:00|4|COMPLETED|1Gn\n", 2, "Submit", "not a time"},
		{"elapsed", head + "1|1|2024-01-01T00:00:00|2024-01-01T00:00:00|1:2:3:4|00:10:00|4|COMPLETED|1Gn\n", 2, "Elapsed", "not a duration"},
		{"time limit", head + "1|1|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|forever|4|COMPLETED|1Gn\n", 2, "Timelimit", "time limit"},
		{"cpus", head + "1|1|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|00:10:00|-4|COMPLETED|1Gn\n", 2, "NCPUS", "not a count"},
		{"state", head + "1|1|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|00:10:00|4|C0MPLETED!|1Gn\n", 2, "State", "not a Slurm job state"},
		{"memory", head + "1|1|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|00:10:00|4|COMPLETED|4Xc\n", 2, "ReqMem", "memory size"},
		{"duplicate number", head + good + "2|1|2024-01-01T00:01:00|2024-01-01T00:01:00|00:01:00|00:10:00|4|COMPLETED|1Gn\n", 3, "JobID", "already used"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readText(t, tc.text, "bad.sacct", Rules{}, WithFormat(FormatSacct))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want a *ParseError", err)
			}
			if pe.Path != "bad.sacct" || pe.Line != tc.line || pe.Column != tc.column || !strings.Contains(pe.Error(), tc.msg) {
				t.Errorf("error %q (line %d, column %q), want line %d, column %q, mentioning %q", pe.Error(), pe.Line, pe.Column, tc.line, tc.column, tc.msg)
			}
		})
	}
}

// TestSlurmDuration checks Slurm's duration forms.
func TestSlurmDuration(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"05:30", 330, true},
		{"01:00:00", 3600, true},
		{"100:00:00", 360000, true},
		{"1-00:00:00", 86400, true},
		{"2-03", 2*86400 + 3*3600, true},
		{"2-03:04", 2*86400 + 3*3600 + 4*60, true},
		{"45", 2700, true},
		{"00:01.500", 1.5, true},
		{"1-02:03:04.25", 86400 + 7384.25, true},
		{"", 0, false},
		{"1:2:3:4", 0, false},
		{"a", 0, false},
		{"1-", 0, false},
		{"-5", 0, false},
		{"1.5:00", 0, false},
		{"1:-2", 0, false},
		{"99999999999999999999:00", 0, false},
	}
	for _, tc := range tests {
		got, ok := parseSlurmDuration(tc.in)
		if ok != tc.ok || (ok && math.Abs(got-tc.want) > 1e-9) {
			t.Errorf("parseSlurmDuration(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// sacctFuzzSeeds are sacct texts, valid and not, for the fuzz corpus.
var sacctFuzzSeeds = []string{
	sacctFixture.text(false, nil, "\n"),
	sacctFixture.text(true, nil, "\r\n"),
	"JobID|Submit|Elapsed|NCPUS\n1|2024-01-01T00:00:00|00:01:00|1\n",
	"JobIDRaw|Submit|Start|End|ReqTRES\n5|1700000000|1700000010|1700000070|cpu=2,mem=1G,node=1\n5.batch|1700000010|1700000010|1700000070|\n",
	"JobID|Submit|Elapsed|NCPUS|State\n3+0|2024-01-01T00:00:00|1-00:00:00|1|FAILED\n3+1|2024-01-01T00:00:00|00:01|2|RUNNING\n",
	"JobID|Submit|Elapsed|NCPUS\n1_[1-3]|Unknown|00:01:00|1\n1_1|2024-01-01T00:00:00+02:00|00:01:00|0\n",
}

// FuzzSacctReader feeds arbitrary bytes to the sacct reader, raw and with
// the default rules: it must never panic, must return either a job stream
// in submission order or a *ParseError, and every job it keeps must be
// runnable.
func FuzzSacctReader(f *testing.F) {
	for _, s := range sacctFuzzSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, raw bool) {
		opts := []Option{WithFormat(FormatSacct)}
		if raw {
			opts = append(opts, Raw())
		}
		r, err := NewReader(bytes.NewReader(data), "fuzz.sacct", Rules{Duplicate: DuplicateKeep}, opts...)
		if err != nil {
			checkTextFuzzError(t, err, "fuzz.sacct")
			return
		}
		defer r.Close()
		checkTextFuzzJobs(t, r, raw)
	})
}

// checkTextFuzzError checks that err is a well-formed *ParseError about
// path.
func checkTextFuzzError(t *testing.T, err error, path string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	if pe.Path != path || pe.Err == nil || pe.Line < 0 || pe.Field < 0 || pe.Field > 18 {
		t.Fatalf("malformed ParseError %#v", pe)
	}
	_ = pe.Error()
}

// checkTextFuzzJobs reads r to its end: the jobs must come in submission
// order, each runnable unless read raw, and the counts must add up.
func checkTextFuzzJobs(t *testing.T, r Reader, raw bool) {
	t.Helper()
	var j Job
	last := Time(math.MinInt64)
	var kept int64
	for {
		err := r.Next(&j)
		if err == io.EOF {
			break
		}
		if err != nil {
			checkTextFuzzError(t, err, r.Path())
			return
		}
		kept++
		if j.Submit >= 0 {
			if j.Submit < last {
				t.Fatalf("job %d submitted at %d, after one at %d", j.ID, j.Submit, last)
			}
			last = j.Submit
		}
		if !raw && (j.Procs <= 0 || j.Run < 1 || j.Submit < 0 || (j.Estimate != Unknown && j.Estimate <= 0)) {
			t.Fatalf("kept job is not runnable: %+v", j)
		}
	}
	if st := r.Stats(); st.Kept != kept || st.Kept > st.Records {
		t.Fatalf("stats %+v, %d jobs read", st, kept)
	}
}
