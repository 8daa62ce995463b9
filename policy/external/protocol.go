package external

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Protocol is the version of the protocol this package speaks: the value
// of the "protocol" field of both hello messages. A policy that answers
// with another version is refused.
const Protocol = "schedsim-policy/1"

// hello is the policy's answer to schedsim's hello.
type hello struct {
	Type     string   `json:"type"`
	Protocol string   `json:"protocol"`
	Name     string   `json:"name"`
	Fields   []string `json:"fields"`
	// Rows asks for the jobs of pass and end messages as arrays of their
	// values rather than objects (encoder.rows).
	Rows bool `json:"rows"`
	// NodeEvents asks for the node events of the run and what they did
	// to the running jobs (the node_events and back keys of a pass).
	NodeEvents bool `json:"node_events"`
	// Placed asks, on a cluster of nodes, where each started job was
	// placed (the placed key of fits and pass messages).
	Placed bool `json:"placed"`
}

// jobFields are the attributes of a submitted job a pass message may
// carry besides its id, in their order; a policy's hello may ask for some
// of them only ("fields").
var jobFields = []string{"job", "submit", "procs", "requested", "user", "group", "queue", "partition"}

// allFields is the mask of every job field.
const allFields = 1<<8 - 1

// fieldMask returns the mask of the named job fields (all without names).
func fieldMask(names []string) (uint8, error) {
	if names == nil {
		return allFields, nil
	}
	var m uint8
	for _, n := range names {
		k := slices.Index(jobFields, n)
		if k < 0 {
			return 0, fmt.Errorf("fields: unknown job field %q (the fields are %s)", n, strings.Join(jobFields, ", "))
		}
		m |= 1 << k
	}
	return m, nil
}

// Answer is a policy's answer to a pass message: the jobs to start now, in
// this order; the promises of a latest start; and an optional wake-up.
type Answer struct {
	// Start lists the ids of the queued jobs to start now, in order.
	Start []int64 `json:"start"`
	// Reserve promises that each job starts no later than At.
	Reserve []Reservation `json:"reserve"`
	// Wake, if set, asks for a call at that time (after now).
	Wake *int64 `json:"wake"`
	// Quiet, if set, says which submissions alone could make the policy
	// act, until the next call (see Quiet).
	Quiet *Quiet `json:"quiet"`
	// Ask, if present (even empty), makes the answer not the pass's
	// last: schedsim applies its decisions, answers with a fits message
	// saying which of these queued jobs fit now, and reads another answer.
	Ask []int64 `json:"ask"`

	quiet Quiet // Quiet's memory for the fast path
}

// Quiet is a policy's promise, in an answer, about the passes that follow
// while only jobs are submitted: until a job ends or a wake-up it asked for
// falls due, a submitted job could make it start anything only if it asks
// for at most Procs processors and either has a requested time and would
// end by Until (now + requested ≤ Until), or asks for at most Extra
// processors. schedsim then does not call the policy for submissions that
// cannot; they come with the next call. {"procs":0}: no submission alone
// can.
type Quiet struct {
	Procs int64  `json:"procs"`
	Extra int64  `json:"extra"`
	Until *int64 `json:"until"`
}

// Reservation is a promise that queued job ID starts no later than At.
type Reservation struct {
	ID int64 `json:"id"`
	At int64 `json:"at"`
}

// ParseAnswer parses one line of a policy's answer into a (whose slices are
// reused). The line must hold exactly one JSON object with no other key
// than start, reserve and wake.
func ParseAnswer(line []byte, a *Answer) error {
	a.Start, a.Reserve, a.Wake, a.Quiet, a.Ask = a.Start[:0], a.Reserve[:0], nil, nil, nil
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return errors.New("empty line, want a JSON object")
	}
	if line[0] != '{' {
		return errors.New("not a JSON object")
	}
	if parseFast(line, a) {
		return nil
	}
	a.Start, a.Reserve, a.Wake, a.Quiet = a.Start[:0], a.Reserve[:0], nil, nil
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(a); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

