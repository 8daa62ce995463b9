package workload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// Slurm accounting input: what "sacct --allusers --parsable2" (or
// --parsable) prints, its header line first, the columns in any order.
// The format and the meaning of each field follow sacct's manual page:
//
//   - Fields are separated by '|'; --parsable also ends each line with one.
//     The header line names the columns (case does not matter); a column
//     the reader does not know is ignored.
//   - JobID is JobID[.JobStep] for a job and its steps, ArrayJobID_TaskID
//     for a task of an array job (ArrayJobID_[5-9] for tasks that never
//     started), HetJobID+Offset for a component of a heterogeneous job.
//     JobIDRaw is the job's own number.
//   - Submit, Eligible, Start and End are wall-clock times,
//     YYYY-MM-DDTHH:MM:SS in the time zone of the host that ran sacct
//     ("Unknown" or "None" when unset); Elapsed and Timelimit are
//     [DD-[HH:]]MM:SS (Timelimit may be UNLIMITED or Partition_limit),
//     ElapsedRaw is seconds and TimelimitRaw minutes.
//   - ReqMem is memory with a unit (K, M, G, T; M when none) and, before
//     Slurm 21.08, a suffix: c per CPU, n per node. ReqTRES and AllocTRES
//     list trackable resources, "billing=4,cpu=4,mem=16G,node=1,gres/gpu=1",
//     mem being the job's total.
//   - State is a job state name (COMPLETED, CANCELLED by 1234, …) or its
//     short code (CD, CA, …).

// FormatSacct is Slurm accounting output, sacct --parsable2 or --parsable
// with its header line (see Open for what is read from it).
const FormatSacct Format = "sacct"

// WithTimeZone reads the wall-clock times of sacct output (Submit,
// Eligible, Start, End), which sacct prints in the time zone of the host
// it ran on, as times in loc instead of UTC. Only differences between
// times reach the simulation, so the zone matters across a change of
// daylight saving time (an hour's difference) and for the header's
// StartTime and for date-times in Rules.From and Until. A time written
// with its offset ("…T12:00:00+02:00", or "Z") keeps it.
func WithTimeZone(loc *time.Location) Option { return func(c *openConfig) { c.tz = loc } }

// sacctCol is a column the sacct reader knows.
type sacctCol int

const (
	scJobID sacctCol = iota
	scJobIDRaw
	scSubmit
	scEligible
	scStart
	scEnd
	scElapsed
	scElapsedRaw
	scTimelimit
	scTimelimitRaw
	scState
	scExitCode
	scNCPUS // NCPUS and AllocCPUS
	scReqCPUS
	scNNodes // NNodes and AllocNodes
	scReqNodes
	scReqMem
	scReqTRES
	scAllocTRES
	scUser
	scUID
	scGroup
	scGID
	scPartition
	scQOS
	scPriority
	scJobName
	scMaxRSS
	scTotalCPU
	numSacctCols
)

// sacctColumns maps a header name, lower case, to its column.
var sacctColumns = map[string]sacctCol{
	"jobid": scJobID, "jobidraw": scJobIDRaw, "submit": scSubmit, "eligible": scEligible,
	"start": scStart, "end": scEnd, "elapsed": scElapsed, "elapsedraw": scElapsedRaw,
	"timelimit": scTimelimit, "timelimitraw": scTimelimitRaw, "state": scState, "exitcode": scExitCode,
	"ncpus": scNCPUS, "alloccpus": scNCPUS, "reqcpus": scReqCPUS, "nnodes": scNNodes, "allocnodes": scNNodes,
	"reqnodes": scReqNodes, "reqmem": scReqMem, "reqtres": scReqTRES, "alloctres": scAllocTRES,
	"user": scUser, "uid": scUID, "group": scGroup, "gid": scGID, "partition": scPartition,
	"qos": scQOS, "priority": scPriority, "jobname": scJobName, "maxrss": scMaxRSS, "totalcpu": scTotalCPU,
}

// isSacctHeader reports whether line is the header line of sacct
// --parsable(2) output: '|'-separated names, one of them JobID or
// JobIDRaw.
func isSacctHeader(line []byte) bool {
	line = bytes.TrimSpace(line)
	if bytes.IndexByte(line, '|') < 0 {
		return false
	}
	for _, f := range bytes.Split(line, []byte{'|'}) {
		f = bytes.TrimSpace(f)
		if bytes.EqualFold(f, []byte("JobID")) || bytes.EqualFold(f, []byte("JobIDRaw")) {
			return true
		}
	}
	return false
}

