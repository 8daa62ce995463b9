package schedsim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// contractTOML is the scenario contract of issue 24 that schedsim infer
// writes (without its timezone key, a scenario key): the tables must load
// as they are.
const contractTOML = `
# evidence: a drain every weekday at 07:00
[[reservation]]
name = "morning-drain"
start = "1996-07-01T07:00:00"
duration = "30m"
recur = "weekdays"
until = "1997-05-31T00:00:00"
procs = 128

[[reservation]]
name = "outage"
start = "1d2h"
duration = "2h"
nodes = "n[1-4]"

[[reservation]]
name = "u12"
start = "86400"
duration = "1h"
users = ["u12"]

[[limit]]
users = ["*"]
max_jobs_per_user = 4
max_submit_jobs_per_user = 50
max_cpus_per_user = 256
grp_cpus = 512
max_wall = "48h"

[[limit]]
accounts = ["a1"]
grp_cpus = 64
max_jobs = 3
max_submit_jobs = 20
max_cpus = 32

[[start_window]]
partition = "batch"
days = "Mon-Fri"
hours = "07:00-16:00"
max_wall = "4h"

[[start_window]]
queue = 2
days = "Sat,Sun"
hours = "16:00-07:00"
max_wall = "60h"

[[start_window]]
queue = 1
days = "Mon-Fri"
hours = "19:00-07:00"
max_procs = 64
min_procs = 2
`

// contractHeader is a trace header whose time 0 is 1 July 1996, 00:00 in
// Stockholm (22:00 UTC the day before, summer time) and that names
// partition 2 "batch".
func contractHeader() *workload.Header {
	return &workload.Header{Fields: []workload.HeaderField{
		{Key: "UnixStartTime", Value: "836172000"},
		{Key: "TimeZoneString", Value: "Europe/Stockholm"},
		{Key: "Partition", Value: "2 batch"},
	}}
}

// TestConstraintsContract: the contract's tables load into the engine's
// constraints, date-times on the trace's calendar (daylight saving
// included), names and prefixed numbers resolved.
func TestConstraintsContract(t *testing.T) {
	path := writeFile(t, t.TempDir(), "c.toml", contractTOML)
	c, err := loadRunConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.constraints(contractHeader(), "", 256, 16)
	if err != nil {
		t.Fatal(err)
	}
	r := cs.Reservations
	if len(r) != 3 || len(cs.Limits) != 2 || len(cs.Windows) != 3 {
		t.Fatalf("got %d reservations, %d limits, %d windows", len(r), len(cs.Limits), len(cs.Windows))
	}
	// 07:00 CEST on 1 July 1996 is 7 h after the trace's start; 31 May 1997 00:00 CEST is 334 days after.
	if r[0].Start != 25200 || r[0].Duration != 1800 || r[0].Recur != sim.RecurWeekdays || r[0].Until != 28857600 || r[0].Procs != 128 || !r[0].Maint {
		t.Errorf("morning-drain: %+v", r[0])
	}
	if r[1].Start != 93600 || r[1].Procs != 64 || !r[1].Maint {
		t.Errorf("outage (4 nodes of 16 processors from 1d2h): %+v", r[1])
	}
	if r[2].Maint || !slices.Equal(r[2].Users, []int{12}) {
		t.Errorf("u12: %+v", r[2])
	}
	if l := cs.Limits[0]; !l.AllUsers || l.MaxJobsPerUser != 4 || l.MaxSubmitPerUser != 50 || l.MaxCPUsPerUser != 256 || l.GrpCPUs != 512 || l.MaxWall != 48*3600 {
		t.Errorf("limit 1: %+v", l)
	}
	if l := cs.Limits[1]; !slices.Equal(l.Accounts, []int{1}) || l.GrpCPUs != 64 || l.MaxJobs != 3 || l.MaxSubmitJobs != 20 || l.MaxCPUs != 32 {
		t.Errorf("limit 2: %+v", l)
	}
	if w := cs.Windows[0]; w.Partition != 2 || w.Queue != -1 || w.Days != 0b0111110 || w.From != 7*3600 || w.To != 16*3600 || w.MaxWall != 4*3600 {
		t.Errorf("window 1: %+v", w)
	}
	if w := cs.Windows[2]; w.Queue != 1 || w.MaxProcs != 64 || w.MinProcs != 2 || w.MaxWall != 0 || w.From != 19*3600 || w.To != 7*3600 {
		t.Errorf("window 3: %+v", w)
	}
	if w := cs.Windows[1]; w.Queue != 2 || w.Partition != -1 || w.Days != 0b1000001 || w.From != 16*3600 || w.To != 7*3600 || w.MaxWall != 60*3600 {
		t.Errorf("window 2: %+v", w)
	}
	// --timezone overrides the header's zone: 07:00 at UTC+02:00 is 05:00 UTC, 7 h after 22:00 UTC.
	cs2, err := c.constraints(contractHeader(), "UTC+02:00", 256, 16)
	if err != nil {
		t.Fatal(err)
	}
	if cs2.Reservations[0].Start != 25200 || cs2.Calendar.ZoneName() != "UTC+02:00" {
		t.Errorf("UTC+02:00: start %d zone %s", cs2.Reservations[0].Start, cs2.Calendar.ZoneName())
	}
	cs3, err := c.constraints(contractHeader(), "UTC", 256, 16)
	if err != nil {
		t.Fatal(err)
	}
	if cs3.Reservations[0].Start != 25200+7200 {
		t.Errorf("UTC: 07:00 UTC is 9 h after 22:00 UTC the day before, got %d", cs3.Reservations[0].Start)
	}
}

