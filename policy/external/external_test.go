package external_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/external"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// The test binary doubles as the policy programs of the tests: run with
// SCHEDSIM_FAKE_POLICY=MODE it speaks the protocol as MODE says (see
// fakePolicy) instead of running the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("SCHEDSIM_FAKE_POLICY"); mode != "" {
		os.Exit(fakePolicy(mode))
	}
	os.Exit(m.Run())
}

// fakeCommand is the command line of the fake policy in mode.
func fakeCommand(mode string) string {
	return "SCHEDSIM_FAKE_POLICY=" + mode + " exec '" + os.Args[0] + "'"
}

// fakeAnswers are the fake policies: for each pass (1, 2, …) and its
// message, the answer line to write; "" answers like FCFS. "EXIT n" exits
// with status n, "HANG" reads on without answering, "RAW s" writes s
// without a newline and exits.
var fakeAnswers = map[string]func(pass int, msg string) string{
	"fcfs":        func(int, string) string { return "" },
	"malformed":   func(int, string) string { return `{"start":[0` },
	"notobject":   func(int, string) string { return `start 0` },
	"stringid":    func(int, string) string { return `{"start":["0"]}` },
	"unknownkey":  func(int, string) string { return `{"starts":[0]}` },
	"twovalues":   func(int, string) string { return `{} {}` },
	"floatwake":   func(int, string) string { return `{"wake":1.5}` },
	"unknownjob":  func(int, string) string { return `{"start":[7]}` },
	"twice":       func(int, string) string { return `{"start":[0,0]}` },
	"nofit":       func(int, string) string { return `{"start":[0,1]}` },
	"wakenow":     func(int, string) string { return `{"wake":0}` },
	"reserveunkn": func(int, string) string { return `{"reserve":[{"id":9,"at":5}]}` },
	"exit":        func(int, string) string { return "EXIT 3" },
	"quietneg":    func(int, string) string { return `{"quiet":{"procs":-1}}` },
	"hang":        func(int, string) string { return "HANG" },
	"nonewline":   func(int, string) string { return "RAW {" },
	"strand":      func(int, string) string { return "{}" },
	"reservepast": func(pass int, _ string) string {
		if pass == 1 {
			return `{"start":[0],"reserve":[{"id":1,"at":100}]}`
		}
		return `{"reserve":[{"id":1,"at":40}]}`
	},
	"quietwake": func(pass int, _ string) string {
		switch pass {
		case 1:
			return `{"start":[0],"wake":30,"quiet":{"procs":0}}`
		case 2:
			return `{"start":[2]}`
		}
		return `{"start":[1]}`
	},
	"quiet": func(pass int, _ string) string {
		if pass == 1 {
			return `{"start":[0],"quiet":{"procs":0}}`
		}
		return `{"start":[1,2]}`
	},
	"quietlets": func(pass int, _ string) string {
		switch pass {
		case 1:
			return `{"start":[0],"quiet":{"procs":2,"until":60}}`
		case 2:
			return `{"start":[2]}`
		}
		return `{"start":[1]}`
	},
	"broken": func(pass int, _ string) string {
		switch pass {
		case 1:
			return `{"start":[0],"reserve":[{"id":1,"at":60}]}`
		case 2:
			return `{}`
		}
		return `{"start":[1]}`
	},
}

