package hpcpack

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// JobXMLNamespace is the namespace of HPC Pack's job XML (the schema of
// Windows HPC Server 2008 R2, which later versions keep).
const JobXMLNamespace = "http://schemas.microsoft.com/HPCS2008R2/scheduler/"

// JobXMLTimeLayout is how HPC Pack's job XML writes instants
// ("2/4/2010 10:00:39 PM"); ParseJobXMLTime also reads RFC 3339.
const JobXMLTimeLayout = "1/2/2006 3:04:05 PM"

// HPC Pack's named priorities and their expanded (numeric) values.
var priorityNames = []struct {
	name     string
	expanded int64
}{{"Lowest", 0}, {"BelowNormal", 1000}, {"Normal", 2000}, {"AboveNormal", 3000}, {"Highest", 4000}}

// NormalPriority is the expanded priority of HPC Pack's "Normal", which a
// workload.Job's Priority 0 stands for: ExpandedPriority = 2000 + Priority.
const NormalPriority = 2000

// JobXML is a job as HPC Pack's job XML describes it: the Job element's
// attributes in document order, and its tasks' attributes. Names are
// local (without namespace).
type JobXML struct {
	Attrs []xml.Attr
	Tasks [][]xml.Attr
}

// Get returns the value of attribute name and whether it is present.
func (x *JobXML) Get(name string) (string, bool) {
	for _, a := range x.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// Int returns attribute name as an integer; ok is false when it is absent,
// empty or not an integer.
func (x *JobXML) Int(name string) (int64, bool) {
	s, ok := x.Get(name)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil
}

// ParseJobXML reads a job XML document: its Job element (in HPC Pack's
// namespace or none) and the Task elements under its Tasks. A UTF-8 byte
// order mark is allowed, as in the files HPC Pack writes.
func ParseJobXML(r io.Reader) (*JobXML, error) {
	d := xml.NewDecoder(r)
	x := &JobXML{}
	depth := 0
	inTasks := false
	found := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("job XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 1:
				if t.Name.Local != "Job" {
					return nil, fmt.Errorf("job XML: root element is %s, want Job", t.Name.Local)
				}
				found = true
				x.Attrs = localAttrs(t.Attr)
			case depth == 2 && t.Name.Local == "Tasks":
				inTasks = true
			case depth == 3 && inTasks && t.Name.Local == "Task":
				x.Tasks = append(x.Tasks, localAttrs(t.Attr))
			}
		case xml.EndElement:
			if depth == 2 {
				inTasks = false
			}
			depth--
		}
	}
	if !found {
		return nil, fmt.Errorf("job XML: no Job element")
	}
	return x, nil
}

// localAttrs returns attrs without the namespace declarations, with local names.
func localAttrs(attrs []xml.Attr) []xml.Attr {
	out := make([]xml.Attr, 0, len(attrs))
	for _, a := range attrs {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			continue
		}
		out = append(out, xml.Attr{Name: xml.Name{Local: a.Name.Local}, Value: a.Value})
	}
	return out
}

// FormatJobXMLTime formats simulated instant t (seconds since epoch) as HPC
// Pack's job XML does.
func FormatJobXMLTime(epoch time.Time, t workload.Time) string {
	return FormatJobXMLTimeIn(epoch, t, 1)
}

// FormatJobXMLTimeIn formats simulated instant t, in ticks of 1/tick second
// since epoch, as HPC Pack's job XML does: to the second, rounded down.
func FormatJobXMLTimeIn(epoch time.Time, t, tick workload.Time) string {
	tick = max(tick, 1)
	return epoch.Add(time.Duration(t/tick) * time.Second).UTC().Format(JobXMLTimeLayout)
}

// ParseJobXMLTime parses an instant of job XML (JobXMLTimeLayout, or RFC
// 3339) into simulated seconds since epoch, rounded down.
func ParseJobXMLTime(epoch time.Time, s string) (workload.Time, error) {
	return ParseJobXMLTimeIn(epoch, s, 1)
}

