package hpcpack

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/workload"
)

var update = flag.Bool("update", false, "rewrite the golden job files in testdata/jobxml")

// xmlTag matches a start or empty element with its attributes.
var xmlTag = regexp.MustCompile(`<([A-Za-z]+)(?:\s[^>]*?)?(\s?/?)>`)

// skeleton is a job file with its elements' attributes dropped: the byte
// order mark, the declaration, the elements and the white space between
// them.
func skeleton(b []byte) string {
	decl := []byte(`<?xml version="1.0" encoding="utf-8"?>`)
	k := bytes.Index(b, decl)
	if k < 0 {
		return string(b)
	}
	return string(b[:k+len(decl)]) + xmlTag.ReplaceAllString(string(b[k+len(decl):]), "<$1$2>")
}

// elementAttrs returns the local attribute names of each start element of
// a job file, in document order, without the namespace declaration.
func elementAttrs(t *testing.T, b []byte) [][]string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	var out [][]string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			names := []string{se.Name.Local}
			for _, a := range se.Attr {
				if a.Name.Local != "xmlns" && a.Name.Space != "xmlns" {
					names = append(names, a.Name.Local)
				}
			}
			out = append(out, names)
		}
	}
}

// TestJobXMLShape compares the job files schedsim writes with HPC Pack's
// own (../shared/hpcpack-jobxml): for each real file, the job it describes
// is written in the same state (Validating, or Running for a growth), and
// the two must have the same byte order mark, declaration, elements and
// white space between them, the real file's Job and Task attributes in the
// real order (a real file's MinNodes/MaxNodes are MinCores/MaxCores in
// schedsim, whose unit is the core), and the real values of the properties
// schedsim writes at their defaults and of those it takes from the job.
// schedsim's only other attributes are the listed ones: properties HPC
// Pack writes when set (RuntimeSeconds, HoldUntil) and, in a file at
// submission, those the real Validating files leave out but its Running
// files carry.
func TestJobXMLShape(t *testing.T) {
	if _, err := os.Stat(jobXMLDir); err != nil {
		t.Skipf("skipping: the real job files are not here (%s: %v)", jobXMLDir, err)
	}
	extra := []string{"IsExclusive", "RunUntilCanceled", "Priority", "ExpandedPriority", "AutoCalculateMax", "AutoCalculateMin", "FailOnTaskFailure", "RuntimeSeconds", "HoldUntil"}
	// Values that must be the real file's, by attribute, on the Job.
	same := []string{"Version", "Id", "State", "SubmitTime", "StartTime", "IsExclusive", "RunUntilCanceled", "Project", "JobType", "JobTemplate", "Priority",
		"SoftwareLicense", "ErrorMessage", "ErrorCode", "ErrorParams", "OrderBy", "RequestCancel", "RequeueCount", "AutoRequeueCount",
		"FailureReason", "PendingReason", "AutoCalculateMax", "AutoCalculateMin", "FailOnTaskFailure", "Progress", "ProgressMessage",
		"NotifyOnStart", "NotifyOnCompletion"}
	epoch := time.Date(2010, 2, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		file  string
		state JobXMLState
	}{
		{"sixfslicenses.xml", XMLValidating},
		{"twentysixfslicenses.xml", XMLValidating},
		{"SixfsandSixfs_fracturereservoirLicenses.xml", XMLValidating},
		{"invalidlicense.xml", XMLValidating},
		{"nolicense.xml", XMLValidating},
		{"growsixfs.xml", XMLRunning},
		{"growstarfs_fracturereservoir.xml", XMLRunning},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			real, err := os.ReadFile(filepath.Join(jobXMLDir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			rx, err := ParseJobXML(bytes.NewReader(real))
			if err != nil {
				t.Fatal(err)
			}
			// The job the real file describes.
			get := func(name string) string { v, _ := rx.Get(name); return v }
			at := func(name string) workload.Time {
				v, err := ParseJobXMLTime(epoch, get(name))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return v
			}
			id, _ := rx.Int("Id")
			lo, okLo := rx.Int("MinCores")
			hi, _ := rx.Int("MaxCores")
			if !okLo {
				lo, _ = rx.Int("MinNodes")
				hi, _ = rx.Int("MaxNodes")
			}
			j := workload.Job{ID: id, Submit: at("SubmitTime"), Procs: int(lo), MinProcs: lo, MaxProcs: hi, Licenses: get("SoftwareLicense"), Estimate: workload.Unknown}
			st := JobXMLStatus{State: tt.state}
			if tt.state == XMLRunning {
				st.Start = at("StartTime")
			}
			ours := AppendJobXML(nil, &j, st, epoch)
			if !bytes.HasPrefix(ours, []byte("\ufeff<?xml")) || !bytes.HasPrefix(real, []byte("\ufeff<?xml")) {
				t.Errorf("no UTF-8 byte order mark before the declaration")
			}
			if a, b := skeleton(ours), skeleton(real); a != b {
				t.Errorf("elements and white space differ:\nschedsim: %q\nHPC Pack: %q", a, b)
			}
			unit := strings.NewReplacer("MinNodes", "MinCores", "MaxNodes", "MaxCores")
			oa, ra := elementAttrs(t, ours), elementAttrs(t, real)
			if len(oa) != len(ra) {
				t.Fatalf("%d elements, the real file %d", len(oa), len(ra))
			}
			for e := range ra {
				var want []string
				for _, n := range ra[e] {
					if n != "IsParametric" { // a parametric sweep's task
						want = append(want, unit.Replace(n))
					}
				}
				got := slices.DeleteFunc(slices.Clone(oa[e]), func(n string) bool {
					return slices.Contains(extra, n) && !slices.Contains(want, n)
				})
				if !slices.Equal(got, want) {
					t.Errorf("element %s: attributes\n%v\nwant (besides %v)\n%v", ra[e][0], oa[e], extra, want)
				}
			}
			ox, err := ParseJobXML(bytes.NewReader(ours))
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range same {
				w, okW := rx.Get(name)
				g, okG := ox.Get(name)
				if okW && (g != w || !okG) {
					t.Errorf("Job %s = %q, the real file %q", name, g, w)
				}
			}
			for _, name := range []string{"State", "Version", "RequestCancel", "RequeueCount", "FailureReason", "PendingReason", "ErrorCode", "AutoRequeueCount"} {
				w, _ := get1(rx.Tasks, name)
				if g, _ := get1(ox.Tasks, name); g != w {
					t.Errorf("Task %s = %q, the real file %q", name, g, w)
				}
			}
			if _, ok := get1(ox.Tasks, "StartTime"); ok != (tt.state == XMLRunning) {
				t.Errorf("task StartTime present %v, want %v", ok, tt.state == XMLRunning)
			}
		})
	}
}

