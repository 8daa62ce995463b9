package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Batsim workloads (Batsim's documentation, "Workload"): a JSON object
// with "jobs", an array of jobs — "id" (a string or a number), "subtime"
// (the submission time, seconds, absolute), "res" (resources requested),
// "profile" (a profile's name) and, optionally, "walltime" (seconds after
// the job's start; -1 or absent for none) — "profiles", an object of
// profiles by name, each with a "type" and the fields of its type, and
// "nb_res", how many resources the workload was made for. Other fields
// are ignored.

// FormatBatsim is a Batsim JSON workload (see Open for what is read from
// it, and BatsimWriter).
const FormatBatsim Format = "batsim"

// WithBatsimSpeed gives the computing speed of Batsim's hosts, in
// floating-point operations per second: a parallel_homogeneous profile
// (cpu flops on each host, no communication) then runs cpu/speed seconds.
// Without it, such a profile needs a "runtime" field.
func WithBatsimSpeed(flops float64) Option { return func(c *openConfig) { c.speed = flops } }

// WithTicks reads a Batsim workload's times (subtime, walltime, run
// times) in ticks of 1/ticksPerSec second instead of seconds: Submit,
// Run and Estimate are then whole ticks, rounded to the nearest, and so
// are the Raw* times (a run's time unit; see the README's "Energy"). 1 is
// the default; only Batsim workloads take another.
func WithTicks(ticksPerSec int64) Option { return func(c *openConfig) { c.ticks = ticksPerSec } }

// maxBatsimDepth bounds the nesting of composed profiles.
const maxBatsimDepth = 64

// batsimReader reads a Batsim workload into memory.
type batsimReader struct {
	path     string
	data     []byte
	speed    float64
	ticks    float64 // ticks a second (1: seconds)
	lines    lineCounter
	profiles map[string]*batsimProfile
}

// batsimProfile is one profile: its fields and where it is.
type batsimProfile struct {
	name   string
	line   int64
	fields map[string]json.RawMessage
	// run is its run time once known, when it does not depend on the
	// job's resources (memo); fixed says it does not.
	run   float64
	known bool
	fixed bool
	ret   int64
	busy  bool // being evaluated (a composed profile that contains itself)
}

// lineCounter turns increasing byte offsets of a text into line numbers.
type lineCounter struct {
	data []byte
	off  int
	line int64
}

// at returns the line (1-based) of the first byte at or after off that is
// not a blank or a comma: where a JSON value decoded from off starts.
// Offsets must not decrease from call to call.
func (c *lineCounter) at(off int64) int64 {
	i := int(off)
	for i < len(c.data) && strings.IndexByte(" \t\r\n,:", c.data[i]) >= 0 {
		i++
	}
	if c.line == 0 {
		c.line = 1
	}
	if i > c.off {
		c.line += int64(bytes.Count(c.data[c.off:i], []byte{'\n'}))
		c.off = i
	}
	return c.line
}

// lineOf returns the line of byte offset off, counting from the start.
func lineOf(data []byte, off int64) int64 {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return 1 + int64(bytes.Count(data[:off], []byte{'\n'}))
}

// batsimJob is a job's raw value and line.
type batsimJob struct {
	raw  json.RawMessage
	line int64
}

// newBatsimReader reads the whole of in, a Batsim workload, and returns
// the source of its jobs.
func newBatsimReader(in io.Reader, path string, rules Rules, raw bool, speed float64, ticks int64) (*memSource, error) {
	data, err := io.ReadAll(in)
	if err != nil {
		return nil, &ParseError{Path: path, Err: err}
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	r := &batsimReader{path: path, data: data, speed: speed, ticks: float64(max(ticks, 1)), lines: lineCounter{data: data}, profiles: map[string]*batsimProfile{}}
	jobs, hdr, err := r.parse()
	if err != nil {
		return nil, err
	}
	recs := make([]memRecord, 0, len(jobs))
	for i := range jobs {
		rec, err := r.job(&jobs[i], i)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	src, err := newMemSource(path, hdr, recs, rules, raw, "Batsim jobs", batsimKey, Time(r.ticks))
	if err != nil {
		return nil, err
	}
	src.keys = true
	return src, nil
}

// batsimKey names the job field that holds SWF field f, for errors.
func batsimKey(f int) string {
	switch f {
	case 1:
		return "id"
	case 2:
		return "subtime"
	}
	return ""
}

// syntaxError turns a JSON decoding error into a *ParseError at its line.
func (r *batsimReader) syntaxError(dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("the JSON text ends early")
	}
	return &ParseError{Path: r.path, Line: lineOf(r.data, off), Err: fmt.Errorf("not a Batsim JSON workload: %v", err)}
}

// delim reads the token d (one of "{}[]").
func (r *batsimReader) delim(dec *json.Decoder, d json.Delim, what string) error {
	tok, err := dec.Token()
	if err != nil {
		return r.syntaxError(dec, err)
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return &ParseError{Path: r.path, Line: lineOf(r.data, dec.InputOffset()), Key: what, Err: fmt.Errorf("want %s, not %v", map[json.Delim]string{'{': "an object", '[': "an array"}[d], tok)}
	}
	return nil
}

// parse reads the workload's structure: the jobs' raw values, the
// profiles, and the header (from "nb_res" and, in files BatsimWriter
// wrote, "swf_header").
func (r *batsimReader) parse() ([]batsimJob, Header, error) {
	var hdr Header
	dec := json.NewDecoder(bytes.NewReader(r.data))
	dec.UseNumber()
	if err := r.delim(dec, '{', ""); err != nil {
		return nil, hdr, err
	}
	var jobs []batsimJob
	seen := map[string]bool{}
	nbRes := int64(-1)
	var nbLine int64
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, hdr, r.syntaxError(dec, err)
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, hdr, &ParseError{Path: r.path, Line: lineOf(r.data, dec.InputOffset()), Key: key, Err: errors.New("given twice")}
		}
		seen[key] = true
		switch key {
		case "jobs":
			// The whole array at once (the decoder checks it), then each
			// job's place in it: a decoder call per job costs more than
			// the rest of the reading.
			from := skipJSONBlank(r.data, int(dec.InputOffset()))
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, hdr, r.syntaxError(dec, err)
			}
			if raw[0] != '[' {
				return nil, hdr, &ParseError{Path: r.path, Line: lineOf(r.data, int64(from)), Key: "jobs", Err: fmt.Errorf("want an array, not %s", truncate(raw, 40))}
			}
			for i := skipJSONBlank(raw, 1); i < len(raw) && raw[i] != ']'; {
				end := skipJSONValue(raw, i)
				jobs = append(jobs, batsimJob{raw: raw[i:end], line: r.lines.at(int64(from + i))})
				if i = skipJSONBlank(raw, end); i < len(raw) && raw[i] == ',' {
					i = skipJSONBlank(raw, i+1)
				}
			}
		case "profiles":
			if err := r.delim(dec, '{', "profiles"); err != nil {
				return nil, hdr, err
			}
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return nil, hdr, r.syntaxError(dec, err)
				}
				name, _ := tok.(string)
				line := r.lines.at(dec.InputOffset())
				p := &batsimProfile{name: name, line: line}
				if err := dec.Decode(&p.fields); err != nil {
					return nil, hdr, &ParseError{Path: r.path, Line: line, Key: "profiles." + name, Err: fmt.Errorf("not an object: %v", err)}
				}
				if r.profiles[name] != nil {
					return nil, hdr, &ParseError{Path: r.path, Line: line, Key: "profiles." + name, Err: errors.New("a profile of this name is given twice")}
				}
				r.profiles[name] = p
			}
			if err := r.delim(dec, '}', "profiles"); err != nil {
				return nil, hdr, err
			}
		case "nb_res":
			nbLine = r.lines.at(dec.InputOffset())
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, hdr, r.syntaxError(dec, err)
			}
			v, err := jsonInt(raw)
			if err != nil || v < 1 {
				return nil, hdr, &ParseError{Path: r.path, Line: nbLine, Key: "nb_res", Err: fmt.Errorf("%s is not a number of resources (a positive integer)", truncate(raw, 40))}
			}
			nbRes = v
		case "swf_header":
			line := r.lines.at(dec.InputOffset())
			var lines []string
			if err := dec.Decode(&lines); err != nil {
				return nil, hdr, &ParseError{Path: r.path, Line: line, Key: key, Err: fmt.Errorf("not an array of strings: %v", err)}
			}
			for _, l := range lines {
				if t := strings.TrimSpace(l); strings.HasPrefix(t, ";") && !strings.ContainsAny(t, "\r\n") {
					hdr.addComment(t[1:], r.path, int64(line))
				}
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, hdr, r.syntaxError(dec, err)
			}
		}
	}
	if err := r.delim(dec, '}', ""); err != nil {
		return nil, hdr, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, hdr, &ParseError{Path: r.path, Line: lineOf(r.data, dec.InputOffset()), Err: errors.New("not a Batsim JSON workload: text after the workload's object")}
	}
	if !seen["jobs"] {
		return nil, hdr, &ParseError{Path: r.path, Err: errors.New("not a Batsim JSON workload: no \"jobs\" array")}
	}
	if len(hdr.Comments) == 0 {
		hdr.addComment(" Note: Batsim workload, read by schedsim", r.path, 0)
	}
	if nbRes > 0 && int64(hdr.MaxProcs) != nbRes {
		setMaxProcs(&hdr, nbRes)
	}
	return jobs, hdr, nil
}