// TestConstraintsConfigErrors: each mistake is an input error naming the
// file, the table and its number, and the field.
func TestConstraintsConfigErrors(t *testing.T) {
	noEpoch := &workload.Header{}
	tests := []struct {
		name, toml string
		hdr        *workload.Header
		want       string
	}{
		{"no name", "[[reservation]]\nstart = \"0\"\nduration = \"1h\"\n", nil, "[[reservation]] 1 (name \"\"): name: required"},
		{"zero duration", "[[reservation]]\nname = \"x\"\nstart = \"0\"\nduration = \"0\"\n", nil, "duration \"0\""},
		{"bad recur", "[[reservation]]\nname = \"x\"\nstart = \"0\"\nduration = \"1h\"\nrecur = \"hourly\"\n", nil, "recur \"hourly\""},
		{"date without epoch", "[[reservation]]\nname = \"x\"\nstart = \"1996-07-01T07:00:00\"\nduration = \"1h\"\n", noEpoch, "no UnixStartTime"},
		{"bad start", "[[reservation]]\nname = \"x\"\nstart = \"tomorrow\"\nduration = \"1h\"\n", nil, "start: \"tomorrow\""},
		{"twice the name", "[[reservation]]\nname = \"x\"\nstart = \"0\"\nduration = \"1h\"\n[[reservation]]\nname = \"x\"\nstart = \"5\"\nduration = \"1h\"\n", nil, "given twice"},
		{"procs and nodes", "[[reservation]]\nname = \"x\"\nstart = \"0\"\nduration = \"1h\"\nprocs = 4\nnodes = \"n[1-2]\"\n", nil, "procs and nodes"},
		{"bad nodes", "[[reservation]]\nname = \"x\"\nstart = \"0\"\nduration = \"1h\"\nnodes = \"n[2-1]\"\n", nil, "nodes \"n[2-1]\""},
		{"daily longer than a day", "[[reservation]]\nname = \"x\"\nstart = \"0\"\nduration = \"25h\"\nrecur = \"daily\"\n", nil, "at most a day"},
		{"maint false alone", "[[reservation]]\nname = \"x\"\nstart = \"0\"\nduration = \"1h\"\nmaint = false\n", nil, "maint = false"},
		{"bad user", "[[reservation]]\nname = \"x\"\nstart = \"0\"\nduration = \"1h\"\nusers = [\"bob\"]\n", nil, "users: \"bob\""},
		{"unknown partition", "[[reservation]]\nname = \"x\"\nstart = \"0\"\nduration = \"1h\"\npartitions = [\"gpu\"]\n", nil, "partition \"gpu\""},
		{"limit for no one", "[[limit]]\nmax_jobs_per_user = 2\n", nil, "[[limit]] 1: users or accounts: required"},
		{"negative limit", "[[limit]]\nusers = [\"*\"]\nmax_jobs_per_user = -2\n", nil, "max_jobs_per_user -2"},
		{"negative association limit", "[[limit]]\nusers = [\"*\"]\nmax_cpus = -1\n", nil, "[[limit]] 1: max_cpus -1"},
		{"bad max_wall", "[[limit]]\nusers = [\"*\"]\nmax_wall = \"2 days\"\n", nil, "max_wall \"2 days\""},
		{"window without hours", "[[start_window]]\nmax_wall = \"4h\"\n", nil, "[[start_window]] 1: hours: required"},
		{"window bad hours", "[[start_window]]\nhours = \"7-16\"\nmax_wall = \"4h\"\n", nil, "hours \"7-16\""},
		{"window bad days", "[[start_window]]\ndays = \"Mon-Fry\"\nhours = \"07:00-16:00\"\nmax_wall = \"4h\"\n", nil, "days \"Mon-Fry\""},
		{"window without max_wall", "[[start_window]]\nhours = \"07:00-16:00\"\n", nil, "max_wall \"\""},
		{"window negative min_procs", "[[start_window]]\nhours = \"07:00-16:00\"\nmin_procs = -4\n", nil, "min_procs -4"},
		{"window negative max_procs", "[[start_window]]\nhours = \"07:00-16:00\"\nmax_procs = -4\n", nil, "max_procs -4"},
		{"window partition and queue", "[[start_window]]\npartition = \"2\"\nqueue = 1\nhours = \"07:00-16:00\"\nmax_wall = \"4h\"\n", nil, "partition and queue"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "c.toml", tc.toml)
			c, err := loadRunConfig(path)
			if err == nil {
				h := tc.hdr
				if h == nil {
					h = contractHeader()
				}
				_, err = c.constraints(h, "", 64, 1)
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if _, ok := err.(*InputError); !ok {
				t.Errorf("error %T is not an input error", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q: want it to name %s and say %q", err, path, tc.want)
			}
		})
	}
}

