package cluster

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// NodeState is what a node event does to its nodes, as Slurm's
// "scontrol update NodeName=… State=…" does.
type NodeState uint8

// Values of NodeState.
const (
	// NodeDown takes the nodes out of service at once: the jobs running on
	// them are killed or requeued (sim.Config.OnNodeFail).
	NodeDown NodeState = iota + 1
	// NodeDrain lets the jobs running on the nodes finish but starts no new
	// job on them; a drained node is out of service once idle.
	NodeDrain
	// NodeResume puts down or draining nodes back in service.
	NodeResume
)

// String returns the state's name as a node-event file spells it.
func (s NodeState) String() string {
	switch s {
	case NodeDown:
		return "DOWN"
	case NodeDrain:
		return "DRAIN"
	case NodeResume:
		return "RESUME"
	}
	return fmt.Sprintf("NodeState(%d)", uint8(s))
}

// ParseNodeState parses DOWN, DRAIN or RESUME, in any letter case.
func ParseNodeState(s string) (NodeState, error) {
	switch strings.ToUpper(s) {
	case "DOWN":
		return NodeDown, nil
	case "DRAIN":
		return NodeDrain, nil
	case "RESUME":
		return NodeResume, nil
	}
	return 0, fmt.Errorf("state %q: want DOWN, DRAIN or RESUME", s)
}

// NodeEvent is one change of node states at one instant.
type NodeEvent struct {
	// At is when the change happens.
	At workload.Time
	// State is the nodes' new state.
	State NodeState
	// Nodes are the node numbers the event applies to: sorted, disjoint,
	// non-adjacent half-open ranges.
	Nodes []Range
	// Reason is the administrator's note ("maintenance"), possibly empty.
	Reason string
}

// ParseNodeTime parses an event time: whole seconds from 0 to
// workload.MaxTime, optionally followed by a unit s, m, h or d ("3600",
// "90m", "2d").
func ParseNodeTime(s string) (workload.Time, error) {
	t, ok := workload.ParseSeconds(s, workload.MaxTime)
	if !ok {
		return 0, fmt.Errorf("time %q: want whole seconds from 0 to %d (workload.MaxTime), optionally with a unit s, m, h or d (e.g. 3600, 90m, 2d)", s, workload.MaxTime)
	}
	return t, nil
}

// ParseNodeList parses node numbers: a number ("17"), a range ("0-102",
// inclusive) or a comma-separated list of both ("0-9,20-29,40"). Every
// number must be below nodes. The result is sorted and merged.
func ParseNodeList(s string, nodes int) ([]Range, error) {
	if s == "" {
		return nil, errors.New("no nodes")
	}
	var out []Range
	for _, f := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("node %q: want a node number ≥ 0, a range A-B or a list of them (0-9,20-29)", f)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("node range %q: want A-B with A ≤ B", f)
			}
		}
		if b >= nodes {
			return nil, fmt.Errorf("node %d: the machine has nodes 0-%d", b, nodes-1)
		}
		out = append(out, Range{a, b + 1})
	}
	return mergeRanges(out), nil
}

// mergeRanges sorts rs and merges overlapping or adjacent ranges, in place.
func mergeRanges(rs []Range) []Range {
	slices.SortFunc(rs, func(a, b Range) int { return a.Lo - b.Lo })
	w := 0
	for _, r := range rs {
		if w > 0 && r.Lo <= rs[w-1].Hi {
			rs[w-1].Hi = max(rs[w-1].Hi, r.Hi)
			continue
		}
		rs[w] = r
		w++
	}
	return rs[:w]
}

