package infer

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/schedsim/schedsim/workload"
)

// TestInferEffectiveSize: a machine whose scheduler never uses 4 of its 64
// processors, under a load that keeps jobs queued, runs at most 60
// processors, and half the time while jobs wait at least 58 (90 % of 64):
// its effective size is found. The same load on the whole machine, and a
// lighter load on the smaller one, keep the header's size.
func TestInferEffectiveSize(t *testing.T) {
	for _, tc := range []struct {
		name      string
		p         plant
		lo, hi    int
		shrinkMsg bool
	}{
		{"4 out of service, saturated", plant{outOfService: 4, arrivalSec: 1200}, 58, 60, true},
		{"whole machine, saturated", plant{arrivalSec: 1200}, 64, 64, false},
		{"4 out of service, light load", plant{outOfService: 4}, 64, 64, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := synthLog(t, tc.p, 5)
			r, err := Infer(l, Defaults())
			if err != nil {
				t.Fatal(err)
			}
			if r.Procs < tc.lo || r.Procs > tc.hi {
				t.Errorf("procs %d, want %d to %d; evidence %q, notes %q", r.Procs, tc.lo, tc.hi, r.ProcsEvidence, r.Notes)
			}
			var out bytes.Buffer
			if err := r.WriteTOML(&out, "synthetic.swf"); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(out.String(), "its effective size is"); got != tc.shrinkMsg {
				t.Errorf("evidence of an effective size written: %v, want %v:\n%s", got, tc.shrinkMsg, out.String())
			}
			opt := Defaults()
			opt.EffectiveMinFrac = 0
			if r0, _ := Infer(l, opt); r0.Procs != synthProcs {
				t.Errorf("--effective-min 0: procs %d, want the header's %d", r0.Procs, synthProcs)
			}
		})
	}
}

// nodeJobs are n jobs of each size, one after the other, on a machine of
// procs processors.
func nodeJobs(procs int, n int, sizes ...int) *Log {
	l := &Log{Procs: procs, Name: "nodes.swf", Zone: time.UTC}
	var at workload.Time
	id := int64(0)
	for range n {
		for _, s := range sizes {
			id++
			l.Jobs = append(l.Jobs, Job{ID: id, Submit: at, Start: at, End: at + 50, Procs: s, ReqTime: 100, User: 1, Queue: 1})
			at += 100
		}
	}
	return l
}

func TestInferNodeSize(t *testing.T) {
	for _, tc := range []struct {
		name  string
		l     *Log
		want  int // 0: none
		note  string
		share float64
	}{
		// Even counts beyond the powers of two, and single processors:
		// nodes of 2.
		{"even", nodeJobs(240, 60, 1, 1, 2, 6, 10, 12, 16), 2, "", 0.9},
		// Multiples of 4 (12, 20, 36) and 1-processor jobs: nodes of 4
		// (the largest size), on a machine 4 divides.
		{"fours", nodeJobs(256, 60, 1, 4, 12, 20, 36), 4, "", 0.9},
		// Odd counts as often as even ones: one processor per node.
		{"mixed", nodeJobs(338, 60, 1, 3, 5, 6, 10, 7), 0, "nodes: one processor each", 0.9},
		// Powers of two alone say nothing of the nodes.
		{"powers of two", nodeJobs(64, 200, 1, 2, 4, 8, 32), 0, "nodes: not looked for", 0.9},
		// Every job asks whole nodes of 32: nothing to write.
		{"all multiples", nodeJobs(1024, 60, 32, 96, 160), 0, "would change nothing", 0.9},
		// One odd count in ten is under the default share but within a
		// looser one.
		{"tenth odd, default", nodeJobs(240, 30, 6, 10, 12, 14, 18, 22, 26, 30, 34, 3), 0, "nodes: one processor each", 0.95},
		{"tenth odd, looser", nodeJobs(240, 30, 6, 10, 12, 14, 18, 22, 26, 30, 34, 3), 2, "", 0.9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := Defaults()
			opt.NodeMinShare = tc.share
			r, err := Infer(tc.l, opt)
			if err != nil {
				t.Fatal(err)
			}
			if r.NodeSize != tc.want && !(tc.want == 0 && r.NodeSize == 0) {
				t.Fatalf("node size %d, want %d; notes %q", r.NodeSize, tc.want, r.Notes)
			}
			var out bytes.Buffer
			if err := r.WriteTOML(&out, "nodes.swf"); err != nil {
				t.Fatal(err)
			}
			var sc struct {
				Procs   int `toml:"procs"`
				Cluster struct {
					Select string `toml:"select"`
					Groups []struct {
						Count int `toml:"count"`
						Cores int `toml:"cores"`
					} `toml:"groups"`
				} `toml:"cluster"`
			}
			if _, err := toml.Decode(out.String(), &sc); err != nil {
				t.Fatalf("the scenario does not parse: %v\n%s", err, out.String())
			}
			if tc.want == 0 {
				if len(sc.Cluster.Groups) != 0 || sc.Procs != tc.l.Procs {
					t.Errorf("a cluster or another size without nodes: procs %d, %+v", sc.Procs, sc.Cluster)
				}
				if !strings.Contains(out.String(), tc.note) {
					t.Errorf("the scenario does not say %q:\n%s", tc.note, out.String())
				}
				return
			}
			if sc.Procs != 0 || sc.Cluster.Select != "linear" || len(sc.Cluster.Groups) != 1 ||
				sc.Cluster.Groups[0].Cores != tc.want || sc.Cluster.Groups[0].Count*tc.want != tc.l.Procs {
				t.Errorf("written: procs %d, cluster %+v; want %d nodes of %d and no procs key", sc.Procs, sc.Cluster, tc.l.Procs/tc.want, tc.want)
			}
		})
	}
}