// helloKeys are the keys of a policy's hello, as an error lists them.
const helloKeys = "type, protocol, name, fields, rows, node_events and placed"

// parseHello parses the policy's hello line.
func parseHello(line []byte, h *hello) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return errors.New("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(h); err != nil {
		if k, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("unknown key %s (a hello has %s)", k, helloKeys)
		}
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more than one JSON value on the line")
	}
	if h.Type != "hello" {
		return fmt.Errorf("type %q, want \"hello\"", h.Type)
	}
	if h.Protocol != Protocol {
		return fmt.Errorf("protocol %q, want %q", h.Protocol, Protocol)
	}
	_, err := fieldMask(h.Fields)
	return err
}

// jsonError words a decoding error for a user: the field and what was
// wrong.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %s: %s where %s is wanted", te.Field, te.Value, goTypeName(te.Type.String()))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON at byte %d: %v", se.Offset, se)
	}
	if k, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown key %s (an answer has start, reserve, wake and quiet; a hello has type, protocol, name, fields and rows)", k)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errors.New("malformed JSON: the object is not closed")
	}
	return fmt.Errorf("malformed JSON: %v", err)
}

// goTypeName names a Go type in JSON's words.
func goTypeName(t string) string {
	switch t {
	case "int64", "*int64":
		return "an integer"
	case "string":
		return "a string"
	case "[]int64":
		return "an array of integers"
	case "[]external.Reservation":
		return "an array of {\"id\", \"at\"} objects"
	case "external.Reservation":
		return "an {\"id\", \"at\"} object"
	case "*external.Quiet", "external.Quiet":
		return "a {\"procs\", \"extra\", \"until\"} object"
	case "bool":
		return "true or false"
	}
	return t
}

// encoder writes schedsim's messages into a reused buffer, by hand: a pass
// costs what it carries.
type encoder struct {
	b []byte
	// rows writes each job of submitted and ended as an array of its
	// values, in the order of the objects' keys (a policy's hello asks
	// for it): [id, the fields asked for…] and [id, start, end, procs,
	// killed]. A JSON decoder then reads no key.
	rows bool
}

func (e *encoder) reset() { e.b = e.b[:0] }

func (e *encoder) str(s string) { e.b = strconv.AppendQuote(e.b, s) }

func (e *encoder) raw(s string) { e.b = append(e.b, s...) }

func (e *encoder) int(n int64) { e.b = strconv.AppendInt(e.b, n, 10) }

// key writes ,"name": (or "name": for the first field of an object,
// first true).
func (e *encoder) key(name string, first bool) {
	if !first {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, name...)
	e.b = append(e.b, '"', ':')
}

// helloMsg writes schedsim's hello; nodeEvents says that the run has node
// events and calendar that it has reservations, start windows or limits
// (keys a run without them does not carry); unit, when not "" (seconds),
// is the time unit of every time of the run's messages (time_unit, an
// addition to schedsim-policy/1 that a run in seconds leaves out).
func (e *encoder) helloMsg(procs int, nodeEvents, calendar bool, spec *cluster.Spec, unit string) {
	e.reset()
	e.raw(`{"type":"hello","protocol":`)
	e.str(Protocol)
	e.raw(`,"machine":{"procs":`)
	e.int(int64(procs))
	if spec != nil {
		e.clusterHello(spec)
	}
	if nodeEvents {
		e.raw(`,"node_events":true`)
	}
	if calendar {
		e.raw(`,"calendar":true`)
	}
	e.raw("}")
	if unit != "" {
		e.raw(`,"time_unit":`)
		e.str(unit)
	}
	e.raw("}\n")
}