// ParseJobXMLTimeIn parses an instant of job XML (JobXMLTimeLayout, or RFC
// 3339, which may have a fraction of a second) into simulated ticks of
// 1/tick second since epoch, rounded down.
func ParseJobXMLTimeIn(epoch time.Time, s string, tick workload.Time) (workload.Time, error) {
	tick = max(tick, 1)
	s = strings.TrimSpace(s)
	t, err := time.ParseInLocation(JobXMLTimeLayout, s, time.UTC)
	if err != nil {
		var err2 error
		if t, err2 = time.Parse(time.RFC3339, s); err2 != nil {
			return 0, fmt.Errorf("time %q: want %q or RFC 3339", s, JobXMLTimeLayout)
		}
	}
	d := t.Sub(epoch)
	if tick == 1 {
		return workload.Time(d / time.Second), nil
	}
	// Whole seconds and the rest apart, so that no product overflows.
	sec, rest := d/time.Second, d%time.Second
	return workload.Time(sec)*tick + workload.Time(int64(rest)*int64(tick)/int64(time.Second)), nil
}

// ExpandedPriority is the HPC Pack expanded priority of a job's Priority:
// NormalPriority + Priority, within HPC Pack's 0–4000.
func ExpandedPriority(p int64) int64 { return min(max(NormalPriority+p, 0), 4000) }

// priorityName returns the named priority an expanded priority falls in.
func priorityName(expanded int64) string {
	name := priorityNames[0].name
	for _, p := range priorityNames {
		if expanded >= p.expanded {
			name = p.name
		}
	}
	return name
}

// JobXMLState is the State a job XML gives the job.
type JobXMLState string

// States schedsim writes.
const (
	XMLValidating JobXMLState = "Validating" // at submission
	XMLQueued     JobXMLState = "Queued"     // at activation
	XMLRunning    JobXMLState = "Running"    // at activation for growth (Activation.Grow)
)

// JobXMLStatus is what a job file says of the job's progress: its State
// and, for a running job, when it started.
type JobXMLStatus struct {
	State JobXMLState
	// Start is the instant the job started; it is written (the job's and
	// its task's StartTime) only when State is XMLRunning.
	Start workload.Time
	// Tick is the number of ticks in a second of the job's times and
	// Start (0 or 1: they are seconds). The file says seconds, as HPC
	// Pack's do: instants rounded down to the second (the format has no
	// fraction of one), RuntimeSeconds rounded up to a whole second.
	Tick workload.Time
}

// byteOrderMark is the UTF-8 byte order mark HPC Pack writes at the start
// of every job file.
const byteOrderMark = "\ufeff"