// setMaxProcs makes n the header's MaxProcs: Batsim's nb_res says how
// many resources the workload is for.
func setMaxProcs(h *Header, n int64) {
	var keep []string
	for _, c := range h.Comments {
		if k, _, ok := strings.Cut(c, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "MaxProcs") {
			continue
		}
		keep = append(keep, c)
	}
	old := *h
	*h = Header{}
	for _, c := range keep {
		h.addComment(c, "", 0)
	}
	h.addComment(" MaxProcs: "+strconv.FormatInt(n, 10), "", 0)
	if old.MaxNodes > 0 && h.MaxNodes == 0 {
		h.MaxNodes = old.MaxNodes
	}
}

// job reads the i-th job (0-based) into a record.
func (r *batsimReader) job(b *batsimJob, i int) (memRecord, error) {
	rec := memRecord{line: b.line}
	if b.raw[0] != '{' {
		return rec, &ParseError{Path: r.path, Line: b.line, Key: fmt.Sprintf("jobs[%d]", i), Err: errors.New("a job is a JSON object")}
	}
	var idRaw, subRaw, resRaw, wallRaw, profRaw, partRaw json.RawMessage
	jsonFields(b.raw, func(key string, v []byte) {
		switch key {
		case "partition":
			partRaw = v
		case "id":
			idRaw = v
		case "subtime":
			subRaw = v
		case "res":
			resRaw = v
		case "walltime":
			wallRaw = v
		case "profile":
			profRaw = v
		}
	})
	fail := func(key string, format string, args ...any) error {
		return &ParseError{Path: r.path, Line: b.line, Key: fmt.Sprintf("jobs[%d].%s", i, key), Err: fmt.Errorf(format, args...)}
	}
	need := func(key string) (json.RawMessage, error) {
		var v json.RawMessage
		switch key {
		case "id":
			v = idRaw
		case "subtime":
			v = subRaw
		case "res":
			v = resRaw
		case "profile":
			v = profRaw
		}
		if v == nil || string(v) == "null" {
			return nil, fail(key, "missing (a Batsim job has id, subtime, res and profile)")
		}
		return v, nil
	}

	raw, err := need("id")
	if err != nil {
		return rec, err
	}
	id, err := batsimID(raw)
	if err != nil {
		return rec, fail("id", "%v", err)
	}
	if raw, err = need("subtime"); err != nil {
		return rec, err
	}
	submit, err := jsonNumber(raw)
	if err != nil || submit < 0 || submit > maxSWFValue {
		return rec, fail("subtime", "%s is not a submission time (seconds ≥ 0)", truncate(raw, 40))
	}
	if raw, err = need("res"); err != nil {
		return rec, err
	}
	res, err := jsonInt(raw)
	if err != nil || res < 0 || res > maxSWFValue {
		return rec, fail("res", "%s is not a number of resources (an integer ≥ 0)", truncate(raw, 40))
	}
	wall := float64(Unknown)
	if wallRaw != nil && string(wallRaw) != "null" {
		w, err := jsonNumber(wallRaw)
		if err != nil || (w < 0 && w != Unknown) || w > maxSWFValue {
			return rec, fail("walltime", "%s is not a walltime (seconds ≥ 0, or -1 for none)", truncate(wallRaw, 40))
		}
		wall = w
	}
	if raw, err = need("profile"); err != nil {
		return rec, err
	}
	name, ok := jsonString(raw)
	if !ok {
		return rec, fail("profile", "%s is not a profile's name (a string)", truncate(raw, 40))
	}
	p := r.profiles[name]
	if p == nil {
		return rec, fail("profile", "no profile is named %q", name)
	}
	run, err := r.runTime(p, res, 0)
	if err != nil {
		return rec, err
	}
	status := 1
	if p.ret != 0 {
		status = 0
	}
	// An extra field of the job, which Batsim passes on to the scheduler:
	// the partition (SWF field 16) a Slurm model routes it to.
	part := int64(Unknown)
	if partRaw != nil && string(partRaw) != "null" {
		if part, err = jsonInt(partRaw); err != nil || (part < 1 && part != Unknown) {
			return rec, fail("partition", "%s is not a partition number (an integer ≥ 1, or -1 for none)", truncate(partRaw, 40))
		}
	}
	if r.ticks != 1 {
		submit, run = submit*r.ticks, run*r.ticks
		if wall != Unknown {
			wall *= r.ticks
		}
		if max(submit, run, wall) > maxSWFValue {
			return rec, fail("subtime", "times past %d ticks of the time unit", int64(maxSWFValue))
		}
	}
	rec.submit = submit
	rec.job = Job{
		ID: id, RawWait: Unknown, RawRun: run, AllocProcs: Unknown, AvgCPUSec: Unknown, UsedMemKB: Unknown,
		ReqProcs: int(res), ReqTime: wall, ReqMemKB: Unknown, Status: status, User: Unknown, Group: Unknown,
		Executable: Unknown, Queue: Unknown, Partition: int(part), PrecedingJob: Unknown, ThinkTime: Unknown,
	}
	return rec, nil
}

