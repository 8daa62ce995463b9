package workload

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// SWFWriter writes jobs as SWF lines, all 18 fields, after a header. It
// buffers its output: call Flush when done. Reading the output back with
// NewSWFReader and the rules the jobs were read with gives the same jobs
// (but for Seq, which counts the records written).
//
// Field 2 is the job's Submit; the other fields are the job's raw values
// (RawRun, AllocProcs, ReqProcs, ReqTime, …), written with the fewest digits
// that read back as the same float64. The cleaned values Procs, Run and
// Estimate are not written: the reader derives them from the raw fields.
type SWFWriter struct {
	w    *bufio.Writer
	buf  []byte
	last Time
}

// NewSWFWriter returns a writer to w and writes the header h (nil for none).
// A header with Comments is written as those comment lines, verbatim (they
// are the whole comment block a reader saw, directives included); one
// without is written from its Fields, one "; Key: Value" line each, followed
// by MaxProcs, MaxNodes and Preemption when they are set but not among the
// Fields. It returns an error for a header line that would not read back: a
// line break in a comment, key or value, a key with blanks or a colon, or a
// value starting with "//" (which reads as a continuation line).
func NewSWFWriter(w io.Writer, h *Header) (*SWFWriter, error) {
	sw := &SWFWriter{w: bufio.NewWriterSize(w, 64<<10), last: math.MinInt64}
	if h == nil {
		return sw, nil
	}
	if len(h.Comments) > 0 {
		for _, c := range h.Comments {
			if strings.Contains(c, "\n") {
				return nil, fmt.Errorf("workload: SWF header comment %q has a line break", c)
			}
			sw.w.WriteString(";")
			sw.w.WriteString(c)
			sw.w.WriteString("\n")
		}
		return sw, nil
	}
	has := func(key string) bool { return h.Get(key) != "" }
	fields := h.Fields
	extra := func(key string, v string) {
		if v != "" && !has(key) {
			fields = append(fields[:len(fields):len(fields)], HeaderField{Key: key, Value: v})
		}
	}
	if h.MaxProcs > 0 {
		extra("MaxProcs", strconv.Itoa(h.MaxProcs))
	}
	if h.MaxNodes > 0 {
		extra("MaxNodes", strconv.Itoa(h.MaxNodes))
	}
	extra("Preemption", h.Preemption)
	for _, f := range fields {
		k, v := strings.TrimSpace(f.Key), strings.TrimSpace(f.Value)
		if k == "" || strings.ContainsAny(k, " \t\r\n:;") || strings.Contains(v, "\n") || strings.HasPrefix(v, "//") {
			return nil, fmt.Errorf("workload: SWF header directive %q: %q would not read back", f.Key, f.Value)
		}
		sw.w.WriteString("; ")
		sw.w.WriteString(k)
		sw.w.WriteString(": ")
		sw.w.WriteString(v)
		sw.w.WriteString("\n")
	}
	return sw, nil
}

// Write writes one job. It returns an error, and writes nothing, for a job
// the reader would reject: a field that is NaN, infinite or beyond ±1e15, or
// a submit time earlier than the previous job's (jobs with a negative submit
// time, which the reader drops, are exempt).
func (sw *SWFWriter) Write(j *Job) error {
	if j.Submit >= 0 && j.Submit < sw.last {
		return fmt.Errorf("workload: SWF writer: job %d: submit time %d is earlier than the previous job's %d", j.ID, j.Submit, sw.last)
	}
	if math.Abs(float64(j.ID)) > maxSWFValue || math.Abs(float64(j.Submit)) > maxSWFValue {
		return fmt.Errorf("workload: SWF writer: job %d: job number or submit time %d is out of range", j.ID, j.Submit)
	}
	b := sw.buf[:0]
	b = strconv.AppendInt(b, j.ID, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(j.Submit), 10)
	for k, v := range [...]float64{
		j.RawWait, j.RawRun, float64(j.AllocProcs), j.AvgCPUSec, j.UsedMemKB, float64(j.ReqProcs),
		j.ReqTime, j.ReqMemKB, float64(j.Status), float64(j.User), float64(j.Group),
		float64(j.Executable), float64(j.Queue), float64(j.Partition), float64(j.PrecedingJob), j.ThinkTime,
	} {
		if !(math.Abs(v) <= maxSWFValue) {
			return fmt.Errorf("workload: SWF writer: job %d: field %d (%s) = %v is out of range", j.ID, k+3, SWFFieldNames[k+2], v)
		}
		b = append(b, ' ')
		if v == math.Trunc(v) && !(v == 0 && math.Signbit(v)) {
			b = strconv.AppendInt(b, int64(v), 10)
		} else {
			b = strconv.AppendFloat(b, v, 'f', -1, 64)
		}
	}
	b = append(b, '\n')
	sw.buf = b
	if _, err := sw.w.Write(b); err != nil {
		return err
	}
	if j.Submit >= 0 {
		sw.last = j.Submit
	}
	return nil
}

// Flush writes any buffered data to the underlying writer.
func (sw *SWFWriter) Flush() error { return sw.w.Flush() }

// WriteSWF writes h and jobs to w as an SWF file (see SWFWriter) and flushes.
func WriteSWF(w io.Writer, h *Header, jobs []Job) error {
	sw, err := NewSWFWriter(w, h)
	if err != nil {
		return err
	}
	for i := range jobs {
		if err := sw.Write(&jobs[i]); err != nil {
			return err
		}
	}
	return sw.Flush()
}