// sacctID is a parsed JobID.
type sacctID struct {
	base  int64  // the job number before any suffix
	task  string // the array task ("4") or tasks ("[5-9]"), "" for none
	het   int64  // the heterogeneous job component, -1 for none
	step  string // the step ("batch", "0"), "" for a job
	key   string // the job's text, without its step
	steps bool   // whether it is a step
}

// parseSacctID parses a JobID: JobID[.Step], ArrayJobID_Task[.Step],
// ArrayJobID_[range], HetJobID+Offset[.Step].
func parseSacctID(s string) (sacctID, error) {
	id := sacctID{het: -1}
	key, step, isStep := strings.Cut(s, ".")
	id.key, id.step, id.steps = key, step, isStep
	if isStep && step == "" {
		return id, errors.New("a step after '.' is missing")
	}
	num := key
	if b, off, ok := strings.Cut(key, "+"); ok {
		n, err := strconv.ParseInt(off, 10, 64)
		if err != nil || n < 0 {
			return id, fmt.Errorf("%q is not a heterogeneous job's component (HetJobID+Offset)", s)
		}
		num, id.het = b, n
	} else if b, task, ok := strings.Cut(key, "_"); ok {
		num, id.task = b, task
		if strings.HasPrefix(task, "[") {
			if !strings.HasSuffix(task, "]") || len(task) < 3 || strings.Trim(task[1:len(task)-1], "0123456789-,%") != "" {
				return id, fmt.Errorf("%q is not an array job's tasks (ArrayJobID_[5-9])", s)
			}
		} else if _, err := strconv.ParseUint(task, 10, 63); err != nil {
			return id, fmt.Errorf("%q is not an array job's task (ArrayJobID_TaskID)", s)
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > maxSWFValue {
		return id, fmt.Errorf("%q is not a job number", s)
	}
	id.base = n
	return id, nil
}

// sacctJob is one job as the sacct reader gathers it: its own line, the
// components folded into it, its steps.
type sacctJob struct {
	line      int64
	key       string
	id        int64
	needID    bool // an array task without JobIDRaw: numbered after the others
	submit    int64
	start     int64
	eligible  int64
	hasSubmit bool
	hasStart  bool
	hasElig   bool
	elapsed   float64 // -1 unknown
	limit     float64 // -1 unknown
	status    int
	pending   bool // not finished when sacct ran
	alloc     int64
	req       int64
	nodes     int64
	memTotal  float64 // KB, -1 unknown
	memPerCPU float64 // KB, -1 unknown
	user      int64
	group     int64
	queue     int64
	part      int64
	exe       int64
	priority  int64
	maxRSS    float64 // KB, -1 unknown
	totalCPU  float64 // s, -1 unknown
	parts     int     // heterogeneous components folded in
	requeued  bool    // a later record of the same job follows
}

// sacctReader reads sacct output into memory.
type sacctReader struct {
	path    string
	loc     *time.Location
	cols    [numSacctCols]int // index of each known column, -1 when absent
	names   []string          // the header's names, as written
	nfields int               // fields per line, the trailing empty one of --parsable excepted
	line    int64
	fields  []string
	jobs    []*sacctJob
	byKey   map[string]*sacctJob // the latest record of each job (its key)
	numbers [5]idNumbers         // users, groups, queues, partitions, job names
	steps   int64
	het     int64
}

// idNumbers numbers names in order of first appearance, from 1.
type idNumbers struct {
	ids   map[string]int64
	names []string
}

// of returns name's number.
func (n *idNumbers) of(name string) int64 {
	if n.ids == nil {
		n.ids = map[string]int64{}
	}
	id, ok := n.ids[name]
	if !ok {
		n.names = append(n.names, name)
		id = int64(len(n.names))
		n.ids[name] = id
	}
	return id
}

// Indexes of sacctReader.numbers.
const (
	numUser = iota
	numGroup
	numQueue
	numPart
	numExe
)

// newSacctReader reads the whole of in, sacct output, and returns the
// source of its jobs.
func newSacctReader(in io.Reader, path string, rules Rules, raw bool, loc *time.Location) (*memSource, error) {
	if loc == nil {
		loc = time.UTC
	}
	r := &sacctReader{path: path, loc: loc, byKey: map[string]*sacctJob{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxStrictLine)
	for sc.Scan() {
		r.line++
		text := strings.TrimRight(sc.Text(), "\r")
		if r.line == 1 {
			text = strings.TrimPrefix(text, string(utf8BOM))
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		var err error
		if r.names == nil {
			err = r.header(text)
		} else {
			err = r.record(text)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line longer than %d bytes: not sacct output", maxStrictLine)
		}
		return nil, &ParseError{Path: path, Line: r.line + 1, Err: err}
	}
	if r.names == nil {
		return nil, &ParseError{Path: path, Err: fmt.Errorf("%w: the file holds no sacct header line", ErrNoJobs)}
	}
	hdr, recs := r.finish()
	src, err := newMemSource(path, hdr, recs, rules, raw, "sacct records", r.columnOf, 1)
	if err != nil {
		return nil, err
	}
	if !raw {
		src.cl.stats.StepsFolded, src.cl.stats.HetFolded = r.steps, r.het
	}
	return src, nil
}

// header reads the header line.
func (r *sacctReader) header(text string) error {
	for i := range r.cols {
		r.cols[i] = -1
	}
	r.names = strings.Split(text, "|")
	if n := len(r.names); n > 1 && strings.TrimSpace(r.names[n-1]) == "" {
		r.names = r.names[:n-1] // --parsable's trailing '|'
	}
	r.nfields = len(r.names)
	for i, name := range r.names {
		name = strings.TrimSpace(name)
		r.names[i] = name
		c, ok := sacctColumns[strings.ToLower(name)]
		if !ok {
			continue
		}
		if r.cols[c] >= 0 {
			if !strings.EqualFold(r.names[r.cols[c]], name) {
				continue // NCPUS and AllocCPUS both: the first one counts
			}
			return &ParseError{Path: r.path, Line: r.line, Column: name, Err: errors.New("the header line names this column twice")}
		}
		r.cols[c] = i
	}
	missing := func(what string) error {
		return &ParseError{Path: r.path, Line: r.line, Err: fmt.Errorf("sacct output without %s: add it to sacct's --format", what)}
	}
	switch {
	case r.cols[scJobID] < 0 && r.cols[scJobIDRaw] < 0:
		return missing("a JobID or JobIDRaw column")
	case r.cols[scSubmit] < 0:
		return missing("a Submit column")
	case r.cols[scElapsed] < 0 && r.cols[scElapsedRaw] < 0 && (r.cols[scStart] < 0 || r.cols[scEnd] < 0):
		return missing("a run time (an Elapsed or ElapsedRaw column, or Start and End)")
	case r.cols[scNCPUS] < 0 && r.cols[scReqCPUS] < 0 && r.cols[scReqTRES] < 0 && r.cols[scAllocTRES] < 0:
		return missing("a processor count (an NCPUS, AllocCPUS, ReqCPUS, ReqTRES or AllocTRES column)")
	}
	return nil
}

// columnOf names the column that holds SWF field f, for errors.
func (r *sacctReader) columnOf(f int) string {
	var c sacctCol
	switch f {
	case 1:
		c = scJobID
		if r.cols[c] < 0 {
			c = scJobIDRaw
		}
	case 2:
		c = scSubmit
	default:
		return ""
	}
	if i := r.cols[c]; i >= 0 {
		return r.names[i]
	}
	return ""
}

// get returns the value of column c on the current line, "" when the
// header has no such column, and whether it has one.
func (r *sacctReader) get(c sacctCol) (string, bool) {
	i := r.cols[c]
	if i < 0 {
		return "", false
	}
	return strings.TrimSpace(r.fields[i]), true
}

// fail returns the error about column c of the current line.
func (r *sacctReader) fail(c sacctCol, format string, args ...any) error {
	return &ParseError{Path: r.path, Line: r.line, Column: r.names[r.cols[c]], Err: fmt.Errorf(format, args...)}
}

// unset reports whether s is one of sacct's words for no value.
func unset(s string) bool {
	switch s {
	case "", "Unknown", "None", "none", "N/A", "n/a":
		return true
	}
	return false
}

// record reads one data line.
func (r *sacctReader) record(text string) error {
	r.fields = strings.Split(text, "|")
	if n := len(r.fields); n == r.nfields+1 && r.fields[n-1] == "" {
		r.fields = r.fields[:n-1]
	}
	if len(r.fields) != r.nfields {
		return &ParseError{Path: r.path, Line: r.line, Err: fmt.Errorf("%d fields, but the header line names %d columns (a '|' inside a value, such as a job name, cannot be read)", len(r.fields), r.nfields)}
	}
	idc := scJobID
	if r.cols[idc] < 0 {
		idc = scJobIDRaw
	}
	idText, _ := r.get(idc)
	id, err := parseSacctID(idText)
	if err != nil {
		return r.fail(idc, "%v", err)
	}
	if id.steps {
		return r.step(id)
	}
	j, err := r.job(id)
	if err != nil {
		return err
	}
	if id.het > 0 {
		if lead := r.byKey[strconv.FormatInt(id.base, 10)]; lead != nil {
			lead.fold(j)
			r.het++
			return nil
		}
	}
	if prev := r.byKey[j.key]; prev != nil {
		prev.requeued = true // an earlier run of the same job (sacct --duplicates)
	}
	r.byKey[j.key] = j
	r.jobs = append(r.jobs, j)
	return nil
}

// step folds a step's line into its job: the largest MaxRSS of its steps.
func (r *sacctReader) step(id sacctID) error {
	r.steps++
	j := r.byKey[id.key]
	if id.het >= 0 {
		j = r.byKey[strconv.FormatInt(id.base, 10)]
	}
	if s, ok := r.get(scMaxRSS); ok && !unset(s) {
		kb, ok := parseMemKB(s, 'K')
		if !ok {
			return r.fail(scMaxRSS, "%q is not a memory size such as 1024K", s)
		}
		if j != nil && kb > j.maxRSS {
			j.maxRSS = kb
		}
	}
	return nil
}

// fold adds heterogeneous component c to j: their processors, nodes and
// memory add up, the longest run and time limit count, and a failed
// component makes the job failed.
func (j *sacctJob) fold(c *sacctJob) {
	j.parts++
	add := func(a *int64, b int64) {
		if *a < 0 || b < 0 {
			*a = -1
		} else {
			*a += b
		}
	}
	add(&j.alloc, c.alloc)
	add(&j.req, c.req)
	add(&j.nodes, c.nodes)
	if j.memTotal < 0 || c.memTotal < 0 {
		j.memTotal = -1
	} else {
		j.memTotal += c.memTotal
	}
	j.elapsed = math.Max(j.elapsed, c.elapsed)
	j.limit = math.Max(j.limit, c.limit)
	j.maxRSS = math.Max(j.maxRSS, c.maxRSS)
	if j.totalCPU >= 0 && c.totalCPU >= 0 {
		j.totalCPU += c.totalCPU
	}
	if j.status == 1 && c.status != 1 {
		j.status = c.status
	}
	j.pending = j.pending || c.pending
}

// job reads the current line as a job's (or a heterogeneous job
// component's) record.
func (r *sacctReader) job(id sacctID) (*sacctJob, error) {
	j := &sacctJob{line: r.line, key: id.key, id: id.base, elapsed: -1, limit: -1, status: Unknown,
		alloc: -1, req: -1, nodes: -1, memTotal: -1, memPerCPU: -1, user: -1, group: -1, queue: -1,
		part: -1, exe: -1, maxRSS: -1, totalCPU: -1}
	if id.het >= 0 {
		j.key = strconv.FormatInt(id.base, 10)
	}
	if raw, ok := r.get(scJobIDRaw); ok && r.cols[scJobID] >= 0 {
		rid, err := parseSacctID(raw)
		if err != nil || rid.task != "" || rid.het >= 0 {
			return nil, r.fail(scJobIDRaw, "%q is not a job number", raw)
		}
		j.id = rid.base
	} else if id.task != "" && !strings.HasPrefix(id.task, "[") {
		j.needID = true // an array task: its own number is JobIDRaw's
	}

	var err error
	var end int64
	var hasEnd bool
	for _, t := range []struct {
		c   sacctCol
		at  *int64
		has *bool
	}{{scSubmit, &j.submit, &j.hasSubmit}, {scStart, &j.start, &j.hasStart}, {scEligible, &j.eligible, &j.hasElig}, {scEnd, &end, &hasEnd}} {
		s, ok := r.get(t.c)
		if !ok || unset(s) {
			continue
		}
		if *t.at, err = sacctTime(s, r.loc); err != nil {
			return nil, r.fail(t.c, "%v", err)
		}
		*t.has = true
	}

	// State, else ExitCode.
	if s, ok := r.get(scState); ok && !unset(s) {
		st, pending, ok := sacctStatus(s)
		if !ok {
			return nil, r.fail(scState, "%q is not a Slurm job state", s)
		}
		j.status, j.pending = st, pending
	} else if s, ok := r.get(scExitCode); ok && !unset(s) {
		code, sig, ok := strings.Cut(s, ":")
		c, err1 := strconv.Atoi(code)
		g, err2 := strconv.Atoi(sig)
		if !ok || err1 != nil || err2 != nil {
			return nil, r.fail(scExitCode, "%q is not an exit code such as 0:0", s)
		}
		j.status = 0
		if c == 0 && g == 0 {
			j.status = 1
		}
	}

	// Run time: Elapsed, else ElapsedRaw, else End - Start; none for a
	// job that never started, or has not ended.
	if s, ok := r.get(scElapsed); ok && !unset(s) {
		if j.elapsed, ok = parseSlurmDuration(s); !ok {
			return nil, r.fail(scElapsed, "%q is not a duration such as 1-02:03:04", s)
		}
	} else if s, ok := r.get(scElapsedRaw); ok && !unset(s) {
		if j.elapsed, err = sacctCount(s); err != nil {
			return nil, r.fail(scElapsedRaw, "%v", err)
		}
	} else if j.hasStart && hasEnd {
		j.elapsed = float64(end - j.start)
	}
	if j.elapsed < 0 || j.elapsed > maxSWFValue {
		j.elapsed = -1
	}
	if s, ok := r.get(scTimelimit); ok && !unset(s) {
		if j.limit, ok = sacctLimit(s, 1); !ok {
			return nil, r.fail(scTimelimit, "%q is not a time limit such as 1-00:00:00 or UNLIMITED", s)
		}
	} else if s, ok := r.get(scTimelimitRaw); ok && !unset(s) {
		if j.limit, ok = sacctLimit(s, 60); !ok {
			return nil, r.fail(scTimelimitRaw, "%q is not a time limit in minutes", s)
		}
	}
	if s, ok := r.get(scTotalCPU); ok && !unset(s) {
		if j.totalCPU, ok = parseSlurmDuration(s); !ok {
			return nil, r.fail(scTotalCPU, "%q is not a duration such as 01:02:03.456", s)
		}
	}

	// Processors, nodes, memory.
	var reqTRES, allocTRES map[string]string
	if s, ok := r.get(scReqTRES); ok && !unset(s) {
		if reqTRES, err = parseTRES(s); err != nil {
			return nil, r.fail(scReqTRES, "%v", err)
		}
	}
	if s, ok := r.get(scAllocTRES); ok && !unset(s) {
		if allocTRES, err = parseTRES(s); err != nil {
			return nil, r.fail(scAllocTRES, "%v", err)
		}
	}
	count := func(c sacctCol, tres map[string]string, key string, tresCol sacctCol) (int64, error) {
		if s, ok := r.get(c); ok && !unset(s) {
			v, err := sacctCount(s)
			if err != nil {
				return 0, r.fail(c, "%v", err)
			}
			if v > 0 {
				return int64(v), nil
			}
		}
		if s, ok := tres[key]; ok {
			v, err := sacctCount(s)
			if err != nil {
				return 0, r.fail(tresCol, "%s: %v", key, err)
			}
			if v > 0 {
				return int64(v), nil
			}
		}
		return -1, nil
	}
	if j.alloc, err = count(scNCPUS, allocTRES, "cpu", scAllocTRES); err != nil {
		return nil, err
	}
	if j.req, err = count(scReqCPUS, reqTRES, "cpu", scReqTRES); err != nil {
		return nil, err
	}
	if j.nodes, err = count(scReqNodes, reqTRES, "node", scReqTRES); err != nil {
		return nil, err
	}
	if j.nodes < 0 {
		if j.nodes, err = count(scNNodes, allocTRES, "node", scAllocTRES); err != nil {
			return nil, err
		}
	}
	if !j.hasStart {
		j.alloc = -1 // NCPUS of a job that never ran is what it asked for
	}
	cpus := j.req
	if cpus < 0 {
		cpus = j.alloc
	}
	if s, ok := reqTRES["mem"]; ok {
		kb, ok := parseMemKB(s, 'M')
		if !ok {
			return nil, r.fail(scReqTRES, "mem: %q is not a memory size such as 4000M", s)
		}
		j.memTotal = kb
	} else if s, ok := r.get(scReqMem); ok && !unset(s) {
		per := byte('n')
		if n := len(s); n > 0 && (s[n-1] == 'c' || s[n-1] == 'n') {
			per, s = s[n-1], s[:n-1]
		}
		kb, ok := parseMemKB(s, 'M')
		if !ok {
			return nil, r.fail(scReqMem, "%q is not a memory size such as 4000Mc or 4Gn", s)
		}
		switch {
		case per == 'c':
			j.memPerCPU = kb
			if cpus > 0 {
				j.memTotal = kb * float64(cpus)
			}
		case j.nodes > 0:
			j.memTotal = kb * float64(j.nodes)
		}
	}
	if s, ok := r.get(scMaxRSS); ok && !unset(s) {
		kb, ok := parseMemKB(s, 'K')
		if !ok {
			return nil, r.fail(scMaxRSS, "%q is not a memory size such as 1024K", s)
		}
		j.maxRSS = kb
	}

	// Who and where.
	num := func(idc, namec sacctCol, which int) (int64, error) {
		if s, ok := r.get(idc); ok && !unset(s) {
			v, err := sacctCount(s)
			if err != nil {
				return 0, r.fail(idc, "%v", err)
			}
			return int64(v), nil
		}
		if s, ok := r.get(namec); ok && !unset(s) {
			return r.numbers[which].of(s), nil
		}
		return -1, nil
	}
	if j.user, err = num(scUID, scUser, numUser); err != nil {
		return nil, err
	}
	if j.group, err = num(scGID, scGroup, numGroup); err != nil {
		return nil, err
	}
	for _, n := range []struct {
		c     sacctCol
		which int
		to    *int64
	}{{scQOS, numQueue, &j.queue}, {scPartition, numPart, &j.part}, {scJobName, numExe, &j.exe}} {
		if s, ok := r.get(n.c); ok && !unset(s) {
			*n.to = r.numbers[n.which].of(s)
		}
	}
	if s, ok := r.get(scPriority); ok && !unset(s) {
		p, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, r.fail(scPriority, "%q is not an integer", s)
		}
		j.priority = p
	}
	return j, nil
}

// finish numbers the array tasks without a JobIDRaw, marks the earlier
// runs of requeued jobs as partial records, and returns the header and
// the records, times counted from the first submission.
func (r *sacctReader) finish() (Header, []memRecord) {
	var maxID int64 = -1
	origin := int64(math.MaxInt64)
	for _, j := range r.jobs {
		if !j.needID {
			maxID = max(maxID, j.id)
		}
		if j.hasSubmit {
			origin = min(origin, j.submit)
		}
	}
	if origin == math.MaxInt64 {
		origin = 0
	}
	var h Header
	h.addComment(" Note: Slurm accounting records (sacct), read by schedsim", r.path, 0)
	h.addComment(" UnixStartTime: "+strconv.FormatInt(origin, 10), r.path, 0)
	h.addComment(" TimeZoneString: "+r.loc.String(), r.path, 0)
	h.addComment(" StartTime: "+time.Unix(origin, 0).In(r.loc).Format(time.UnixDate), r.path, 0)
	for _, d := range []struct {
		which                   int
		what, plural, max, each string
	}{{numQueue, "Slurm QOS", "Queues", "MaxQueues", "Queue"}, {numPart, "Slurm partitions", "Partitions", "MaxPartitions", "Partition"}} {
		names := r.numbers[d.which].names
		if len(names) == 0 {
			continue
		}
		h.addComment(" "+d.plural+": "+d.what, r.path, 0)
		h.addComment(" "+d.max+": "+strconv.Itoa(len(names)), r.path, 0)
		for i, name := range names {
			h.addComment(" "+d.each+": "+strconv.Itoa(i+1)+" "+name, r.path, 0)
		}
	}

	recs := make([]memRecord, len(r.jobs))
	for i, j := range r.jobs {
		if j.needID {
			maxID++
			j.id = maxID
		}
		rec := &recs[i]
		rec.line, rec.unfinished = j.line, j.pending
		rec.submit = -1
		if j.hasSubmit {
			rec.submit = float64(j.submit - origin)
		}
		status := j.status
		if j.requeued {
			status = 2 // partial: the job ran again later
		}
		cpus := j.req
		if cpus <= 0 {
			cpus = j.alloc
		}
		perCPU := j.memPerCPU
		if (perCPU < 0 || j.parts > 0) && j.memTotal >= 0 && cpus > 0 {
			perCPU = j.memTotal / float64(cpus)
		}
		run, wait := float64(-1), float64(-1)
		if j.hasStart && !j.pending {
			run = j.elapsed
		}
		if j.hasStart && j.hasSubmit {
			wait = float64(max(0, j.start-j.submit))
		}
		avgCPU := float64(-1)
		if j.totalCPU >= 0 && j.alloc > 0 {
			avgCPU = j.totalCPU / float64(j.alloc)
		}
		rec.job = Job{
			ID: j.id, RawWait: wait, RawRun: run, AllocProcs: int(j.alloc), AvgCPUSec: avgCPU,
			UsedMemKB: j.maxRSS, ReqProcs: int(j.req), ReqTime: j.limit, ReqMemKB: perCPU,
			Status: status, User: int(j.user), Group: int(j.group), Executable: int(j.exe),
			Queue: int(j.queue), Partition: int(j.part), PrecedingJob: Unknown, ThinkTime: Unknown,
			Priority: j.priority,
		}
		if j.nodes > 0 {
			rec.job.ReqNodes = j.nodes
			if j.memTotal >= 0 {
				rec.job.MemPerNodeKB = int64(math.Round(j.memTotal / float64(j.nodes)))
			}
		}
		if j.hasElig && j.hasSubmit && j.eligible > j.submit {
			rec.job.HoldUntil = Time(j.eligible - origin)
		}
	}
	return h, recs
}

// sacctStatus maps a Slurm job state (its name or short code, "CANCELLED
// by 1234", a "+" sacct adds when the state is cut) to SWF's status:
// COMPLETED 1; CANCELLED 5 (whether or not the job had started);
// FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE,
// PREEMPTED and SPECIAL_EXIT 0 (it ended without completing); REQUEUED 2
// (a partial run: the job runs again). A job PENDING, RUNNING,
// SUSPENDED, … had not ended when sacct ran (pending true), and a REVOKED
// one ran on another cluster: both have status -1. Any other word is an
// unknown state, -1. ok is false for text that is no state name at all.
func sacctStatus(s string) (status int, pending, ok bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	s, _, _ = strings.Cut(s, " ")
	s = strings.TrimRight(s, "+")
	switch s {
	case "COMPLETED", "CD":
		return 1, false, true
	case "CANCELLED", "CA":
		return 5, false, true
	case "FAILED", "F", "TIMEOUT", "TO", "NODE_FAIL", "NF", "OUT_OF_MEMORY", "OOM",
		"BOOT_FAIL", "BF", "DEADLINE", "DL", "PREEMPTED", "PR", "SPECIAL_EXIT", "SE":
		return 0, false, true
	case "REQUEUED", "RQ", "REQUEUE_FED", "RF":
		return 2, false, true
	case "PENDING", "PD", "RUNNING", "R", "SUSPENDED", "S", "RESIZING", "RS", "CONFIGURING", "CF",
		"COMPLETING", "CG", "STOPPED", "ST", "SIGNALING", "SI", "STAGE_OUT", "SO", "REQUEUE_HOLD", "RH",
		"RESV_DEL_HOLD", "RD", "REVOKED", "RV":
		return Unknown, true, true
	}
	if s == "" || strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != "" {
		return 0, false, false
	}
	return Unknown, false, true
}

// sacctTime parses a wall-clock time of sacct output: YYYY-MM-DDTHH:MM:SS
// in loc (a trailing "Z" or offset overrides it), or Unix seconds (what
// SLURM_TIME_FORMAT=%s prints).
func sacctTime(s string, loc *time.Location) (int64, error) {
	if s != "" && strings.Trim(s, "0123456789") == "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v > maxAbsSeconds {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		return v, nil
	}
	wall, offset, zoned, err := parseDateTime(s)
	if err != nil || len(s) < len("2006-01-02T15:04") {
		return 0, fmt.Errorf("%q is not a time such as 2024-03-01T12:00:00", s)
	}
	if zoned {
		return wall.Unix() - int64(offset), nil
	}
	return time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), 0, loc).Unix(), nil
}