// skipJSONBlank returns the index of the first byte of b at or after i
// that is not JSON whitespace, a ':' or — between values — nothing else;
// len(b) at the end.
func skipJSONBlank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n' || b[i] == ':') {
		i++
	}
	return i
}

// skipJSONValue returns the index after the JSON value that starts at
// b[i]. b must be valid JSON from there (the decoder checked it).
func skipJSONValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipJSONString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipJSONString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(b[i])) {
		i++
	}
	return i
}

// skipJSONString returns the index after the JSON string that starts at
// b[i], its opening quote.
func skipJSONString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// jsonString returns the string the JSON value v is, if it is one.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, err == nil
}

// jsonFields calls f with the key and the value of each member of obj, a
// valid JSON object, in order.
func jsonFields(obj []byte, f func(key string, v []byte)) {
	for i := skipJSONBlank(obj, 1); i < len(obj) && obj[i] != '}'; {
		end := skipJSONString(obj, i)
		key, _ := jsonString(obj[i:end])
		i = skipJSONBlank(obj, end)
		end = skipJSONValue(obj, i)
		f(key, obj[i:end])
		if i = skipJSONBlank(obj, end); i < len(obj) && obj[i] == ',' {
			i = skipJSONBlank(obj, i+1)
		}
	}
}

