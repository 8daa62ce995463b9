package workload

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// selectionSWF is a trace for the selection rules: a header that names
// its queues and partitions and says when and where it starts (UTC+1),
// and ten jobs, one a minute, of users 1 to 3, queues 1 and 2,
// partitions 1 and 2.
var selectionSWF = func() string {
	var b strings.Builder
	b.WriteString("; UnixStartTime: 1000000000\n; TimeZone: 3600\n; MaxProcs: 64\n")
	b.WriteString("; MaxQueues: 2\n; Queue:  1  interactive\n; Queue:  2  production\n")
	b.WriteString("; MaxPartitions: 2\n; Partition: 1 DEFAULT\n; Partition: 2 ALL\n")
	for i := 1; i <= 10; i++ {
		b.WriteString(rec(map[int]string{
			1:  itoa(i),
			2:  itoa((i - 1) * 60),
			12: itoa(1 + i%3),
			15: itoa(1 + i%2),
			16: itoa(1 + (i/5)%2),
		}) + "\n")
	}
	return b.String()
}()

func itoa(i int) string { return strconv.Itoa(i) }

// parquetOf writes jobs as Parquet in schedsim's schema.
func parquetOf(t *testing.T, jobs []Job) []byte {
	t.Helper()
	var b bytes.Buffer
	pw, err := NewParquetWriter(&b, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range jobs {
		if err := pw.Write(&jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSelection checks each selection rule on its own and together: the
// jobs kept and the jobs each rule counts.
func TestSelection(t *testing.T) {
	// Job i is submitted at 60(i-1), by user 1+i%3, in queue 1+i%2 and
	// partition 1+(i/5)%2.
	tests := []struct {
		name  string
		rules Rules
		ids   []int64
		stats CleanStats
	}{
		{"none", Rules{}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, CleanStats{}},
		{"from seconds", Rules{From: "120"}, []int64{3, 4, 5, 6, 7, 8, 9, 10}, CleanStats{DroppedBeforeFrom: 2}},
		{"until minutes", Rules{Until: "3m"}, []int64{1, 2, 3}, CleanStats{DroppedAfterUntil: 7}},
		{"window", Rules{From: "60", Until: "240"}, []int64{2, 3, 4}, CleanStats{DroppedBeforeFrom: 1, DroppedAfterUntil: 6}},
		// UnixStartTime 1000000000 is 2001-09-09T01:46:40Z, 02:46:40 at
		// UTC+1 (the header's TimeZone).
		{"date-time in the header's zone", Rules{From: "2001-09-09T02:48:40", Until: "2001-09-09 02:51:40"}, []int64{3, 4, 5}, CleanStats{DroppedBeforeFrom: 2, DroppedAfterUntil: 5}},
		{"date-time in UTC", Rules{From: "2001-09-09T01:48:40Z"}, []int64{3, 4, 5, 6, 7, 8, 9, 10}, CleanStats{DroppedBeforeFrom: 2}},
		{"date-time with offset", Rules{Until: "2001-09-09T03:50:40+02:00"}, []int64{1, 2, 3, 4}, CleanStats{DroppedAfterUntil: 6}},
		{"max jobs", Rules{MaxJobs: 4}, []int64{1, 2, 3, 4}, CleanStats{DroppedMaxJobs: 6}},
		{"users", Rules{Users: []string{"1", "3"}}, []int64{2, 3, 5, 6, 8, 9}, CleanStats{DroppedUser: 4}},
		{"queue by name", Rules{Queues: []string{"production"}}, []int64{1, 3, 5, 7, 9}, CleanStats{DroppedQueue: 5}},
		{"queues by number and name", Rules{Queues: []string{"1", "production"}}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, CleanStats{}},
		{"partition", Rules{Partitions: []string{"ALL"}}, []int64{5, 6, 7, 8, 9}, CleanStats{DroppedPartition: 5}},
		{"together", Rules{From: "60", Users: []string{"2"}, Queues: []string{"1"}, MaxJobs: 1}, []int64{4}, CleanStats{DroppedBeforeFrom: 1, DroppedUser: 6, DroppedQueue: 1, DroppedMaxJobs: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jobs, r, err := readText(t, selectionSWF, "sel.swf", tc.rules)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, j := range jobs {
				ids = append(ids, j.ID)
			}
			if !reflect.DeepEqual(ids, tc.ids) {
				t.Errorf("kept %v, want %v", ids, tc.ids)
			}
			want := tc.stats
			want.Records, want.Kept = 10, int64(len(tc.ids))
			if st := r.Stats(); st != want {
				t.Errorf("stats\n got %+v\nwant %+v", st, want)
			}
		})
	}
}

// TestSelectionErrors checks the rules a trace cannot apply: a bad value
// (Validate), a name the header does not give, a date-time without
// UnixStartTime.
func TestSelectionErrors(t *testing.T) {
	noStart := strings.Replace(selectionSWF, "; UnixStartTime: 1000000000\n", "", 1)
	tests := []struct {
		name  string
		trace string
		rules Rules
		msg   string
	}{
		{"from", selectionSWF, Rules{From: "yesterday"}, "neither seconds"},
		{"empty window", selectionSWF, Rules{From: "2h", Until: "3600"}, "not after"},
		{"empty window in dates", selectionSWF, Rules{From: "2001-09-10", Until: "2001-09-09"}, "not after"},
		{"max jobs", selectionSWF, Rules{MaxJobs: -1}, "negative"},
		{"empty entry", selectionSWF, Rules{Users: []string{" "}}, "empty entry"},
		{"unknown queue", selectionSWF, Rules{Queues: []string{"batch"}}, `"batch" is not a number, and no "Queue:" line of the trace's header names it (it has: 1  interactive, 2  production)`},
		{"user name", selectionSWF, Rules{Users: []string{"alice"}}, `no "User:" line`},
		{"no start time", noStart, Rules{Until: "2001-09-09"}, "no UnixStartTime"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readText(t, tc.trace, "sel.swf", tc.rules)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.msg)
			}
		})
	}
}

// TestParseList splits selection lists.
func TestParseList(t *testing.T) {
	if got := ParseList(" 1, production,,2 "); !reflect.DeepEqual(got, []string{"1", "production", "2"}) {
		t.Errorf("ParseList = %q", got)
	}
	if got := ParseList(""); got != nil {
		t.Errorf("ParseList(\"\") = %q", got)
	}
}

// TestSelectionRaw checks that the selection rules, like the cleaning
// rules, leave raw records alone.
func TestSelectionRaw(t *testing.T) {
	jobs, _, err := readText(t, selectionSWF, "sel.swf", Rules{Until: "1", Users: []string{"9"}}, Raw())
	if err != nil || len(jobs) != 10 {
		t.Fatalf("%d raw records, %v", len(jobs), err)
	}
}

// TestUnknownStatus reads a status SWF does not define (-4, as 3 records
// of an archive log have, and 7) as the status of a job kept, and counts
// it; other negative values are still errors.
func TestUnknownStatus(t *testing.T) {
	text := rec(map[int]string{1: "1", 11: "-4"}) + "\n" + rec(map[int]string{1: "2", 11: "1"}) + "\n" +
		rec(map[int]string{1: "3", 11: "7"}) + "\n" + rec(map[int]string{1: "4", 11: "-1"}) + "\n"
	for _, form := range []string{"swf", "parquet"} {
		t.Run(form, func(t *testing.T) {
			var jobs []Job
			var r Reader
			var err error
			if form == "swf" {
				jobs, r, err = readText(t, text, "s.swf", Rules{})
			} else {
				swf, _, err := readText(t, text, "s.swf", Rules{}, Raw())
				if err != nil {
					t.Fatal(err)
				}
				jobs, r, err = readPQ(t, parquetOf(t, swf), Rules{})
				if err != nil {
					t.Fatal(err)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			var statuses []int
			for _, j := range jobs {
				statuses = append(statuses, j.Status)
			}
			if !reflect.DeepEqual(statuses, []int{-4, 1, 7, -1}) || r.Stats().StatusUnknown != 2 || r.Stats().Kept != 4 {
				t.Errorf("statuses %v, stats %+v", statuses, r.Stats())
			}
		})
	}
	// The status filter selects them like any other status.
	jobs, _, err := readText(t, text, "s.swf", Rules{Statuses: []int{-4}})
	if err != nil || len(jobs) != 1 || jobs[0].ID != 1 {
		t.Errorf("status filter -4: %d jobs, %v", len(jobs), err)
	}
	// Another field below -1 is still an error.
	_, _, err = readText(t, rec(map[int]string{4: "-4"})+"\n", "s.swf", Rules{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Field != 4 || pe.Line != 1 {
		t.Errorf("run time -4: %v", err)
	}
}

// TestExtraFields reads lines with more than 18 fields: an error naming
// the rule by default, the first 18 fields (counted) with
// ExtraFieldsIgnore, whatever the extra fields hold.
func TestExtraFields(t *testing.T) {
	text := rec(map[int]string{1: "1"}) + " 7 8.5\n" + rec(map[int]string{1: "2"}) + "\n" + rec(map[int]string{1: "3"}) + "\tqueue=fast\n"
	_, _, err := readText(t, text, "x.swf", Rules{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 1 || !strings.Contains(err.Error(), "--extra-fields ignore") {
		t.Errorf("default rule: %v", err)
	}
	for _, raw := range []bool{false, true} {
		var opts []Option
		if raw {
			opts = append(opts, Raw())
		}
		jobs, r, err := readText(t, text, "x.swf", Rules{ExtraFields: ExtraFieldsIgnore}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := readText(t, rec(map[int]string{1: "1"})+"\n"+rec(map[int]string{1: "2"})+"\n"+rec(map[int]string{1: "3"})+"\n", "x.swf", Rules{}, opts...)
		if !reflect.DeepEqual(jobs, want) {
			t.Errorf("raw %v: jobs %+v, want %+v", raw, jobs, want)
		}
		if c := r.Stats().ExtraFields; !raw && c != 2 {
			t.Errorf("counted %d lines with extra fields, want 2", c)
		}
	}
	// Fewer than 18 fields are an error under either rule.
	if _, _, err := readText(t, "1 2 3\n", "x.swf", Rules{ExtraFields: ExtraFieldsIgnore}); err == nil {
		t.Error("a line of 3 fields was read")
	}
	if err := (Rules{ExtraFields: "maybe"}).Validate(); err == nil {
		t.Error("Validate accepted extra-fields \"maybe\"")
	}
}

// TestMaxJobsCountsKeptOnly: what the rules mend is counted for the jobs
// kept, not for the records MaxJobs drops after them (a warning that 10,000
// of 2,500 jobs had no requested time said so).
func TestMaxJobsCountsKeptOnly(t *testing.T) {
	// Jobs 1-4 give no requested time (field 9); 5 and 6 run past theirs;
	// every other field is valid.
	const trace = `; MaxProcs: 8
1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1
2 1 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1
3 2 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1
4 3 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1
5 4 0 20 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1
6 5 0 20 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1
`
	for _, tc := range []struct {
		max                int64
		noEstimate, extend int64
	}{{0, 4, 2}, {2, 2, 0}, {5, 4, 1}} {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			_, r, err := readText(t, trace, "max.swf", Rules{MaxJobs: tc.max})
			if err != nil {
				t.Fatal(err)
			}
			st := r.Stats()
			kept := int64(6)
			if tc.max > 0 {
				kept = tc.max
			}
			if st.Kept != kept || st.NoEstimate != tc.noEstimate || st.OverrunExtended+st.Overrun != tc.extend || st.DroppedMaxJobs != 6-kept {
				t.Errorf("kept %d, no estimate %d, overruns %d, dropped for MaxJobs %d; want %d, %d, %d, %d",
					st.Kept, st.NoEstimate, st.OverrunExtended+st.Overrun, st.DroppedMaxJobs, kept, tc.noEstimate, tc.extend, 6-kept)
			}
		})
	}
}