// AppendJobXML appends j as HPC Pack job XML to dst, shaped as the files
// HPC Pack hands its filters (Microsoft's samples of the FlexLM activation
// filter): a UTF-8 byte order mark, the XML declaration, a Job element in
// JobXMLNamespace with the job's properties as attributes in HPC Pack's
// order, an empty Dependencies and one Task. The job carries Version, Id,
// State, SubmitTime and CreateTime, StartTime when it runs, IsExclusive,
// RunUntilCanceled, UnitType Core, Owner and UserName "userN" from the SWF
// user, Project, JobType, JobTemplate, Priority and ExpandedPriority,
// SoftwareLicense when it asks for licenses, RuntimeSeconds when it has a
// requested time, HoldUntil when set, the error, requeue, failure and
// pending-reason properties at their values for a job that has neither
// failed nor been requeued, MinCores and MaxCores, and the notification
// flags. Its task has State Submitted, or Running with the job's
// StartTime. A running job's file is written without line breaks, as HPC
// Pack writes it; the others are indented. Instants count from epoch.
func AppendJobXML(dst []byte, j *workload.Job, st JobXMLStatus, epoch time.Time) []byte {
	attr := func(name, value string) {
		dst = append(dst, ' ')
		dst = append(dst, name...)
		dst = append(dst, `="`...)
		dst = appendEscaped(dst, value)
		dst = append(dst, '"')
	}
	num := func(name string, v int64) { attr(name, strconv.FormatInt(v, 10)) }
	running := st.State == XMLRunning
	nl := func(indent string) {
		if !running {
			dst = append(dst, '\n')
			dst = append(dst, indent...)
		}
	}
	id := strconv.FormatInt(j.ID, 10)
	user := "user" + strconv.Itoa(j.User)
	tick := max(st.Tick, 1)
	submit := FormatJobXMLTimeIn(epoch, j.Submit, tick)
	start := FormatJobXMLTimeIn(epoch, st.Start, tick)
	minC, maxC := xmlCores(j)
	tmpl := j.Template
	if tmpl == "" {
		tmpl = DefaultTemplate
	}
	dst = append(dst, byteOrderMark+`<?xml version="1.0" encoding="utf-8"?>`...)
	nl("")
	dst = append(dst, "<Job"...)
	attr("Version", "3.000")
	attr("Id", id)
	attr("State", string(st.State))
	attr("SubmitTime", submit)
	attr("CreateTime", submit)
	if running {
		attr("StartTime", start)
	}
	attr("IsExclusive", "false")
	attr("RunUntilCanceled", "false")
	attr("UnitType", "Core")
	attr("Owner", user)
	attr("UserName", user)
	attr("Project", "")
	attr("JobType", "Batch")
	attr("JobTemplate", tmpl)
	ep := ExpandedPriority(j.Priority)
	attr("Priority", priorityName(ep))
	num("ExpandedPriority", ep)
	if j.Licenses != "" {
		attr("SoftwareLicense", j.Licenses)
	}
	if j.Estimate > 0 {
		num("RuntimeSeconds", int64((j.Estimate+tick-1)/tick))
	}
	if j.HoldUntil > 0 {
		attr("HoldUntil", FormatJobXMLTimeIn(epoch, j.HoldUntil, tick))
	}
	errorAttrs := func() {
		attr("ErrorMessage", "")
		attr("ErrorCode", "0")
		attr("ErrorParams", "")
	}
	errorAttrs()
	attr("OrderBy", "")
	attr("RequestCancel", "None")
	attr("RequeueCount", "0")
	attr("AutoRequeueCount", "0")
	attr("FailureReason", "None")
	attr("PendingReason", "None")
	attr("AutoCalculateMax", "false")
	attr("AutoCalculateMin", "false")
	attr("FailOnTaskFailure", "false")
	attr("Progress", "0")
	attr("ProgressMessage", "")
	num("MinCores", minC)
	num("MaxCores", maxC)
	attr("NotifyOnStart", "false")
	attr("NotifyOnCompletion", "false")
	attr("xmlns", JobXMLNamespace)
	dst = append(dst, '>')
	nl("    ")
	dst = append(dst, "<Dependencies />"...)
	nl("    ")
	dst = append(dst, "<Tasks>"...)
	nl("        ")
	dst = append(dst, "<Task"...)
	attr("Version", "3.000")
	attr("Id", id)
	attr("ParentJobId", id)
	taskState := "Submitted"
	if running {
		taskState = "Running"
	}
	attr("State", taskState)
	attr("UnitType", "Core")
	attr("NiceId", "1")
	attr("CommandLine", "app"+strconv.Itoa(j.Executable))
	attr("RequestCancel", "None")
	attr("RequeueCount", "0")
	attr("FailureReason", "None")
	attr("PendingReason", "None")
	attr("StartValue", "0")
	attr("EndValue", "0")
	attr("IncrementValue", "1")
	attr("GroupId", id)
	attr("SubmitTime", submit)
	if running {
		attr("StartTime", start)
	}
	attr("CreateTime", submit)
	errorAttrs()
	num("MinCores", minC)
	num("MaxCores", maxC)
	attr("AutoRequeueCount", "0")
	attr("Type", "Basic")
	dst = append(dst, " />"...)
	nl("    ")
	dst = append(dst, "</Tasks>"...)
	nl("")
	return append(dst, "</Job>"...)
}

// xmlCores returns the MinCores and MaxCores of j.
func xmlCores(j *workload.Job) (int64, int64) {
	minC, maxC := j.MinProcs, j.MaxProcs
	if minC <= 0 {
		minC = int64(j.Procs)
	}
	if maxC <= 0 {
		maxC = int64(j.Procs)
	}
	return minC, maxC
}