// batsimID reads a job's id: an integer, or a string that holds one.
func batsimID(raw json.RawMessage) (int64, error) {
	text := string(raw)
	if len(raw) > 0 && raw[0] == '"' {
		if err := json.Unmarshal(raw, &text); err != nil {
			return 0, err
		}
		text = strings.TrimSpace(text)
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || v != math.Trunc(v) || v < 0 || v > maxSWFValue {
		return 0, fmt.Errorf("%s is not a job number: schedsim numbers jobs with integers (0, 1, … or \"0\", \"1\", …)", truncate(raw, 40))
	}
	return int64(v), nil
}

// jsonNumber reads a JSON number.
func jsonNumber(raw json.RawMessage) (float64, error) {
	if len(raw) == 0 || !(raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
		return 0, errors.New("not a number")
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, errors.New("not a number")
	}
	return v, nil
}

// jsonInt reads a JSON number that is an integer.
func jsonInt(raw json.RawMessage) (int64, error) {
	v, err := jsonNumber(raw)
	if err != nil || v != math.Trunc(v) || math.Abs(v) > maxSWFValue {
		return 0, errors.New("not an integer")
	}
	return int64(v), nil
}

// number returns the profile's field key, a number, and whether it has it.
func (r *batsimProfile) number(key string) (float64, bool, error) {
	raw, ok := r.fields[key]
	if !ok || string(raw) == "null" {
		return 0, false, nil
	}
	v, err := jsonNumber(raw)
	if err != nil {
		return 0, true, fmt.Errorf("%s is not a number", truncate(raw, 40))
	}
	return v, true, nil
}

// runTime returns how long profile p runs on res resources: delay — its
// delay; parallel_homogeneous — cpu flops on each host at the speed
// WithBatsimSpeed gives (no communication), else its "runtime" field;
// the same spread over the hosts for parallel_homogeneous_total (and
// Batsim 5's DefinedAmountsSpreadUniformly); composed — repeat × the sum
// of its sequence's. Batsim 5's type names (DelayProfile, …) are read
// too.
func (r *batsimReader) runTime(p *batsimProfile, res int64, depth int) (float64, error) {
	if p.known && p.fixed {
		return p.run, nil
	}
	fail := func(key, format string, args ...any) error {
		k := "profiles." + p.name
		if key != "" {
			k += "." + key
		}
		return &ParseError{Path: r.path, Line: p.line, Key: k, Err: fmt.Errorf(format, args...)}
	}
	if p.busy || depth > maxBatsimDepth {
		return 0, fail("", "a composed profile that contains itself, or nests more than %d deep", maxBatsimDepth)
	}
	var typ string
	if err := json.Unmarshal(p.fields["type"], &typ); err != nil || typ == "" {
		return 0, fail("type", "missing, or not a string (a profile has a type: delay, parallel_homogeneous, …)")
	}
	if ret, ok, err := p.number("ret"); err != nil || (ok && ret != math.Trunc(ret)) {
		return 0, fail("ret", "not an integer return code")
	} else {
		p.ret = int64(ret)
	}
	nonNeg := func(key string, v float64) error {
		if v < 0 || v > maxSWFValue {
			return fail(key, "%v is not a number of seconds ≥ 0 that schedsim can run", v)
		}
		return nil
	}
	var run float64
	fixed := true
	switch typ {
	case "delay", "DelayProfile":
		v, ok, err := p.number("delay")
		if err != nil || !ok {
			return 0, fail("delay", "a delay profile needs a delay in seconds")
		}
		if err := nonNeg("delay", v); err != nil {
			return 0, err
		}
		run = v
	case "parallel_homogeneous", "msg_par_hg", "parallel_homogeneous_total", "ParallelTaskHomogeneousProfile":
		cpu, okCPU, err := p.number("cpu")
		if err != nil {
			return 0, fail("cpu", "%v", err)
		}
		com, _, err := p.number("com")
		if err != nil {
			return 0, fail("com", "%v", err)
		}
		spread := typ == "parallel_homogeneous_total"
		if raw, ok := p.fields["generation_strategy"]; ok {
			var s string
			json.Unmarshal(raw, &s)
			spread = s == "DefinedAmountsSpreadUniformly"
		}
		rt, okRT, err := p.number("runtime")
		if err != nil {
			return 0, fail("runtime", "%v", err)
		}
		switch {
		case r.speed > 0 && okCPU && com == 0:
			run = cpu / r.speed
			if spread {
				fixed = false
				run = cpu / float64(max(res, 1)) / r.speed
			}
		case okRT:
			run = rt
		default:
			why := "give the hosts' speed in flops per second (the Batsim speed option)"
			if com != 0 {
				why = "its communication takes a time only Batsim's platform can tell"
			}
			return 0, fail("", "a %s profile's run time depends on the platform: %s, or give the profile a \"runtime\" field in seconds", typ, why)
		}
		if err := nonNeg("cpu", run); err != nil {
			return 0, err
		}
	case "composed", "SequentialCompositionProfile":
		rep := 1.0
		if v, ok, err := p.number("repeat"); err != nil || (ok && (v < 1 || v != math.Trunc(v))) {
			return 0, fail("repeat", "not a positive integer")
		} else if ok {
			rep = v
		}
		var seq []string
		if err := json.Unmarshal(p.fields["seq"], &seq); err != nil || len(seq) == 0 {
			return 0, fail("seq", "a composed profile needs seq, an array of profile names")
		}
		p.busy = true
		for _, name := range seq {
			q := r.profiles[name]
			if q == nil {
				p.busy = false
				return 0, fail("seq", "no profile is named %q", name)
			}
			v, err := r.runTime(q, res, depth+1)
			if err != nil {
				p.busy = false
				return 0, err
			}
			fixed = fixed && q.fixed
			run += v
		}
		p.busy = false
		run *= rep
		if err := nonNeg("repeat", run); err != nil {
			return 0, err
		}
	default:
		return 0, fail("type", "a %q profile has no run time schedsim can know (it reads delay, parallel_homogeneous and composed profiles)", typ)
	}
	p.run, p.known, p.fixed = run, true, fixed
	return run, nil
}

// BatsimWriter writes jobs as a Batsim JSON workload: one job a line, in
// the order written, each with a delay profile of its run time (profiles
// named "delay_" and the run time, shared by the jobs of equal run
// times), then the profiles (by run time), then nb_res — the header's
// machine size, else the largest job. Call Close when done. The header's
// lines are kept in "swf_header", which Batsim ignores and schedsim reads
// back.
//
// A job is written as id (its number), subtime (its submit time), res
// (its processors: Procs, else requested, else allocated), walltime (its
// requested time, when it has one) and profile: RawRun, the run time as
// recorded, fractional or not. Batsim has no place for a record without a
// submit time, processors or run time, nor for a second job of the same
// number (SWF's partial records, status 2–4, share their job's): Write
// skips those and counts them (Skipped). Reading the output back gives
// the same jobs (their other fields unknown, status 1), so "schedsim run"
// gives the same schedule on both forms.
type BatsimWriter struct {
	w        *bufio.Writer
	buf      []byte
	runs     map[uint64]bool
	ids      idSet
	n        int64
	skipped  int64
	maxRes   int64
	machine  int64
	last     Time
	finished bool
}

// NewBatsimWriter returns a writer to w and writes the start of the
// workload, with header h (nil for none).
func NewBatsimWriter(w io.Writer, h *Header) (*BatsimWriter, error) {
	bw := &BatsimWriter{w: bufio.NewWriterSize(w, 64<<10), runs: map[uint64]bool{}, last: math.MinInt64}
	b := []byte("{\n  \"description\": \"written by schedsim\",\n")
	if h != nil {
		bw.machine = int64(h.MachineSize())
		lines := make([]string, 0, len(h.Comments))
		for _, c := range h.Comments {
			lines = append(lines, ";"+c)
		}
		if len(h.Comments) == 0 {
			for _, f := range h.Fields {
				lines = append(lines, "; "+f.Key+": "+f.Value)
			}
		}
		if len(lines) > 0 {
			b = append(b, "  \"swf_header\": [\n"...)
			for i, l := range lines {
				b = append(b, "    "...)
				b = appendJSONString(b, l)
				if i < len(lines)-1 {
					b = append(b, ',')
				}
				b = append(b, '\n')
			}
			b = append(b, "  ],\n"...)
		}
	}
	b = append(b, "  \"jobs\": ["...)
	bw.w.Write(b)
	return bw, nil
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// appendSeconds appends a time in seconds with the fewest digits that read
// back as v.
func appendSeconds(b []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// Write writes one job, or skips it (see BatsimWriter). It returns an
// error for a job written after Close, or submitted before the previous
// one (Batsim's jobs need no order, but a trace's do).
func (bw *BatsimWriter) Write(j *Job) error {
	if bw.finished {
		return errors.New("workload: Batsim writer: Write after Close")
	}
	procs := int64(j.Procs)
	if procs <= 0 {
		procs = int64(j.ReqProcs)
	}
	if procs <= 0 {
		procs = int64(j.AllocProcs)
	}
	if j.Submit < 0 || procs <= 0 || !(j.RawRun >= 0 && j.RawRun <= maxSWFValue) || j.ID < 0 || j.ID > maxSWFValue {
		bw.skipped++
		return nil
	}
	if j.Submit < bw.last {
		return fmt.Errorf("workload: Batsim writer: job %d: submit time %d is earlier than the previous job's %d", j.ID, j.Submit, bw.last)
	}
	if bw.ids.add(j.ID) {
		bw.skipped++
		return nil
	}
	bw.last = j.Submit
	b := bw.buf[:0]
	if bw.n > 0 {
		b = append(b, ',')
	}
	b = append(b, "\n    {\"id\": "...)
	b = strconv.AppendInt(b, j.ID, 10)
	b = append(b, ", \"subtime\": "...)
	b = strconv.AppendInt(b, int64(j.Submit), 10)
	b = append(b, ", \"res\": "...)
	b = strconv.AppendInt(b, procs, 10)
	if j.ReqTime > 0 && j.ReqTime <= maxSWFValue {
		b = append(b, ", \"walltime\": "...)
		b = appendSeconds(b, j.ReqTime)
	}
	b = append(b, ", \"profile\": \"delay_"...)
	b = appendSeconds(b, j.RawRun)
	b = append(b, "\"}"...)
	bw.buf = b
	if _, err := bw.w.Write(b); err != nil {
		return err
	}
	bw.runs[math.Float64bits(j.RawRun+0)] = true
	bw.maxRes = max(bw.maxRes, procs)
	bw.n++
	return nil
}

// Skipped returns how many jobs Write skipped.
func (bw *BatsimWriter) Skipped() int64 { return bw.skipped }

// Close writes the profiles and nb_res, ends the workload and flushes. It
// does not close the underlying writer.
func (bw *BatsimWriter) Close() error {
	if bw.finished {
		return nil
	}
	bw.finished = true
	runs := make([]float64, 0, len(bw.runs))
	for k := range bw.runs {
		runs = append(runs, math.Float64frombits(k))
	}
	sort.Float64s(runs)
	b := bw.buf[:0]
	if bw.n > 0 {
		b = append(b, '\n', ' ', ' ')
	}
	b = append(b, "],\n  \"profiles\": {"...)
	for i, v := range runs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    \"delay_"...)
		b = appendSeconds(b, v)
		b = append(b, "\": {\"type\": \"delay\", \"delay\": "...)
		b = appendSeconds(b, v)
		b = append(b, '}')
	}
	if len(runs) > 0 {
		b = append(b, '\n', ' ', ' ')
	}
	nb := bw.machine
	if nb <= 0 {
		nb = max(bw.maxRes, 1)
	}
	b = append(b, "},\n  \"nb_res\": "...)
	b = strconv.AppendInt(b, nb, 10)
	b = append(b, "\n}\n"...)
	if _, err := bw.w.Write(b); err != nil {
		return err
	}
	return bw.w.Flush()
}