// fakePolicy speaks the protocol on standard input and output in mode
// and returns the exit status. Modes badversion and nothello answer the
// hello wrongly; startall starts every job it is told of at once, finding
// the ids without decoding the JSON (the no-op scheduler of
// BenchmarkProtocolPass); the others are fakeAnswers.
func fakePolicy(mode string) int {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriter(os.Stdout)
	hello, err := in.ReadString('\n')
	if err != nil {
		return 1
	}
	_ = hello
	switch mode {
	case "badversion":
		fmt.Fprintln(out, `{"type":"hello","protocol":"schedsim-policy/0","name":"x"}`)
	case "nothello":
		fmt.Fprintln(out, `{}`)
	default:
		fmt.Fprintln(out, `{"type":"hello","protocol":"schedsim-policy/1","name":"`+mode+`"}`)
	}
	out.Flush()
	var fcfs fakeFCFS
	var ids []byte
	for pass := 1; ; pass++ {
		line, err := in.ReadSlice('\n')
		if err != nil || bytes.HasPrefix(line, []byte(`{"type":"end"`)) {
			return 0
		}
		if mode == "startall" {
			ids = appendIDs(ids[:0], line)
			out.WriteString(`{"start":[`)
			out.Write(ids)
			out.WriteString("]}\n")
			out.Flush()
			continue
		}
		f := fakeAnswers[mode]
		if f == nil {
			fmt.Fprintf(os.Stderr, "no fake policy %q\n", mode)
			return 1
		}
		a := f(pass, string(line))
		switch {
		case a == "":
			a = fcfs.answer(line)
		case strings.HasPrefix(a, "EXIT "):
			n, _ := strconv.Atoi(a[5:])
			return n
		case a == "HANG":
			for {
				if _, err := in.ReadSlice('\n'); err != nil {
					return 0
				}
			}
		case strings.HasPrefix(a, "RAW "):
			out.WriteString(a[4:])
			out.Flush()
			return 0
		}
		out.WriteString(a + "\n")
		out.Flush()
	}
}

// appendIDs appends the ids of the submitted jobs of a pass message,
// comma-separated, to b.
func appendIDs(b, msg []byte) []byte {
	i := bytes.Index(msg, []byte(`"submitted":[`))
	end := bytes.Index(msg, []byte(`"ended":[`))
	if i < 0 || end < 0 {
		return b
	}
	sub := msg[i:end]
	first := true
	for {
		k := bytes.Index(sub, []byte(`{"id":`))
		if k < 0 {
			return b
		}
		sub = sub[k+6:]
		e := bytes.IndexByte(sub, ',')
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, sub[:e]...)
	}
}

// fakeFCFS is FCFS over the protocol, decoding every message.
type fakeFCFS struct {
	queue []fakeJob
}

type fakeJob struct {
	ID    int64 `json:"id"`
	Procs int   `json:"procs"`
}