// TestInferTimeSharing: jobs that overlap to twice the machine for most of
// the log show time sharing, and then neither an effective size nor nodes
// are inferred, however the counts look.
func TestInferTimeSharing(t *testing.T) {
	l := &Log{Procs: 64, Name: "shared.swf", Zone: time.UTC}
	id := int64(0)
	for k := range 400 {
		at := workload.Time(k) * 3600
		for _, s := range []int{64, 64, 6, 10, 1} {
			id++
			// Each job runs 3 h: the machine holds two to three
			// times its processors at every instant.
			l.Jobs = append(l.Jobs, Job{ID: id, Submit: at, Start: at + 60, End: at + 60 + 3*3600, Procs: s, ReqTime: 4 * 3600, User: int(id % 5), Queue: 1})
		}
	}
	r, err := Infer(l, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimeShared || r.NodeSize != 0 || r.Procs != 64 {
		t.Errorf("time shared %v, node size %d, procs %d; want time sharing, no nodes, 64", r.TimeShared, r.NodeSize, r.Procs)
	}
	var out bytes.Buffer
	if err := r.WriteTOML(&out, "shared.swf"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "time sharing: the recorded jobs held more than the machine's 64 processors") {
		t.Errorf("the scenario does not say the machine time-shared:\n%s", out.String())
	}
	opt := Defaults()
	opt.TimeShareFrac = 1.01 // never
	if r2, _ := Infer(l, opt); r2.TimeShared || r2.NodeSize != 2 {
		t.Errorf("--time-share above 1: time shared %v, node size %d; want no time sharing and nodes of 2", r2.TimeShared, r2.NodeSize)
	}
}

// TestInferQueueWindow: queue 2's jobs start only from 18:00 to 06:00 UTC
// (19:00 to 07:00 on the log's standard time), queue 1's at any hour: a
// start window for queue 2 alone is found in the day hours, and none for
// every job.
func TestInferQueueWindow(t *testing.T) {
	l := synthLog(t, plant{nightQueue: 2}, 6)
	r, err := Infer(l, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := r.WriteTOML(&out, "synthetic.swf"); err != nil {
		t.Fatal(err)
	}
	covered := map[int]bool{}
	for _, w := range r.Windows {
		if w.Queue != 2 {
			t.Errorf("a window not planted: %+v", w)
			continue
		}
		if w.Days != "Mon-Fri" {
			continue
		}
		for h := w.FromHour; h != w.ToHour; h = (h + 1) % 24 {
			covered[h] = true
		}
	}
	// The weekday hours well inside the day (their local time on the
	// log's clock, whichever of its two the drains chose) are held.
	for h := 9; h < 17; h++ {
		if !covered[h] {
			t.Errorf("weekdays %02d:00: no window for queue 2; windows %+v\n%s", h, r.Windows, out.String())
		}
	}
	for h := 21; h < 24; h++ {
		if covered[h] {
			t.Errorf("weekdays %02d:00: a window for queue 2 in its open hours", h)
		}
	}
	if !strings.Contains(out.String(), "[[start_window]]\nqueue = 2\n") {
		t.Errorf("the scenario does not write queue = 2:\n%s", out.String())
	}
	checkTOML(t, out.Bytes(), r)
	// Without the rule, no window.
	if r0, _ := Infer(synthLog(t, plant{}, 6), Defaults()); len(r0.Windows) != 0 {
		t.Errorf("windows without any planted: %+v", r0.Windows)
	}
}

// TestNodeEventsOnInferredNodes: with nodes of 2 inferred, the node
// events hold whole nodes of the cluster the scenario writes (5 processors
// out of service take 3 nodes), numbered from the last.
func TestNodeEventsOnInferredNodes(t *testing.T) {
	l := &Log{Procs: 240, Name: "n.swf", Zone: time.UTC, Jobs: []Job{{ID: 1, Start: 0, End: 1000, Procs: 2}}}
	r := &Result{Log: l, Procs: 240, NodeSize: 2, Nodes: 120,
		Capacity: []Reservation{{Start: 100, DurationSec: 300, Recur: "once", Procs: 5}},
		Outages:  []Reservation{{Start: 200, DurationSec: 50, Recur: "once"}}}
	var b bytes.Buffer
	if err := r.WriteNodeEvents(&b); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(b.String(), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			got = append(got, line)
		}
	}
	want := []string{"100 DRAIN 117-119 reserved (inferred)", "200 DRAIN 0-116 reserved (inferred)", "250 RESUME 0-116 reservation over", "400 RESUME 117-119 reservation over"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("node events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(b.String(), "cluster of 120 nodes of 2 processors") {
		t.Errorf("the header does not name the nodes:\n%s", b.String())
	}
}