// TestRunConstraintsVerify: a run of the sample trace with a daily
// maintenance, a start window and limits writes a result that verify
// finds clean; a job moved into the maintenance in jobs.csv is caught.
func TestRunConstraintsVerify(t *testing.T) {
	dir := t.TempDir()
	scPath := writeFile(t, dir, "sc.toml", `
backfill = "easy"
sched_interval = "30"

[[reservation]]
name = "nightly"
start = "3h"
duration = "1h"
recur = "daily"

[[start_window]]
days = "*"
hours = "09:00-17:00"
max_wall = "1h"

[[limit]]
users = ["*"]
grp_cpus = 100
`)
	sc, err := LoadScenario(scPath, Default())
	if err != nil {
		t.Fatal(err)
	}
	sc.Out = filepath.Join(dir, "out")
	res, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Constraints == nil || !strings.Contains(res.Summary.Policy, "+sched_interval=30") {
		t.Fatalf("summary: constraints %v, policy %s", res.Summary.Constraints, res.Summary.Policy)
	}
	verifyClean(t, sc.Out)
	// Plant: the first job that ran move to 03:10 of its day... of the
	// trace's first day at 3h+10m (inside the nightly maintenance).
	p := filepath.Join(sc.Out, "jobs.csv")
	rows := simtest.ReadCSV(t, p)
	col := simtest.Columns(rows[0])
	planted := false
	for _, r := range rows[1:] {
		sub, _ := strconv.Atoi(r[col["submission_time"]])
		exec, _ := strconv.Atoi(r[col["execution_time"]])
		if r[col["final_state"]] != "COMPLETED_SUCCESSFULLY" || sub > 3*3600 {
			continue
		}
		start := 3*3600 + 600
		r[col["starting_time"]] = strconv.Itoa(start)
		r[col["finish_time"]] = strconv.Itoa(start + exec)
		planted = true
		break
	}
	if !planted {
		t.Fatal("no job to plant")
	}
	simtest.WriteCSV(t, p, rows)
	verifyCatches(t, sc.Out, `reservation: reservation "nightly"`, "the planted job")
}

// FuzzParseSpan: parseSpan never panics and gives a time within
// schedsim's limits.
func FuzzParseSpan(f *testing.F) {
	for _, s := range []string{"90", "30m", "1d2h", "1h30m", "2d", "", "h", "1h1d", "99999999999999999999d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, ok := parseSpan(s); ok && (v < 0 || v > workload.MaxTime) {
			t.Fatalf("parseSpan(%q) = %d", s, v)
		}
	})
}

// FuzzCountNodes: countNodes never panics, and a count it gives is
// positive.
func FuzzCountNodes(f *testing.F) {
	for _, s := range []string{"n[1-4]", "node[01-16],gpu[1,3]", "0-3,8", "n1,n2", "[", "n[1-4", "n[4-1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := countNodes(s); err == nil && n <= 0 {
			t.Fatalf("countNodes(%q) = %d", s, n)
		}
	})
}

// FuzzConstraintTables: any configuration file with these tables loads
// and builds the run's constraints, or fails with an input error; never
// a panic.
func FuzzConstraintTables(f *testing.F) {
	f.Add(contractTOML)
	f.Add("[[reservation]]\nname = \"x\"\nstart = \"0\"\nduration = \"1h\"\nrecur = \"weekly\"\nuntil = \"30d\"\n")
	f.Add("[[start_window]]\ndays = \"Fri-Mon\"\nhours = \"22:00-06:00\"\nmax_wall = \"1h\"\n")
	f.Add("[[priority_tier]]\nqueue = -1\ntier = 3\n[[priority_tier]]\npartition = \"batch\"\ntier = 1\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		path := filepath.Join(dir, "c.toml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := loadRunConfig(path)
		if err != nil {
			return
		}
		if _, err := c.constraints(contractHeader(), "", 64, 4); err != nil {
			if _, ok := err.(*InputError); !ok {
				t.Fatalf("error %T: %v", err, err)
			}
		}
		if tier, err := c.tiers(contractHeader()); err != nil {
			if _, ok := err.(*InputError); !ok {
				t.Fatalf("error %T: %v", err, err)
			}
		} else if tier != nil {
			tier(&workload.Job{Queue: -1, Partition: 2})
		}
	})
}