// get1 returns attribute name of the first task.
func get1(tasks [][]xml.Attr, name string) (string, bool) {
	if len(tasks) == 0 {
		return "", false
	}
	x := JobXML{Attrs: tasks[0]}
	return x.Get(name)
}

// TestJobXMLGolden keeps the files schedsim writes for a queued job, a job
// at submission and a running job being grown (testdata/jobxml; -update
// rewrites them): a change to the job files a filter program reads shows
// here.
func TestJobXMLGolden(t *testing.T) {
	epoch := time.Date(2010, 2, 4, 0, 0, 0, 0, time.UTC)
	j := workload.Job{ID: 42, Submit: 3600, Procs: 2, MinProcs: 2, MaxProcs: 8, Estimate: 7200, User: 7, Executable: 3,
		Licenses: "fs_multicore:*", Template: "BigJob", Priority: 1000, HoldUntil: 5400}
	tests := []struct {
		name string
		st   JobXMLStatus
	}{
		{"validating", JobXMLStatus{State: XMLValidating}},
		{"queued", JobXMLStatus{State: XMLQueued}},
		{"running", JobXMLStatus{State: XMLRunning, Start: 5405}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AppendJobXML(nil, &j, tt.st, epoch)
			path := filepath.Join("testdata", "jobxml", tt.name+".xml")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("job file differs from %s:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}
