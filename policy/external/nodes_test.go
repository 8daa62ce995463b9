package external_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy/external"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// sentMessages returns the messages schedsim sent in a policy log, the
// "> " taken off.
func sentMessages(log string) []string {
	var sent []string
	for _, l := range strings.Split(log, "\n") {
		if m, ok := strings.CutPrefix(l, "> "); ok {
			sent = append(sent, m)
		}
	}
	return sent
}

// TestNodeEventMessages: on a run with node events, schedsim's hello says
// so; a policy that asks (node_events in its hello) gets the events with
// the jobs a DOWN stopped, and the running jobs whose processors given
// back change as their nodes drain and resume; one that does not ask gets
// the messages of a run without them (the capacity changes, a stopped job
// ends, not killed, and a requeued one is submitted again).
func TestNodeEventMessages(t *testing.T) {
	// 4 nodes of 1 processor. Job 0 runs on processors 0-1, job 1 on 2-3;
	// node 0 goes down at 50, node 3 drains at 60, both resume at 80.
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 2, Run: 100, Estimate: 100},
		{Seq: 1, ID: 2, Submit: 0, Procs: 2, Run: 100, Estimate: 200},
		{Seq: 2, ID: 3, Submit: 10, Procs: 1, Run: 10, Estimate: 20},
		{Seq: 3, ID: 4, Submit: 70, Procs: 1, Run: 5, Estimate: 5},
		{Seq: 4, ID: 5, Submit: 75, Procs: 4, Run: 5, Estimate: 5},
	}
	events := []cluster.NodeEvent{
		{At: 50, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 0, Hi: 1}}, Reason: "fan"},
		{At: 60, State: cluster.NodeDrain, Nodes: []cluster.Range{{Lo: 3, Hi: 4}}},
		{At: 80, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 0, Hi: 1}, {Lo: 3, Hi: 4}}},
	}
	const hello = `{"type":"hello","protocol":"schedsim-policy/1","machine":{"procs":4,"node_events":true}}`
	tests := []struct {
		name, hello string
		action      sim.NodeFailAction
		answers     []string
		want        []string
	}{
		{"asked/kill", `{"type":"hello","protocol":"schedsim-policy/1","fields":["procs"],"node_events":true}`, sim.NodeFailKill,
			[]string{`{"start":[0,1]}`, `{"start":[2]}`, `{"start":[3]}`, `{"start":[4]}`}, []string{
				hello,
				`{"type":"pass","pass":1,"time":0,"free":4,"capacity":4,"queued":2,"running":0,"submitted":[{"id":0,"procs":2},{"id":1,"procs":2}],"ended":[]}`,
				`{"type":"pass","pass":2,"time":50,"free":1,"capacity":3,"queued":1,"running":1,"submitted":[{"id":2,"procs":1}],"ended":[{"id":0,"start":0,"end":50,"procs":2,"killed":false}],"node_events":[{"time":50,"state":"down","nodes":[[0,0]],"reason":"fan","stopped":[0],"requeued":false}]}`,
				`{"type":"pass","pass":3,"time":70,"free":1,"capacity":2,"queued":1,"running":1,"submitted":[{"id":3,"procs":1}],"ended":[{"id":2,"start":50,"end":60,"procs":1,"killed":false}],"node_events":[{"time":60,"state":"drain","nodes":[[3,3]],"reason":""}],"back":[[1,1]]}`,
				`{"type":"pass","pass":4,"time":100,"free":4,"capacity":4,"queued":1,"running":0,"submitted":[{"id":4,"procs":4}],"ended":[{"id":3,"start":70,"end":75,"procs":1,"killed":false},{"id":1,"start":0,"end":100,"procs":2,"killed":false}],"node_events":[{"time":80,"state":"resume","nodes":[[0,0],[3,3]],"reason":""}]}`,
				`{"type":"end","time":105,"passes":4,"ended":[{"id":4,"start":100,"end":105,"procs":4,"killed":false}]}`,
			}},
		{"asked/requeue", `{"type":"hello","protocol":"schedsim-policy/1","fields":["procs"],"rows":true,"node_events":true}`, sim.NodeFailRequeue,
			[]string{`{"start":[0,1]}`, `{"start":[2]}`, `{"start":[3]}`, `{"start":[0]}`, `{"start":[4]}`}, []string{
				hello,
				`{"type":"pass","pass":1,"time":0,"free":4,"capacity":4,"queued":2,"running":0,"submitted":[[0,2],[1,2]],"ended":[]}`,
				`{"type":"pass","pass":2,"time":50,"free":1,"capacity":3,"queued":2,"running":1,"submitted":[[2,1],[0,2]],"ended":[[0,0,50,2,false]],"node_events":[{"time":50,"state":"down","nodes":[[0,0]],"reason":"fan","stopped":[0],"requeued":true}]}`,
				`{"type":"pass","pass":3,"time":70,"free":1,"capacity":2,"queued":2,"running":1,"submitted":[[3,1]],"ended":[[2,50,60,1,false]],"node_events":[{"time":60,"state":"drain","nodes":[[3,3]],"reason":""}],"back":[[1,1]]}`,
				`{"type":"pass","pass":4,"time":80,"free":2,"capacity":4,"queued":2,"running":1,"submitted":[[4,4]],"ended":[[3,70,75,1,false]],"node_events":[{"time":80,"state":"resume","nodes":[[0,0],[3,3]],"reason":""}],"back":[[1,2]]}`,
				`{"type":"pass","pass":5,"time":180,"free":4,"capacity":4,"queued":1,"running":0,"submitted":[],"ended":[[1,0,100,2,false],[0,80,180,2,false]]}`,
				`{"type":"end","time":185,"passes":5,"ended":[[4,180,185,4,false]]}`,
			}},
		{"not asked/requeue", `{"type":"hello","protocol":"schedsim-policy/1","fields":["procs"]}`, sim.NodeFailRequeue,
			[]string{`{"start":[0,1]}`, `{"start":[2]}`, `{"start":[3]}`, `{"start":[0]}`, `{"start":[4]}`}, []string{
				hello,
				`{"type":"pass","pass":1,"time":0,"free":4,"capacity":4,"queued":2,"running":0,"submitted":[{"id":0,"procs":2},{"id":1,"procs":2}],"ended":[]}`,
				`{"type":"pass","pass":2,"time":50,"free":1,"capacity":3,"queued":2,"running":1,"submitted":[{"id":2,"procs":1},{"id":0,"procs":2}],"ended":[{"id":0,"start":0,"end":50,"procs":2,"killed":false}]}`,
				`{"type":"pass","pass":3,"time":70,"free":1,"capacity":2,"queued":2,"running":1,"submitted":[{"id":3,"procs":1}],"ended":[{"id":2,"start":50,"end":60,"procs":1,"killed":false}]}`,
				`{"type":"pass","pass":4,"time":80,"free":2,"capacity":4,"queued":2,"running":1,"submitted":[{"id":4,"procs":4}],"ended":[{"id":3,"start":70,"end":75,"procs":1,"killed":false}]}`,
				`{"type":"pass","pass":5,"time":180,"free":4,"capacity":4,"queued":1,"running":0,"submitted":[],"ended":[{"id":1,"start":0,"end":100,"procs":2,"killed":false},{"id":0,"start":80,"end":180,"procs":2,"killed":false}]}`,
				`{"type":"end","time":185,"passes":5,"ended":[{"id":4,"start":180,"end":185,"procs":4,"killed":false}]}`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			cmd := `read l; echo '` + tt.hello + `'`
			for _, a := range tt.answers {
				cmd += `; read l; echo '` + a + `'`
			}
			cmd += `; cat >/dev/null`
			p, err := external.New(external.Config{Command: cmd, Log: &log, NodeEvents: true})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			eng, err := sim.New(sim.Config{Procs: 4, Policy: p, NodeEvents: events, OnNodeFail: tt.action})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := eng.Run(&simtest.Source{Jobs: jobs}, &sim.Collector{}); err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			p.Close()
			if got := sentMessages(log.String()); !slices.Equal(got, tt.want) {
				t.Errorf("sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestClusterMessages: on a cluster of nodes schedsim's hello describes
// the nodes and partitions; an answer with ask is followed by a fits
// message (which of the jobs asked about fit now, each on its own, once
// the answer's starts are applied) and another answer; a policy that
// asked for placed learns where each started job went and what it holds;
// a start that does not fit the nodes, though enough processors are free,
// is refused with its reason.
func TestClusterMessages(t *testing.T) {
	// Node 0 (group a, partition pa) and node 1 (group b, partition pb),
	// 2 cores each, whole nodes allocated.
	spec := &cluster.Spec{Select: cluster.SelectLinear,
		Groups: []cluster.NodeGroup{{Name: "a", Count: 1, Cores: 2}, {Name: "b", Count: 1, Cores: 2}},
		Partitions: []cluster.Partition{
			{Name: "pa", Groups: []string{"a"}, MaxTime: 1000, Default: true},
			{Name: "pb", Groups: []string{"b"}},
		}}
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 2, Run: 100, Estimate: 100, Partition: 1},
		{Seq: 1, ID: 2, Submit: 0, Procs: 2, Run: 100, Estimate: 100, Partition: 1},
		{Seq: 2, ID: 3, Submit: 0, Procs: 1, Run: 50, Estimate: 60, Partition: 2},
	}
	const hello = `{"type":"hello","protocol":"schedsim-policy/1","machine":{"procs":4,"select":"linear","groups":[{"name":"a","first":0,"count":1,"cores":2,"memory_mb":0},{"name":"b","first":1,"count":1,"cores":2,"memory_mb":0}],"partitions":[{"name":"pa","swf":1,"groups":["a"],"max_time":1000,"default_time":0,"priority_tier":0,"default":true},{"name":"pb","swf":2,"groups":["b"],"max_time":0,"default_time":0,"priority_tier":0,"default":false}]}}`
	tests := []struct {
		name, hello string
		answers     []string
		want        []string
		err         string
	}{
		{"placed", `{"type":"hello","protocol":"schedsim-policy/1","fields":["procs"],"placed":true}`,
			[]string{`{"ask":[0,1,2]}`, `{"start":[0],"ask":[1,2]}`, `{"start":[2]}`, `{}`, `{"start":[1]}`}, []string{
				hello,
				`{"type":"pass","pass":1,"time":0,"free":4,"capacity":4,"queued":3,"running":0,"submitted":[{"id":0,"procs":2},{"id":1,"procs":2},{"id":2,"procs":1}],"ended":[]}`,
				`{"type":"fits","pass":1,"free":4,"fits":[0,1,2]}`,
				`{"type":"fits","pass":1,"free":2,"fits":[2],"placed":[[0,2,[[0,0]]]]}`,
				`{"type":"pass","pass":2,"time":50,"free":2,"capacity":4,"queued":1,"running":1,"submitted":[],"ended":[{"id":2,"start":0,"end":50,"procs":1,"killed":false}],"placed":[[2,2,[[1,1]]]]}`,
				`{"type":"pass","pass":3,"time":100,"free":4,"capacity":4,"queued":1,"running":0,"submitted":[],"ended":[{"id":0,"start":0,"end":100,"procs":2,"killed":false}]}`,
				`{"type":"end","time":200,"passes":3,"ended":[{"id":1,"start":100,"end":200,"procs":2,"killed":false}]}`,
			}, ""},
		{"not placed", `{"type":"hello","protocol":"schedsim-policy/1","fields":["procs"]}`,
			[]string{`{"start":[0],"ask":[1,2]}`, `{"start":[2]}`, `{}`, `{"start":[1]}`}, []string{
				hello,
				`{"type":"pass","pass":1,"time":0,"free":4,"capacity":4,"queued":3,"running":0,"submitted":[{"id":0,"procs":2},{"id":1,"procs":2},{"id":2,"procs":1}],"ended":[]}`,
				`{"type":"fits","pass":1,"free":2,"fits":[2]}`,
				`{"type":"pass","pass":2,"time":50,"free":2,"capacity":4,"queued":1,"running":1,"submitted":[],"ended":[{"id":2,"start":0,"end":50,"procs":1,"killed":false}]}`,
				`{"type":"pass","pass":3,"time":100,"free":4,"capacity":4,"queued":1,"running":0,"submitted":[],"ended":[{"id":0,"start":0,"end":100,"procs":2,"killed":false}]}`,
				`{"type":"end","time":200,"passes":3,"ended":[{"id":1,"start":100,"end":200,"procs":2,"killed":false}]}`,
			}, ""},
		{"no fit", `{"type":"hello","protocol":"schedsim-policy/1"}`,
			[]string{`{"start":[0,1]}`}, nil,
			`external policy: pass 1 at time 0: start: job 1 (2 processors) does not fit the nodes now (2 processors are free, but not on nodes it may use: ask schedsim with "ask"); line: {"start":[0,1]}`},
		{"ask unknown", `{"type":"hello","protocol":"schedsim-policy/1"}`,
			[]string{`{"ask":[7]}`}, nil,
			`external policy: pass 1 at time 0: ask: job 7 is not queued; line: {"ask":[7]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			cmd := `read l; echo '` + tt.hello + `'`
			for _, a := range tt.answers {
				cmd += `; read l; echo '` + a + `'`
			}
			cmd += `; cat >/dev/null`
			p, err := external.New(external.Config{Command: cmd, Log: &log})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			p.SetCluster(spec)
			eng, err := sim.New(sim.Config{Policy: p, Allocator: cluster.NewLinear(spec)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = eng.Run(&simtest.Source{Jobs: jobs}, &sim.Collector{})
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v\nwant %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			p.Close()
			if got := sentMessages(log.String()); !slices.Equal(got, tt.want) {
				t.Errorf("sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestCalendarMessages: under reservations, start windows and limits
// schedsim's hello says so (calendar); the policy sees every queued job,
// those a limit holds included; a fits message names the jobs asked about
// that the calendar holds, and why; a start the calendar forbids is
// refused with its reason.
func TestCalendarMessages(t *testing.T) {
	// 4 processors. A maintenance from 100 to 150 takes them all; user 1
	// may run one job at a time.
	cons := &sim.Constraints{
		Reservations: []sim.Reservation{{Name: "maint", Start: 100, Duration: 50, Until: workload.Forever, Maint: true}},
		Limits:       []sim.Limit{{Users: []int{1}, MaxJobsPerUser: 1}},
	}
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 1, Run: 50, Estimate: 60, User: 1},
		{Seq: 1, ID: 2, Submit: 0, Procs: 1, Run: 40, Estimate: 50, User: 1},
		{Seq: 2, ID: 3, Submit: 0, Procs: 1, Run: 50, Estimate: 200, User: 2},
		{Seq: 3, ID: 4, Submit: 0, Procs: 1, Run: 10, Estimate: 10, User: 3},
	}
	const hello = `{"type":"hello","protocol":"schedsim-policy/1","machine":{"procs":4,"calendar":true}}`
	tests := []struct {
		name    string
		answers []string
		want    []string
		err     string
	}{
		{"ask", []string{`{"start":[0],"ask":[1,2,3]}`, `{"start":[3]}`, `{}`, `{"start":[1]}`, `{}`, `{}`, `{"start":[2]}`}, []string{
			hello,
			`{"type":"pass","pass":1,"time":0,"free":4,"capacity":4,"queued":4,"running":0,"submitted":[{"id":0,"procs":1},{"id":1,"procs":1},{"id":2,"procs":1},{"id":3,"procs":1}],"ended":[]}`,
			`{"type":"fits","pass":1,"free":3,"fits":[3],"held":[[1,"limit"],[2,"reservation"]]}`,
			`{"type":"pass","pass":2,"time":10,"free":3,"capacity":4,"queued":2,"running":1,"submitted":[],"ended":[{"id":3,"start":0,"end":10,"procs":1,"killed":false}]}`,
			`{"type":"pass","pass":3,"time":50,"free":4,"capacity":4,"queued":2,"running":0,"submitted":[],"ended":[{"id":0,"start":0,"end":50,"procs":1,"killed":false}]}`,
			`{"type":"pass","pass":4,"time":90,"free":4,"capacity":4,"queued":1,"running":0,"submitted":[],"ended":[{"id":1,"start":50,"end":90,"procs":1,"killed":false}]}`,
			// The maintenance begins (a pass at the calendar's boundary) and ends.
			`{"type":"pass","pass":5,"time":100,"free":4,"capacity":4,"queued":1,"running":0,"submitted":[],"ended":[]}`,
			`{"type":"pass","pass":6,"time":150,"free":4,"capacity":4,"queued":1,"running":0,"submitted":[],"ended":[]}`,
			`{"type":"end","time":200,"passes":6,"ended":[{"id":2,"start":150,"end":200,"procs":1,"killed":false}]}`,
		}, ""},
		{"limit", []string{`{"start":[0,1]}`}, nil,
			`external policy: pass 1 at time 0: start: job 1 may not start now: a limit holds it ([[limit]]) (ask schedsim with "ask"); line: {"start":[0,1]}`},
		{"reservation", []string{`{"start":[2]}`}, nil,
			`external policy: pass 1 at time 0: start: job 2 may not start now: it would run into a reservation it may not use ([[reservation]]) (ask schedsim with "ask"); line: {"start":[2]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			cmd := `read l; echo '{"type":"hello","protocol":"schedsim-policy/1","fields":["procs"]}'`
			for _, a := range tt.answers {
				cmd += `; read l; echo '` + a + `'`
			}
			cmd += `; cat >/dev/null`
			p, err := external.New(external.Config{Command: cmd, Log: &log, Calendar: true})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			eng, err := sim.New(sim.Config{Procs: 4, Policy: p, Constraints: cons})
			if err != nil {
				t.Fatal(err)
			}
			_, err = eng.Run(&simtest.Source{Jobs: jobs}, &sim.Collector{})
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v\nwant %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			p.Close()
			if got := sentMessages(log.String()); !slices.Equal(got, tt.want) {
				t.Errorf("sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