// nodeEvent appends a node change to the list of those not yet sent:
// {"time":T,"state":"down","nodes":[[first,last],…],"reason":R} and, for a
// DOWN that stopped running jobs, "stopped":[ids] and "requeued".
func (e *encoder) nodeEvent(c *policy.NodeChange) {
	if len(e.b) > 0 {
		e.raw(",")
	}
	e.raw(`{"time":`)
	e.int(int64(c.At))
	e.raw(`,"state":`)
	switch {
	case c.Power && c.State == cluster.NodeDown:
		e.raw(`"off"`)
	case c.Power && c.State == cluster.NodeResume:
		e.raw(`"on"`)
	default:
		e.str(strings.ToLower(c.State.String()))
	}
	e.raw(`,"nodes":[`)
	e.nodeRanges(c.Nodes)
	e.raw(`],"reason":`)
	e.str(c.Reason)
	if c.State == cluster.NodeDown && !c.Power {
		e.raw(`,"stopped":[`)
		e.ids(c.Stopped)
		if c.Requeued {
			e.raw(`],"requeued":true`)
		} else {
			e.raw(`],"requeued":false`)
		}
	}
	e.raw("}")
}

// extras are the keys of a pass message that a policy asked for in its
// hello, already encoded (each ",\"key\":value"), or empty.
func (e *encoder) extras(nodeEvents []byte, back []backChange, placed []byte) {
	e.placedKey(placed)
	if len(nodeEvents) > 0 {
		e.raw(`,"node_events":[`)
		e.b = append(e.b, nodeEvents...)
		e.raw("]")
	}
	if len(back) > 0 {
		e.raw(`,"back":[`)
		for k, x := range back {
			if k > 0 {
				e.raw(",")
			}
			e.raw("[")
			e.int(x.id)
			e.raw(",")
			e.int(int64(x.procs))
			e.raw("]")
		}
		e.raw("]")
	}
}

// clusterHello writes the machine's nodes and partitions into schedsim's
// hello (after "procs"): the node selector, the node groups with the first
// node of each, and the partitions.
func (e *encoder) clusterHello(s *cluster.Spec) {
	sel := s.Select
	if sel == "" {
		sel = cluster.SelectLinear
	}
	e.raw(`,"select":`)
	e.str(sel)
	e.raw(`,"groups":[`)
	first := 0
	for k := range s.Groups {
		g := &s.Groups[k]
		if k > 0 {
			e.raw(",")
		}
		e.raw(`{"name":`)
		e.str(g.Name)
		e.raw(`,"first":`)
		e.int(int64(first))
		e.raw(`,"count":`)
		e.int(int64(g.Count))
		e.raw(`,"cores":`)
		e.int(int64(g.Cores))
		e.raw(`,"memory_mb":`)
		e.int(g.MemoryMB)
		e.raw("}")
		first += g.Count
	}
	e.raw(`],"partitions":[`)
	for k := range s.Partitions {
		pt := &s.Partitions[k]
		if k > 0 {
			e.raw(",")
		}
		e.raw(`{"name":`)
		e.str(pt.Name)
		e.raw(`,"swf":`)
		swf := pt.SWF
		if swf == 0 {
			swf = k + 1
		}
		e.int(int64(swf))
		e.raw(`,"groups":[`)
		for i, g := range pt.Groups {
			if i > 0 {
				e.raw(",")
			}
			e.str(g)
		}
		e.raw(`],"max_time":`)
		e.int(int64(pt.MaxTime))
		e.raw(`,"default_time":`)
		e.int(int64(pt.DefaultTime))
		e.raw(`,"priority_tier":`)
		e.int(int64(pt.PriorityTier))
		if pt.Default {
			e.raw(`,"default":true}`)
		} else {
			e.raw(`,"default":false}`)
		}
	}
	e.raw("]")
}

// placement appends a started job's placement to the list of those not yet
// sent: [id, processors held, [[first node, last node], …]].
func (e *encoder) placement(id int64, held int, nodes []cluster.Range) {
	if len(e.b) > 0 {
		e.raw(",")
	}
	e.raw("[")
	e.int(id)
	e.raw(",")
	e.int(int64(held))
	e.raw(",[")
	e.nodeRanges(nodes)
	e.raw("]]")
}

