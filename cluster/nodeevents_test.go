package cluster

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

func TestReadNodeEvents(t *testing.T) {
	in := `# maintenance of LANL's first rack
1d   DOWN   0-9,20-29  maintenance of rack 0
90000 drain 40         # no reason
86400 RESUME 5-7,0-4,8-9   back
2h RESUME 40
`
	got, err := ReadNodeEvents(strings.NewReader(in), "events.txt", 64)
	if err != nil {
		t.Fatal(err)
	}
	want := []NodeEvent{
		{At: 7200, State: NodeResume, Nodes: []Range{{40, 41}}},
		{At: 86400, State: NodeDown, Nodes: []Range{{0, 10}, {20, 30}}, Reason: "maintenance of rack 0"},
		{At: 86400, State: NodeResume, Nodes: []Range{{0, 10}}, Reason: "back"},
		{At: 90000, State: NodeDrain, Nodes: []Range{{40, 41}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	var b []byte
	for _, ev := range want {
		b = FormatNodeEvent(b, ev)
		b = append(b, '\n')
	}
	const wantText = "7200 RESUME 40\n86400 DOWN 0-9,20-29 maintenance of rack 0\n86400 RESUME 0-9 back\n90000 DRAIN 40\n"
	if string(b) != wantText {
		t.Errorf("formatted:\n%s\nwant:\n%s", b, wantText)
	}
}

func TestReadNodeEventsErrors(t *testing.T) {
	cases := []struct {
		name, in string
		line     int64
		column   string
		msg      string
	}{
		{"too few fields", "\n10 DOWN\n", 2, "", "want TIME STATE NODES"},
		{"bad time", "ten DOWN 1\n", 1, "time", `time "ten"`},
		{"negative time", "-5 DOWN 1\n", 1, "time", "whole seconds from 0"},
		{"time past MaxTime", "100000000001 DOWN 1\n", 1, "time", "workload.MaxTime"},
		{"days past MaxTime", "1157408d DOWN 1\n", 1, "time", "workload.MaxTime"},
		{"bad unit", "5w DOWN 1\n", 1, "time", "unit s, m, h or d"},
		{"bad state", "5 IDLE 1\n", 1, "state", "want DOWN, DRAIN or RESUME"},
		{"node past the machine", "# c\n5 DOWN 0-16\n", 2, "nodes", "the machine has nodes 0-15"},
		{"reversed range", "5 DOWN 9-3\n", 1, "nodes", "A ≤ B"},
		{"not a number", "5 DOWN n1\n", 1, "nodes", `node "n1"`},
		{"empty list item", "5 DOWN 1,,2\n", 1, "nodes", `node ""`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadNodeEvents(strings.NewReader(c.in), "ev.txt", 16)
			var pe *workload.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want a *workload.ParseError", err)
			}
			if pe.Path != "ev.txt" || pe.Line != c.line || pe.Column != c.column || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q (line %d, column %q), want line %d, column %q, holding %q", err, pe.Line, pe.Column, c.line, c.column, c.msg)
			}
		})
	}
}

