package hpcpack

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// jobXMLDir holds real job XML files of HPC Pack's samples, beside the
// repository.
const jobXMLDir = "../../../shared/hpcpack-jobxml"

// TestParseJobXMLSamples parses HPC Pack's own job files (with their byte
// order marks) and reads the properties a filter looks at.
func TestParseJobXMLSamples(t *testing.T) {
	if _, err := os.Stat(jobXMLDir); err != nil {
		t.Skipf("skipping: %s not found", jobXMLDir)
	}
	tests := []struct {
		file, id, state, unit, license string
		min, max                       int64 // MinNodes/MaxNodes or MinCores/MaxCores
		tasks                          int
	}{
		{"sixfslicenses.xml", "8", "Validating", "Node", "fs_multicore:6", 2, 32, 1},
		{"twentysixfslicenses.xml", "8", "Validating", "Node", "fs_multicore:26", 2, 32, 1},
		{"SixfsandSixfs_fracturereservoirLicenses.xml", "11", "Validating", "Node", "fs_multicore:6,fs_fracturereservoir:6", 2, 32, 1},
		{"growsixfs.xml", "7", "Running", "Core", "fs_multicore:*", 2, 4, 1},
		{"growstarfs_fracturereservoir.xml", "7", "Running", "Core", "fs_fracturereservoir:*", 2, 4, 1},
		{"invalidlicense.xml", "8", "Validating", "Node", "invalidname:6", 2, 32, 1},
		{"nolicense.xml", "3", "Validating", "Core", "", 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(jobXMLDir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			x, err := ParseJobXML(f)
			if err != nil {
				t.Fatal(err)
			}
			get := func(name string) string { v, _ := x.Get(name); return v }
			if get("Id") != tt.id || get("State") != tt.state || get("UnitType") != tt.unit || get("SoftwareLicense") != tt.license {
				t.Errorf("Id %q State %q UnitType %q SoftwareLicense %q", get("Id"), get("State"), get("UnitType"), get("SoftwareLicense"))
			}
			lo, hi := "MinNodes", "MaxNodes"
			if tt.unit == "Core" {
				lo, hi = "MinCores", "MaxCores"
			}
			if a, _ := x.Int(lo); a != tt.min {
				t.Errorf("%s = %d, want %d", lo, a, tt.min)
			}
			if b, _ := x.Int(hi); b != tt.max {
				t.Errorf("%s = %d, want %d", hi, b, tt.max)
			}
			if len(x.Tasks) != tt.tasks {
				t.Errorf("%d tasks, want %d", len(x.Tasks), tt.tasks)
			}
			if _, ok := x.Get("xmlns"); ok {
				t.Error("the namespace declaration is listed as an attribute")
			}
			// The sample license requests parse.
			if _, err := ParseLicenses(tt.license); err != nil {
				t.Error(err)
			}
			if _, err := ParseJobXMLTime(time.Time{}, get("SubmitTime")); err != nil {
				t.Error(err)
			}
		})
	}
}

// The job XML schedsim writes parses back to the same properties, and a
// changed file applies exactly its changes.
func TestJobXMLRoundTrip(t *testing.T) {
	epoch := time.Date(2010, 2, 4, 0, 0, 0, 0, time.UTC)
	j := workload.Job{ID: 42, Submit: 3600, Procs: 16, Estimate: 7200, User: 7, Executable: 3,
		Licenses: `fluent:4,matlab:1`, Template: "BigJob", Priority: 1000, HoldUntil: 5400}
	buf := AppendJobXML(nil, &j, JobXMLStatus{State: XMLQueued}, epoch)
	x, err := ParseJobXML(bytes.NewReader(buf))
	if err != nil {
		t.Fatalf("%v\n%s", err, buf)
	}
	want := map[string]string{
		"Id": "42", "State": "Queued", "UnitType": "Core", "Owner": "user7", "JobTemplate": "BigJob",
		"Priority": "AboveNormal", "ExpandedPriority": "3000", "SoftwareLicense": "fluent:4,matlab:1",
		"RuntimeSeconds": "7200", "MinCores": "16", "MaxCores": "16", "IsExclusive": "false",
		"SubmitTime": "2/4/2010 1:00:00 AM", "HoldUntil": "2/4/2010 1:30:00 AM",
	}
	for k, w := range want {
		if g, _ := x.Get(k); g != w {
			t.Errorf("%s = %q, want %q", k, g, w)
		}
	}
	// Unchanged: nothing applies.
	k := j
	if applied, err := ApplyJobXML(&k, x, x, epoch); err != nil || len(applied) != 0 || k != j {
		t.Errorf("applying an unchanged file: %v %v, job %+v", applied, err, k)
	}
	// A filter's edits.
	changed := &JobXML{Attrs: append(x.Attrs[:0:0], x.Attrs...)}
	set := func(name, value string) {
		for i := range changed.Attrs {
			if changed.Attrs[i].Name.Local == name {
				changed.Attrs[i].Value = value
				return
			}
		}
		t.Fatalf("no attribute %s", name)
	}
	set("JobTemplate", "SmallJob")
	set("Priority", "Highest")
	set("RuntimeSeconds", "60")
	set("MaxCores", "32")
	set("HoldUntil", "2/4/2010 2:00:00 AM")
	applied, err := ApplyJobXML(&k, x, changed, epoch)
	if err != nil {
		t.Fatal(err)
	}
	if k.Template != "SmallJob" || k.Priority != 2000 || k.Estimate != 60 || k.Procs != 32 || k.MinProcs != 16 || k.HoldUntil != 7200 {
		t.Errorf("applied %v: job %+v", applied, k)
	}
}

func TestParseLicenses(t *testing.T) {
	tests := []struct {
		in   string
		want []LicenseRequest
		bad  bool
	}{
		{"", nil, false},
		{"fluent:4,matlab:1", []LicenseRequest{{"fluent", 4}, {"matlab", 1}}, false},
		{" fs_multicore : * ", []LicenseRequest{{"fs_multicore", PerUnit}}, false},
		{"fluent", nil, true},
		{"fluent:0", nil, true},
		{"fluent:x", nil, true},
		{":3", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseLicenses(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("%q: error %v, want bad=%v", tt.in, err, tt.bad)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("%q: %v, want %v", tt.in, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q: %v, want %v", tt.in, got, tt.want)
			}
		}
	}
}

func FuzzParseJobXML(f *testing.F) {
	f.Add(AppendJobXML(nil, &workload.Job{ID: 1, Procs: 2, Licenses: "a:1"}, JobXMLStatus{State: XMLQueued}, time.Time{}))
	f.Add(AppendJobXML(nil, &workload.Job{ID: 2, Procs: 2, MinProcs: 2, MaxProcs: 8, Licenses: "a:*"}, JobXMLStatus{State: XMLRunning, Start: 60}, time.Time{}))
	f.Add([]byte("\ufeff<?xml version=\"1.0\"?><Job Id=\"1\"><Tasks><Task Id=\"2\"/></Tasks></Job>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := ParseJobXML(bytes.NewReader(data))
		if err != nil {
			return
		}
		var j workload.Job
		ApplyJobXML(&j, &JobXML{}, x, time.Time{}) //nolint:errcheck // must not panic
	})
}