// placedKey writes the placed key of the placements not yet sent, if any.
func (e *encoder) placedKey(placed []byte) {
	if len(placed) > 0 {
		e.raw(`,"placed":[`)
		e.b = append(e.b, placed...)
		e.raw("]")
	}
}

// fitsMsg writes the answer to an answer's ask: which of the jobs asked
// about fit now, the free processors, and the placements not yet sent.
func (e *encoder) fitsMsg(pass int64, free int, fits []int64, held []heldJob, placed []byte) {
	e.reset()
	e.raw(`{"type":"fits","pass":`)
	e.int(pass)
	e.key("free", false)
	e.int(int64(free))
	e.key("fits", false)
	e.raw("[")
	e.ids(fits)
	e.raw("]")
	if len(held) > 0 {
		e.raw(`,"held":[`)
		for k, h := range held {
			if k > 0 {
				e.raw(",")
			}
			e.raw("[")
			e.int(h.id)
			e.raw(",")
			e.str(h.why)
			e.raw("]")
		}
		e.raw("]")
	}
	e.placedKey(placed)
	e.raw("}\n")
}

// backChange is a running job whose processors given back to service at
// its end changed (its nodes drain, or resume).
type backChange struct {
	id    int64
	procs int
}

// job writes a submitted job, with the fields of mask.
func (e *encoder) job(j *workload.Job, mask uint8) {
	if e.rows {
		e.raw("[")
	} else {
		e.raw(`{"id":`)
	}
	e.int(j.Seq)
	vals := [...]int64{j.ID, int64(j.Submit), int64(j.Procs), int64(max(j.Estimate, 0)), int64(j.User), int64(j.Group), int64(j.Queue), int64(j.Partition)}
	for k, name := range jobFields {
		if mask&(1<<k) != 0 {
			if e.rows {
				e.raw(",")
			} else {
				e.key(name, false)
			}
			e.int(vals[k])
		}
	}
	if e.rows {
		e.raw("]")
	} else {
		e.raw("}")
	}
}

// ended is a job that ended, as a pass message carries it.
type ended struct {
	id, start, end int64
	procs          int
	killed         bool
}

// passMsg writes a pass message.
func (e *encoder) passMsg(pass int64, now workload.Time, free, capacity, queued, running int, subBuf []byte, end []ended, nodeEvents []byte, back []backChange, placed []byte) {
	e.reset()
	e.raw(`{"type":"pass","pass":`)
	e.int(pass)
	e.key("time", false)
	e.int(int64(now))
	e.key("free", false)
	e.int(int64(free))
	e.key("capacity", false)
	e.int(int64(capacity))
	e.key("queued", false)
	e.int(int64(queued))
	e.key("running", false)
	e.int(int64(running))
	e.key("submitted", false)
	e.raw("[")
	e.b = append(e.b, subBuf...)
	e.raw("]")
	e.endedList(end)
	e.extras(nodeEvents, back, placed)
	e.raw("}\n")
}

// endedList writes the ended key and its list.
func (e *encoder) endedList(end []ended) {
	e.key("ended", false)
	e.raw("[")
	for k := range end {
		x := &end[k]
		if k > 0 {
			e.raw(",")
		}
		if e.rows {
			e.endedRow(x)
			continue
		}
		e.raw(`{"id":`)
		e.int(x.id)
		e.key("start", false)
		e.int(x.start)
		e.key("end", false)
		e.int(x.end)
		e.key("procs", false)
		e.int(int64(x.procs))
		if x.killed {
			e.raw(`,"killed":true}`)
		} else {
			e.raw(`,"killed":false}`)
		}
	}
	e.raw("]")
}

// endedRow writes an ended job as an array.
func (e *encoder) endedRow(x *ended) {
	e.raw("[")
	e.int(x.id)
	e.raw(",")
	e.int(x.start)
	e.raw(",")
	e.int(x.end)
	e.raw(",")
	e.int(int64(x.procs))
	if x.killed {
		e.raw(",true]")
	} else {
		e.raw(",false]")
	}
}