// ReadNodeEvents reads a node-event schedule for a machine of nodes nodes
// from r (path names it in errors). One event per line:
//
//	TIME STATE NODES [REASON…]
//
// TIME as ParseNodeTime, STATE as ParseNodeState, NODES as ParseNodeList,
// and the rest of the line is the reason. '#' starts a comment; blank lines
// are skipped. Events are returned sorted by time, events of one instant in
// file order. A bad line is a *workload.ParseError naming path, line and
// the column ("time", "state" or "nodes").
func ReadNodeEvents(r io.Reader, path string, nodes int) ([]NodeEvent, error) {
	if nodes <= 0 {
		return nil, fmt.Errorf("cluster: node events for a machine of %d nodes", nodes)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var evs []NodeEvent
	var line int64
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		bad := func(col string, err error) error {
			return &workload.ParseError{Path: path, Line: line, Column: col, Err: err}
		}
		if len(f) < 3 {
			return nil, bad("", errors.New("want TIME STATE NODES [REASON…], e.g. \"86400 DOWN 0-102 maintenance\""))
		}
		var ev NodeEvent
		var err error
		if ev.At, err = ParseNodeTime(f[0]); err != nil {
			return nil, bad("time", err)
		}
		if ev.State, err = ParseNodeState(f[1]); err != nil {
			return nil, bad("state", err)
		}
		if ev.Nodes, err = ParseNodeList(f[2], nodes); err != nil {
			return nil, bad("nodes", err)
		}
		ev.Reason = strings.Join(f[3:], " ")
		evs = append(evs, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, &workload.ParseError{Path: path, Line: line + 1, Err: err}
	}
	slices.SortStableFunc(evs, func(a, b NodeEvent) int { return int(min(max(a.At-b.At, -1), 1)) })
	return evs, nil
}

// FormatNodeEvent writes ev as one line of a node-event schedule, the
// inverse of ReadNodeEvents (node ranges in ParseNodeList's notation).
func FormatNodeEvent(b []byte, ev NodeEvent) []byte {
	b = strconv.AppendInt(b, int64(ev.At), 10)
	b = append(b, ' ')
	b = append(b, ev.State.String()...)
	b = append(b, ' ')
	for i, r := range ev.Nodes {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(r.Lo), 10)
		if r.Hi-1 > r.Lo {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(r.Hi-1), 10)
		}
	}
	if ev.Reason != "" {
		b = append(b, ' ')
		b = append(b, ev.Reason...)
	}
	return b
}

// nodeEventColumns are the columns of a node-event schedule in Parquet.
var nodeEventColumns = []string{"time", "state", "nodes", "reason"}

// ReadNodeEventsParquet reads a node-event schedule from a Parquet table
// with columns time (integer seconds, or text as ParseNodeTime), state
// (text), nodes (text as ParseNodeList, or an integer node number) and an
// optional reason (text), one event per row. Events are returned sorted by
// time, events of one instant in row order. A bad row is a
// *workload.ParseError naming path, row and column.
func ReadNodeEventsParquet(ra io.ReaderAt, size int64, path string, nodes int) ([]NodeEvent, error) {
	if nodes <= 0 {
		return nil, fmt.Errorf("cluster: node events for a machine of %d nodes", nodes)
	}
	rows, err := workload.ReadParquetTable(ra, size, path, nodeEventColumns, []bool{false, false, false, true})
	if err != nil {
		return nil, err
	}
	evs := make([]NodeEvent, 0, len(rows))
	for i, row := range rows {
		bad := func(col string, err error) error {
			return &workload.ParseError{Path: path, Row: int64(i) + 1, Column: col, Err: err}
		}
		var ev NodeEvent
		if ev.At, err = ParseNodeTime(row[0]); err != nil {
			return nil, bad("time", err)
		}
		if ev.State, err = ParseNodeState(row[1]); err != nil {
			return nil, bad("state", err)
		}
		if ev.Nodes, err = ParseNodeList(row[2], nodes); err != nil {
			return nil, bad("nodes", err)
		}
		ev.Reason = strings.Join(strings.Fields(row[3]), " ")
		evs = append(evs, ev)
	}
	slices.SortStableFunc(evs, func(a, b NodeEvent) int { return int(min(max(a.At-b.At, -1), 1)) })
	return evs, nil
}

// OpenNodeEvents reads the node-event schedule in the file at path for a
// machine of nodes nodes: Parquet (detected by its magic number) as
// ReadNodeEventsParquet, else text as ReadNodeEvents.
func OpenNodeEvents(path string, nodes int) ([]NodeEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var magic [4]byte
	if n, _ := f.ReadAt(magic[:], 0); n == 4 && string(magic[:]) == "PAR1" {
		return ReadNodeEventsParquet(f, st.Size(), path, nodes)
	}
	return ReadNodeEvents(f, path, nodes)
}