// parseSlurmDuration parses a duration in one of Slurm's forms: minutes,
// minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes,
// days-hours:minutes:seconds (sacct prints [DD-[HH:]]MM:SS); the seconds
// may have a fraction (CPU times). It reports false for anything else.
func parseSlurmDuration(s string) (float64, bool) {
	days := 0.0
	rest := s
	hasDays := false
	if d, r, ok := strings.Cut(s, "-"); ok {
		v, err := strconv.ParseUint(d, 10, 32)
		if err != nil {
			return 0, false
		}
		days, rest, hasDays = float64(v), r, true
	}
	parts := strings.Split(rest, ":")
	if len(parts) > 3 {
		return 0, false
	}
	var v [3]float64
	for i, p := range parts {
		if p == "" || strings.Trim(p, "0123456789.") != "" || strings.Count(p, ".") > 1 || (strings.Contains(p, ".") && i != len(parts)-1) {
			return 0, false
		}
		x, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return 0, false
		}
		v[i] = x
	}
	var sec float64
	switch {
	case hasDays && len(parts) == 1: // days-hours
		sec = v[0] * 3600
	case hasDays && len(parts) == 2: // days-hours:minutes
		sec = v[0]*3600 + v[1]*60
	case len(parts) == 3: // [days-]hours:minutes:seconds
		sec = v[0]*3600 + v[1]*60 + v[2]
	case len(parts) == 2: // minutes:seconds
		sec = v[0]*60 + v[1]
	default: // minutes
		sec = v[0] * 60
	}
	sec += days * 86400
	if !(sec <= maxSWFValue) {
		return 0, false
	}
	return sec, true
}