// endMsg writes the message that ends the run, with the jobs that ended
// since the last pass.
func (e *encoder) endMsg(now workload.Time, passes int64, end []ended) {
	e.reset()
	e.raw(`{"type":"end","time":`)
	e.int(int64(now))
	e.key("passes", false)
	e.int(passes)
	e.endedList(end)
	e.raw("}\n")
}

// parseFast parses the answers policies give most often, written without
// spaces with their keys in the order start, reserve, wake, each optional:
// {}, {"start":[3,4]}, {"start":[5],"reserve":[{"id":6,"at":900}]},
// {"wake":1200}. It reports false for any other line, which ParseAnswer's
// general decoder then reads: the two agree on every line parseFast
// accepts (FuzzParseAnswer).
func parseFast(line []byte, a *Answer) bool {
	s := fastScanner{b: line}
	if !s.lit("{") {
		return false
	}
	first := true
	if s.lit(`"start":[`) {
		first = false
		for !s.lit("]") {
			if len(a.Start) > 0 && !s.lit(",") {
				return false
			}
			n, ok := s.int()
			if !ok {
				return false
			}
			a.Start = append(a.Start, n)
		}
	}
	if s.key(first, `"reserve":[`) {
		first = false
		for !s.lit("]") {
			if len(a.Reserve) > 0 && !s.lit(",") {
				return false
			}
			if !s.lit(`{"id":`) {
				return false
			}
			id, ok := s.int()
			if !ok || !s.lit(`,"at":`) {
				return false
			}
			at, ok := s.int()
			if !ok || !s.lit("}") {
				return false
			}
			a.Reserve = append(a.Reserve, Reservation{ID: id, At: at})
		}
	}
	if s.key(first, `"wake":`) {
		first = false
		t, ok := s.int()
		if !ok {
			return false
		}
		a.Wake = &t
	}
	if s.key(first, `"quiet":{"procs":`) {
		q := &a.quiet
		*q = Quiet{}
		var ok bool
		if q.Procs, ok = s.int(); !ok {
			return false
		}
		if s.lit(`,"extra":`) {
			if q.Extra, ok = s.int(); !ok {
				return false
			}
		}
		if s.lit(`,"until":`) {
			u, ok := s.int()
			if !ok {
				return false
			}
			q.Until = &u
		}
		if !s.lit("}") {
			return false
		}
		a.Quiet = q
	}
	return s.lit("}") && s.i == len(s.b)
}

// fastScanner reads parseFast's line.
type fastScanner struct {
	b []byte
	i int
}

// lit consumes s if the line goes on with it.
func (s *fastScanner) lit(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// key consumes k, preceded by a comma unless it is the object's first key,
// if the line goes on with them.
func (s *fastScanner) key(first bool, k string) bool {
	at := s.i
	if (first || s.lit(",")) && s.lit(k) {
		return true
	}
	s.i = at
	return false
}

// int consumes a JSON integer that fits an int64 without leading zeros.
func (s *fastScanner) int() (int64, bool) {
	neg := s.lit("-")
	start := s.i
	var n int64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		if n > (1<<63-1-9)/10 {
			return 0, false // may overflow: the general decoder says how
		}
		n = n*10 + int64(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || (digits > 1 && s.b[start] == '0') {
		return 0, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// ids writes a comma-separated list of job ids (without brackets).
func (e *encoder) ids(ids []int64) {
	for k, id := range ids {
		if k > 0 {
			e.raw(",")
		}
		e.int(id)
	}
}

// nodeRanges writes node ranges as [first, last] pairs, comma-separated
// (without the list's brackets).
func (e *encoder) nodeRanges(rs []cluster.Range) {
	for k, r := range rs {
		if k > 0 {
			e.raw(",")
		}
		e.raw("[")
		e.int(int64(r.Lo))
		e.raw(",")
		e.int(int64(r.Hi - 1))
		e.raw("]")
	}
}