func TestParseNodeTime(t *testing.T) {
	for in, want := range map[string]workload.Time{"0": 0, "45": 45, "45s": 45, "3m": 180, "2h": 7200, "1d": 86400} {
		if got, err := ParseNodeTime(in); err != nil || got != want {
			t.Errorf("ParseNodeTime(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if got, err := ParseNodeTime("100000000000"); err != nil || got != workload.MaxTime {
		t.Errorf("ParseNodeTime(MaxTime) = %d, %v; want %d", got, err, workload.MaxTime)
	}
	for _, in := range []string{"", "d", "1.5h", "-1", "99999999999999999d", "100000000001", "1157408d"} {
		if _, err := ParseNodeTime(in); err == nil {
			t.Errorf("ParseNodeTime(%q): no error", in)
		}
	}
}

func TestTakeFree(t *testing.T) {
	m := NewMachine(10)
	job := m.Alloc(3, nil) // 0-2
	got := m.TakeFree(Range{2, 6}, nil)
	if want := rs("3-5"); !reflect.DeepEqual(got, want) {
		t.Fatalf("TakeFree(2-5) with 0-2 busy took %v, want %v", got, want)
	}
	checkSpans(t, m)
	if m.Free() != 4 {
		t.Fatalf("free %d, want 4", m.Free())
	}
	// Splitting a free span in two.
	if got := m.TakeFree(Range{7, 8}, nil); !reflect.DeepEqual(got, rs("7")) {
		t.Fatalf("TakeFree(7) took %v", got)
	}
	checkSpans(t, m)
	if got := m.Alloc(3, nil); !reflect.DeepEqual(got, rs("6 8-9")) {
		t.Fatalf("allocating around taken processors: %v, want 6 8-9", got)
	}
	m.Release(job)
	m.Release(rs("3-5 7"))
	checkSpans(t, m)
	if m.Free() != 7 {
		t.Fatalf("free %d after release, want 7", m.Free())
	}
	mustPanic(t, "outside the machine", func() { m.TakeFree(Range{8, 11}, nil) })
}

// FuzzReadNodeEvents checks that the reader never panics, that what it
// accepts is valid (sorted, nodes in the machine, merged ranges) and that
// formatting it reads back the same.
func FuzzReadNodeEvents(f *testing.F) {
	for _, s := range []string{
		"86400 DOWN 0-102 maintenance\n172800 RESUME 0-102\n",
		"1d drain 0-9,20-29,5 # comment\n0 resume 3\n",
		"10 DOWN\n", "x y z\n", "5 DOWN 7-3\n", "#only a comment\n\n", "5 DOWN 0,,1\n", "1h DOWN 01-2 r r  r\n",
	} {
		f.Add(s, 32)
	}
	f.Fuzz(func(t *testing.T, in string, nodes int) {
		if nodes <= 0 || nodes > 1<<16 {
			nodes = 32
		}
		evs, err := ReadNodeEvents(strings.NewReader(in), "fuzz", nodes)
		if err != nil {
			var pe *workload.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a ParseError", err)
			}
			return
		}
		var b []byte
		for i, ev := range evs {
			if i > 0 && ev.At < evs[i-1].At {
				t.Fatalf("events not sorted: %v", evs)
			}
			for k, r := range ev.Nodes {
				if r.Lo < 0 || r.Hi > nodes || r.Lo >= r.Hi || (k > 0 && ev.Nodes[k-1].Hi >= r.Lo) {
					t.Fatalf("bad node ranges %v of %d nodes", ev.Nodes, nodes)
				}
			}
			b = FormatNodeEvent(b, ev)
			b = append(b, '\n')
		}
		again, err := ReadNodeEvents(strings.NewReader(string(b)), "again", nodes)
		if err != nil {
			t.Fatalf("%q read, formatted as %q, does not read back: %v", in, b, err)
		}
		if len(evs) == 0 && len(again) == 0 {
			return
		}
		if !reflect.DeepEqual(again, evs) {
			t.Fatalf("%q read as %+v, formatted and read back as %+v", in, evs, again)
		}
	})
}

// nodeEventsParquet returns a Parquet node-event schedule of rows.
func nodeEventsParquet(t testing.TB, rows [][]string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := workload.WriteParquetTable(&b, nodeEventColumns, rows); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadNodeEventsParquet(t *testing.T) {
	data := nodeEventsParquet(t, [][]string{
		{"2d", "RESUME", "0-102", "back"},
		{"86400", "down", "0-102", "maintenance  of  rack 0"},
		{"90000", "DRAIN", "7", ""},
	})
	dir := t.TempDir()
	path := filepath.Join(dir, "events.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := OpenNodeEvents(path, 1024)
	if err != nil {
		t.Fatal(err)
	}
	want := []NodeEvent{
		{At: 86400, State: NodeDown, Nodes: []Range{{0, 103}}, Reason: "maintenance of rack 0"},
		{At: 90000, State: NodeDrain, Nodes: []Range{{7, 8}}},
		{At: 172800, State: NodeResume, Nodes: []Range{{0, 103}}, Reason: "back"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// The text form of the same schedule reads the same.
	text := filepath.Join(dir, "events.txt")
	os.WriteFile(text, []byte("2d RESUME 0-102 back\n86400 down 0-102 maintenance of rack 0\n90000 DRAIN 7\n"), 0o644)
	if again, err := OpenNodeEvents(text, 1024); err != nil || !reflect.DeepEqual(again, want) {
		t.Fatalf("text form: %+v, %v", again, err)
	}

	bad := []struct {
		name   string
		rows   [][]string
		row    int64
		column string
	}{
		{"bad time", [][]string{{"1", "DOWN", "1", ""}, {"soon", "DOWN", "1", ""}}, 2, "time"},
		{"bad state", [][]string{{"1", "UP", "1", ""}}, 1, "state"},
		{"node past the machine", [][]string{{"1", "DOWN", "0-2000", ""}}, 1, "nodes"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			d := nodeEventsParquet(t, c.rows)
			_, err := ReadNodeEventsParquet(bytes.NewReader(d), int64(len(d)), "bad.parquet", 1024)
			var pe *workload.ParseError
			if !errors.As(err, &pe) || pe.Row != c.row || pe.Column != c.column || pe.Path != "bad.parquet" {
				t.Fatalf("error %v, want a ParseError at row %d, column %q", err, c.row, c.column)
			}
		})
	}
}

// FuzzReadNodeEventsParquet checks that no Parquet input, however
// corrupt, makes the reader panic, and that what it accepts is valid.
func FuzzReadNodeEventsParquet(f *testing.F) {
	good := nodeEventsParquet(f, [][]string{{"86400", "DOWN", "0-102", "maintenance"}, {"2d", "RESUME", "0-102", ""}})
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(nodeEventsParquet(f, [][]string{{"x", "DOWN", "1", ""}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, err := ReadNodeEventsParquet(bytes.NewReader(data), int64(len(data)), "fuzz.parquet", 1024)
		if err != nil {
			var pe *workload.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a ParseError", err)
			}
			return
		}
		for i, ev := range evs {
			if i > 0 && ev.At < evs[i-1].At {
				t.Fatalf("events not sorted: %v", evs)
			}
			for _, r := range ev.Nodes {
				if r.Lo < 0 || r.Hi > 1024 || r.Lo >= r.Hi {
					t.Fatalf("bad node range %v", r)
				}
			}
		}
	})
}

// TestNodeStates takes idle nodes out of the selectors' pools and puts
// them back: Linear in whole nodes, ConsRes in cores.
func TestNodeStates(t *testing.T) {
	spec := func(sel string) *Spec {
		return &Spec{Select: sel, Groups: []NodeGroup{{Name: "a", Count: 2, Cores: 2}, {Name: "b", Count: 2, Cores: 4}}}
	}
	t.Run("linear", func(t *testing.T) {
		l := NewLinear(spec(SelectLinear))
		if l.Nodes() != 4 || l.NodeUnits(Range{1, 3}) != (Range{1, 3}) || l.UnitNode(2) != 2 || l.UnitProcs(Range{1, 3}) != 6 {
			t.Fatalf("nodes %d, units %v, node %d, procs %d", l.Nodes(), l.NodeUnits(Range{1, 3}), l.UnitNode(2), l.UnitProcs(Range{1, 3}))
		}
		job := Request{Procs: 2}
		rs, _ := l.RunNow(job, nil) // node 0
		l.Commit(job, rs)
		got := l.TakeFree(Range{0, 3}, nil) // nodes 1-2 idle
		if !reflect.DeepEqual(got, []Range{{1, 3}}) || l.Free() != 4 {
			t.Fatalf("took %v, %d free; want [1-2], 4 (node 3)", got, l.Free())
		}
		if rs, ok := l.RunNow(Request{Procs: 4}, nil); !ok || !reflect.DeepEqual(rs, []Range{{3, 4}}) {
			t.Fatalf("4 cores go to %v, %v; want node 3", rs, ok)
		}
		l.PutBack(got)
		if l.Free() != 10 {
			t.Fatalf("%d free after put back, want 10", l.Free())
		}
	})
	t.Run("cons_res", func(t *testing.T) {
		c := NewConsRes(spec(SelectConsRes))
		if c.Nodes() != 4 || c.NodeUnits(Range{1, 3}) != (Range{2, 8}) || c.UnitNode(5) != 2 || c.UnitProcs(Range{2, 8}) != 6 {
			t.Fatalf("nodes %d, units %v, node %d, procs %d", c.Nodes(), c.NodeUnits(Range{1, 3}), c.UnitNode(5), c.UnitProcs(Range{2, 8}))
		}
		job := Request{Procs: 3}
		rs, _ := c.RunNow(job, nil) // cores 0-2
		c.Commit(job, rs)
		got := c.TakeFree(c.NodeUnits(Range{1, 2}), nil) // node 1: core 3 idle
		if !reflect.DeepEqual(got, []Range{{3, 4}}) || c.Free() != 8 {
			t.Fatalf("took %v, %d free; want [3], 8", got, c.Free())
		}
		if rs, ok := c.RunNow(Request{Procs: 2}, nil); !ok || !reflect.DeepEqual(rs, []Range{{4, 6}}) {
			t.Fatalf("2 cores go to %v, %v; want 4-5", rs, ok)
		}
		c.PutBack(got)
		c.Release(job, rs)
		if c.Free() != 12 {
			t.Fatalf("%d free after put back and release, want 12", c.Free())
		}
		mustPanic(t, "cores outside", func() { c.TakeFree(Range{10, 13}, nil) })
	})
}