// appendEscaped appends s escaped for an XML attribute value.
func appendEscaped(dst []byte, s string) []byte {
	var b bytes.Buffer
	if strings.ContainsAny(s, "<>&'\"\t\n\r") {
		xml.EscapeText(&b, []byte(s)) //nolint:errcheck // a bytes.Buffer does not fail
		return append(dst, b.Bytes()...)
	}
	return append(dst, s...)
}

// ApplyJobXML sets on j the properties a filter changed: those whose value
// in changed differs from the one in orig (the file as written). It reads
// JobTemplate, Priority and ExpandedPriority, SoftwareLicense,
// RuntimeSeconds (removed: no requested time), HoldUntil, and
// MinCores/MaxCores (the job then runs on MaxCores processors); other
// changes are ignored, as HPC Pack ignores changes to task properties. It
// returns the names of the properties it applied.
func ApplyJobXML(j *workload.Job, orig, changed *JobXML, epoch time.Time) ([]string, error) {
	return ApplyJobXMLIn(j, orig, changed, epoch, 1)
}

// ApplyJobXMLIn is ApplyJobXML for a job whose times are in ticks of
// 1/tick second: a changed RuntimeSeconds (seconds) and HoldUntil (an
// instant) are turned into ticks.
func ApplyJobXMLIn(j *workload.Job, orig, changed *JobXML, epoch time.Time, tick workload.Time) ([]string, error) {
	tick = max(tick, 1)
	var applied []string
	diff := func(name string) (string, bool, bool) {
		a, okA := orig.Get(name)
		b, okB := changed.Get(name)
		return b, okB, a != b || okA != okB
	}
	if v, ok, d := diff("JobTemplate"); d {
		j.Template = v
		if !ok || v == DefaultTemplate {
			j.Template = DefaultTemplate
		}
		applied = append(applied, "JobTemplate")
	}
	if _, _, d := diff("ExpandedPriority"); d {
		n, ok := changed.Int("ExpandedPriority")
		if !ok {
			return applied, fmt.Errorf("ExpandedPriority: not an integer")
		}
		j.Priority = n - NormalPriority
		applied = append(applied, "ExpandedPriority")
	} else if v, _, d := diff("Priority"); d {
		found := false
		for _, p := range priorityNames {
			if strings.EqualFold(p.name, v) {
				j.Priority, found = p.expanded-NormalPriority, true
			}
		}
		if !found {
			return applied, fmt.Errorf("Priority %q: want Lowest, BelowNormal, Normal, AboveNormal or Highest", v)
		}
		applied = append(applied, "Priority")
	}
	if v, _, d := diff("SoftwareLicense"); d {
		j.Licenses = v
		applied = append(applied, "SoftwareLicense")
	}
	if _, ok, d := diff("RuntimeSeconds"); d {
		j.Estimate = workload.Unknown
		if ok {
			n, isInt := changed.Int("RuntimeSeconds")
			if !isInt || n < 0 {
				return applied, fmt.Errorf("RuntimeSeconds: not a number of seconds")
			}
			if n > 0 {
				if tick > 1 && n > int64(workload.MaxTime)/int64(tick) {
					return applied, fmt.Errorf("RuntimeSeconds %d: longer than schedsim's longest time", n)
				}
				j.Estimate = workload.Time(n) * tick
			}
		}
		applied = append(applied, "RuntimeSeconds")
	}
	if v, ok, d := diff("HoldUntil"); d {
		j.HoldUntil = 0
		if ok && strings.TrimSpace(v) != "" {
			t, err := ParseJobXMLTimeIn(epoch, v, tick)
			if err != nil {
				return applied, fmt.Errorf("HoldUntil: %w", err)
			}
			j.HoldUntil = t
		}
		applied = append(applied, "HoldUntil")
	}
	_, _, dMin := diff("MinCores")
	_, _, dMax := diff("MaxCores")
	if dMin || dMax {
		minC, ok1 := changed.Int("MinCores")
		maxC, ok2 := changed.Int("MaxCores")
		if !ok1 || !ok2 || minC <= 0 || maxC < minC {
			return applied, fmt.Errorf("MinCores/MaxCores: want 0 < MinCores ≤ MaxCores")
		}
		j.MinProcs, j.MaxProcs, j.Procs = minC, maxC, int(maxC)
		applied = append(applied, "MinCores/MaxCores")
	}
	return applied, nil
}