// sacctLimit parses a time limit: a Slurm duration, or (rawUnit > 1) a
// number of minutes; UNLIMITED, Partition_limit and INVALID are -1.
func sacctLimit(s string, rawUnit float64) (float64, bool) {
	switch strings.ToUpper(s) {
	case "UNLIMITED", "PARTITION_LIMIT", "INVALID":
		return Unknown, true
	}
	if rawUnit > 1 {
		v, err := sacctCount(s)
		if err != nil || v*rawUnit > maxSWFValue {
			return 0, false
		}
		return v * rawUnit, true
	}
	return parseSlurmDuration(s)
}

// sacctCount parses a non-negative integer.
func sacctCount(s string) (float64, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > maxSWFValue {
		return 0, fmt.Errorf("%q is not a count (a non-negative integer)", s)
	}
	return float64(v), nil
}

// parseTRES parses a TRES list, "billing=4,cpu=4,mem=16G,node=1": name →
// value.
func parseTRES(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("%q is not a list of resources such as cpu=4,mem=16G,node=1", s)
		}
		out[strings.ToLower(k)] = v
	}
	return out, nil
}

// parseMemKB parses a memory size, a number and a unit K, M, G, T or P
// (powers of 1024; unit when none), into KB.
func parseMemKB(s string, unit byte) (float64, bool) {
	if s == "" {
		return 0, false
	}
	if c := s[len(s)-1]; c < '0' || c > '9' {
		unit, s = c&^0x20, s[:len(s)-1] // upper case
	}
	if s == "" || strings.Trim(s, "0123456789.") != "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	switch unit {
	case 'K':
	case 'M':
		v *= 1 << 10
	case 'G':
		v *= 1 << 20
	case 'T':
		v *= 1 << 30
	case 'P':
		v *= 1 << 40
	default:
		return 0, false
	}
	if !(v <= maxSWFValue) {
		return 0, false
	}
	return v, true
}