func (f *fakeFCFS) answer(line []byte) string {
	var m struct {
		Free      int       `json:"free"`
		Submitted []fakeJob `json:"submitted"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return "EXIT 9"
	}
	for _, j := range m.Submitted {
		// In submission order, as the engine's queue: a job released from
		// its hold goes before the jobs submitted after it.
		k := len(f.queue)
		for k > 0 && f.queue[k-1].ID > j.ID {
			k--
		}
		f.queue = slices.Insert(f.queue, k, j)
	}
	var start []string
	free := m.Free
	for len(f.queue) > 0 && f.queue[0].Procs <= free {
		free -= f.queue[0].Procs
		start = append(start, strconv.FormatInt(f.queue[0].ID, 10))
		f.queue = f.queue[1:]
	}
	if len(start) == 0 {
		return "{}"
	}
	return `{"start":[` + strings.Join(start, ",") + "]}"
}

// errorJobs is the trace of the error tests, on 10 processors: two jobs of
// 8 processors at 0 (for 100 s), one of 2 at 50 (for 10 s).
var errorJobs = []workload.Job{
	{Seq: 0, ID: 1, Submit: 0, Procs: 8, Run: 100, Estimate: 100, User: 1},
	{Seq: 1, ID: 2, Submit: 0, Procs: 8, Run: 100, Estimate: 100, User: 2},
	{Seq: 2, ID: 3, Submit: 50, Procs: 2, Run: 10, Estimate: 10, User: 1},
}

// runExternal replays jobs on procs processors under the external policy
// c and returns the outcomes and the run's error.
func runExternal(t testing.TB, c external.Config, jobs []workload.Job, procs int) ([]sim.Outcome, *external.Policy, error) {
	t.Helper()
	p, err := external.New(c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	eng, err := sim.New(sim.Config{Procs: procs, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	col := &sim.Collector{}
	_, err = eng.Run(&simtest.Source{Jobs: jobs}, col)
	return col.Outcomes, p, err
}

// pass1 is the first pass message of errorJobs.
const pass1 = `{"type":"pass","pass":1,"time":0,"free":10,"capacity":10,"queued":2,"running":0,"submitted":[{"id":0,"job":1,"submit":0,"procs":8,"requested":100,"user":1,"group":0,"queue":0,"partition":0},{"id":1,"job":2,"submit":0,"procs":8,"requested":100,"user":2,"group":0,"queue":0,"partition":0}],"ended":[]}`

// TestErrors: every kind of protocol error stops the run with its exact
// message, naming the pass, the simulated time and the offending line.
func TestErrors(t *testing.T) {
	unanswered := "; unanswered: " + pass1
	tests := []struct {
		mode    string
		timeout time.Duration
		want    string
	}{
		{"badversion", 0, `external policy: handshake: protocol "schedsim-policy/0", want "schedsim-policy/1"; line: {"type":"hello","protocol":"schedsim-policy/0","name":"x"}`},
		{"nothello", 0, `external policy: handshake: type "", want "hello"; line: {}`},
		{"malformed", 0, `external policy: pass 1 at time 0: malformed JSON: the object is not closed; line: {"start":[0`},
		{"notobject", 0, `external policy: pass 1 at time 0: not a JSON object; line: start 0`},
		{"stringid", 0, `external policy: pass 1 at time 0: field start: string where an integer is wanted; line: {"start":["0"]}`},
		{"unknownkey", 0, `external policy: pass 1 at time 0: unknown key "starts" (an answer has start, reserve, wake and quiet; a hello has type, protocol, name, fields and rows); line: {"starts":[0]}`},
		{"twovalues", 0, `external policy: pass 1 at time 0: more than one JSON value on the line; line: {} {}`},
		{"floatwake", 0, `external policy: pass 1 at time 0: field wake: number 1.5 where an integer is wanted; line: {"wake":1.5}`},
		{"unknownjob", 0, `external policy: pass 1 at time 0: start: job 7 is not queued (no job with this id was submitted, or it has ended); line: {"start":[7]}`},
		{"twice", 0, `external policy: pass 1 at time 0: start: job 0 has already started; line: {"start":[0,0]}`},
		{"nofit", 0, `external policy: pass 1 at time 0: start: job 1 needs 8 processors, 2 are free; line: {"start":[0,1]}`},
		{"wakenow", 0, `external policy: pass 1 at time 0: wake: 0 is not after now; line: {"wake":0}`},
		{"reserveunkn", 0, `external policy: pass 1 at time 0: reserve: job 9 is not queued; line: {"reserve":[{"id":9,"at":5}]}`},
		{"reservepast", 0, `external policy: pass 2 at time 50: reserve: job 1 at 40, before now; line: {"reserve":[{"id":1,"at":40}]}`},
		{"broken", 0, `external policy: pass 3 at time 100: start: job 1 starts after the time reserved for it, 60; line: {"start":[1]}`},
		{"quietneg", 0, `external policy: pass 1 at time 0: quiet: procs -1 and extra 0: want counts ≥ 0; line: {"quiet":{"procs":-1}}`},
		{"exit", 0, `external policy: pass 1 at time 0: the policy exited with status 3 without answering` + unanswered},
		{"hang", 300 * time.Millisecond, `external policy: pass 1 at time 0: no answer within 300ms` + unanswered},
		{"nonewline", 0, `external policy: pass 1 at time 0: the policy's output ends without a newline; line: {`},
		{"strand", 0, `external policy: pass 2 at time 50: the run ends with 3 jobs queued that the policy did not start, with nothing running, no job left to submit and no wake-up asked for (a policy must start a job that fits the free processors, or ask to be woken)`},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			_, _, err := runExternal(t, external.Config{Command: fakeCommand(tt.mode), Timeout: tt.timeout}, errorJobs, 10)
			var xe *external.Error
			if !errors.As(err, &xe) {
				t.Fatalf("error %v (%T), want an *external.Error", err, err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestStartFailure: a command the shell cannot run is an error at the
// handshake, with the shell's status.
func TestStartFailure(t *testing.T) {
	_, _, err := runExternal(t, external.Config{Command: "/nonexistent/policy", Stderr: new(bytes.Buffer)}, errorJobs, 10)
	want := `external policy: handshake: the policy exited with status 127 without answering; unanswered: {"type":"hello","protocol":"schedsim-policy/1","machine":{"procs":10}}`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// cancelOnPass cancels a context when the first pass message is logged.
type cancelOnPass struct {
	mu     sync.Mutex
	cancel context.CancelFunc
}

func (c *cancelOnPass) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.HasPrefix(b, []byte(`{"type":"pass"`)) {
		c.cancel()
	}
	return len(b), nil
}

// TestInterrupt: cancelling the context while the program thinks stops
// the run at once (the program is killed) with the context's error; a
// context cancelled before the run starts no program.
func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := external.Config{Command: fakeCommand("hang"), Timeout: time.Hour, Context: ctx, Log: &cancelOnPass{cancel: cancel}}
	_, _, err := runExternal(t, c, errorJobs, 10)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want one wrapping context.Canceled", err)
	}
	if want := "external policy: pass 1 at time 0: interrupted"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	_, _, err = runExternal(t, external.Config{Command: fakeCommand("fcfs"), Context: ctx}, errorJobs, 10)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want one wrapping context.Canceled", err)
	}
}

// TestFCFSOverProtocol: FCFS over the protocol gives the built-in FCFS's
// schedule, and the same bytes of log twice (determinism).
func TestFCFSOverProtocol(t *testing.T) {
	jobs := randomJobs(1, 300, 64)
	var logs [2]bytes.Buffer
	for k := range logs {
		got, p, err := runExternal(t, external.Config{Command: fakeCommand("fcfs"), Log: &logs[k]}, jobs, 64)
		if err != nil {
			t.Fatal(err)
		}
		if p.Name() != "external(fcfs)" {
			t.Errorf("name %q", p.Name())
		}
		want := builtin(t, policy.FCFS{}, jobs, 64)
		if len(got) != len(want) {
			t.Fatalf("%d outcomes, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i].Job.ID != want[i].Job.ID || got[i].Start != want[i].Start {
				t.Fatalf("outcome %d: job %d at %d, built-in FCFS: job %d at %d", i, got[i].Job.ID, got[i].Start, want[i].Job.ID, want[i].Start)
			}
		}
	}
	if !bytes.Equal(logs[0].Bytes(), logs[1].Bytes()) {
		t.Error("two runs logged different messages")
	}
	if !bytes.HasPrefix(logs[0].Bytes(), []byte("> {\"type\":\"hello\",\"protocol\":\"schedsim-policy/1\",\"machine\":{\"procs\":64}}\n< {\"type\":\"hello\",\"protocol\":\"schedsim-policy/1\",\"name\":\"fcfs\"}\n> {\"type\":\"pass\",\"pass\":1,")) {
		t.Errorf("log starts %q", logs[0].Bytes()[:200])
	}
	if !bytes.Contains(logs[0].Bytes(), []byte("> {\"type\":\"end\",")) {
		t.Error("no end message in the log")
	}
}

// builtin replays jobs under a built-in policy.
func builtin(t testing.TB, p policy.Policy, jobs []workload.Job, procs int) []sim.Outcome {
	t.Helper()
	eng, err := sim.New(sim.Config{Procs: procs, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	col := &sim.Collector{}
	if _, err := eng.Run(&simtest.Source{Jobs: jobs}, col); err != nil {
		t.Fatal(err)
	}
	return col.Outcomes
}

// randomJobs returns n jobs for a machine of procs processors, seeded:
// bursts of submissions, run times shorter than or equal to their
// requests.
func randomJobs(seed uint64, n, procs int) []workload.Job {
	r := rand.New(rand.NewPCG(seed, 25))
	jobs := make([]workload.Job, n)
	var t workload.Time
	for i := range jobs {
		if r.IntN(3) > 0 {
			t += workload.Time(r.IntN(600))
		}
		est := workload.Time(1 + r.IntN(7200))
		jobs[i] = workload.Job{Seq: int64(i), ID: int64(i + 1), Submit: t, Procs: 1 + r.IntN(procs), Estimate: est,
			Run: workload.Time(1 + r.Int64N(int64(est))), User: r.IntN(10)}
	}
	return jobs
}

// TestFields: a hello that names job fields gets those only; an unknown
// field is a handshake error.
func TestFields(t *testing.T) {
	cmd := `read l; echo '{"type":"hello","protocol":"schedsim-policy/1","fields":["procs"]}'; read l; echo '{"start":[0]}'; read l; echo '{"start":[1]}'; cat >/dev/null`
	var log bytes.Buffer
	_, _, err := runExternal(t, external.Config{Command: cmd, Log: &log}, errorJobs[:2], 16)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"submitted":[{"id":0,"procs":8},{"id":1,"procs":8}]`; !strings.Contains(log.String(), want) {
		t.Errorf("log lacks %s:\n%s", want, log.String())
	}
	cmd = `read l; echo '{"type":"hello","protocol":"schedsim-policy/1","fields":["procs","size"]}'`
	_, _, err = runExternal(t, external.Config{Command: cmd}, errorJobs, 10)
	want := `external policy: handshake: fields: unknown job field "size" (the fields are job, submit, procs, requested, user, group, queue, partition); line: {"type":"hello","protocol":"schedsim-policy/1","fields":["procs","size"]}`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// TestRows: a hello with rows gets the jobs of pass and end messages as
// arrays (the fields it asked for, in the order of the objects' keys), the
// rest of the messages unchanged; rows must be true or false.
func TestRows(t *testing.T) {
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 8, Run: 100, Estimate: 100, User: 1},
		{Seq: 1, ID: 2, Submit: 20, Procs: 4, Run: 40, Estimate: 30, User: 2, Group: 5, Queue: 1, Partition: 2},
		{Seq: 2, ID: 3, Submit: 70, Procs: 10, Run: 10, Estimate: 0, User: 1},
	}
	answers := `read l; echo '{"start":[0]}'; read l; echo '{"start":[1]}'; read l; echo '{"start":[2]}'; cat >/dev/null`
	tests := []struct {
		name, hello string
		want        []string // the messages schedsim sent after its hello
	}{
		{"fields", `{"type":"hello","protocol":"schedsim-policy/1","fields":["requested","procs"],"rows":true}`, []string{
			`{"type":"pass","pass":1,"time":0,"free":10,"capacity":10,"queued":1,"running":0,"submitted":[[0,8,100]],"ended":[]}`,
			`{"type":"pass","pass":2,"time":100,"free":10,"capacity":10,"queued":2,"running":0,"submitted":[[1,4,30],[2,10,0]],"ended":[[0,0,100,8,false]]}`,
			`{"type":"pass","pass":3,"time":130,"free":10,"capacity":10,"queued":1,"running":0,"submitted":[],"ended":[[1,100,130,4,true]]}`,
			`{"type":"end","time":140,"passes":3,"ended":[[2,130,140,10,false]]}`,
		}},
		{"all", `{"type":"hello","protocol":"schedsim-policy/1","rows":true}`, []string{
			`{"type":"pass","pass":1,"time":0,"free":10,"capacity":10,"queued":1,"running":0,"submitted":[[0,1,0,8,100,1,0,0,0]],"ended":[]}`,
			`{"type":"pass","pass":2,"time":100,"free":10,"capacity":10,"queued":2,"running":0,"submitted":[[1,2,20,4,30,2,5,1,2],[2,3,70,10,0,1,0,0,0]],"ended":[[0,0,100,8,false]]}`,
			`{"type":"pass","pass":3,"time":130,"free":10,"capacity":10,"queued":1,"running":0,"submitted":[],"ended":[[1,100,130,4,true]]}`,
			`{"type":"end","time":140,"passes":3,"ended":[[2,130,140,10,false]]}`,
		}},
		{"off", `{"type":"hello","protocol":"schedsim-policy/1","fields":["procs"],"rows":false}`, []string{
			`{"type":"pass","pass":1,"time":0,"free":10,"capacity":10,"queued":1,"running":0,"submitted":[{"id":0,"procs":8}],"ended":[]}`,
			`{"type":"pass","pass":2,"time":100,"free":10,"capacity":10,"queued":2,"running":0,"submitted":[{"id":1,"procs":4},{"id":2,"procs":10}],"ended":[{"id":0,"start":0,"end":100,"procs":8,"killed":false}]}`,
			`{"type":"pass","pass":3,"time":130,"free":10,"capacity":10,"queued":1,"running":0,"submitted":[],"ended":[{"id":1,"start":100,"end":130,"procs":4,"killed":true}]}`,
			`{"type":"end","time":140,"passes":3,"ended":[{"id":2,"start":130,"end":140,"procs":10,"killed":false}]}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			cmd := `read l; echo '` + tt.hello + `'; ` + answers
			if _, _, err := runExternal(t, external.Config{Command: cmd, Log: &log}, jobs, 10); err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			var sent []string
			for _, l := range strings.Split(log.String(), "\n") {
				if m, ok := strings.CutPrefix(l, "> "); ok && !strings.Contains(m, `"type":"hello"`) {
					sent = append(sent, m)
				}
			}
			if !slices.Equal(sent, tt.want) {
				t.Errorf("sent\n%s\nwant\n%s", strings.Join(sent, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	cmd := `read l; echo '{"type":"hello","protocol":"schedsim-policy/1","rows":"yes"}'`
	_, _, err := runExternal(t, external.Config{Command: cmd}, jobs, 10)
	want := `external policy: handshake: field rows: string where true or false is wanted; line: {"type":"hello","protocol":"schedsim-policy/1","rows":"yes"}`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// TestHolds: a job released from its hold joins the queue before the jobs
// submitted after it; the policy is told of it all the same (the whole
// queue is looked through then), and FCFS over the protocol is still the
// built-in FCFS.
func TestHolds(t *testing.T) {
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 8, Run: 100, Estimate: 100},
		{Seq: 1, ID: 2, Submit: 0, Procs: 2, Run: 30, Estimate: 30, HoldUntil: 50},
		{Seq: 2, ID: 3, Submit: 10, Procs: 4, Run: 10, Estimate: 10},
		{Seq: 3, ID: 4, Submit: 60, Procs: 4, Run: 10, Estimate: 10},
	}
	var log bytes.Buffer
	got, _, err := runExternal(t, external.Config{Command: fakeCommand("fcfs"), Log: &log}, jobs, 10)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	want := builtin(t, policy.FCFS{}, jobs, 10)
	starts := func(o []sim.Outcome) map[int64]workload.Time {
		m := map[int64]workload.Time{}
		for _, x := range o {
			m[x.Job.ID] = x.Start
		}
		return m
	}
	if g, w := starts(got), starts(want); !maps.Equal(g, w) {
		t.Errorf("starts %v, built-in FCFS %v\n%s", g, w, log.String())
	}
	if !strings.Contains(log.String(), `{"id":1,"job":2,"submit":0,"procs":2,`) {
		t.Errorf("the held job was never sent:\n%s", log.String())
	}
}

// TestQuiet: an answer's quiet spares the calls for submissions that could
// not make the policy act, until a job ends or a wake-up falls due.
func TestQuiet(t *testing.T) {
	tests := []struct {
		mode, second string // the second pass's time
	}{
		{"quiet", `"pass":2,"time":100,`},    // job 3 (2 procs at 50) cannot make it act: the end at 100 calls
		{"quietwake", `"pass":2,"time":50,`}, // the wake-up at 30 fell due (nothing fitted then): job 3 calls
		{"quietlets", `"pass":2,"time":50,`}, // job 3 is one it said could: it calls
	}
	for _, tt := range tests {
		var log bytes.Buffer
		_, _, err := runExternal(t, external.Config{Command: fakeCommand(tt.mode), Log: &log}, errorJobs, 10)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.mode, err, log.String())
		}
		if !strings.Contains(log.String(), tt.second) {
			t.Errorf("%s: no %s in the log:\n%s", tt.mode, tt.second, log.String())
		}
	}
}
