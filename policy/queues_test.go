package policy

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseQueueChange(t *testing.T) {
	cases := []struct {
		in   string
		want []QueueChange
		err  string
	}{
		{"2=deactivated@86400-172800", []QueueChange{{At: 86400, Queue: 2, State: Deactivated}, {At: 172800, Queue: 2, State: Activated}}, ""},
		{"0=disabled@1d", []QueueChange{{At: 86400, Queue: 0, State: Disabled}}, ""},
		{" 1 = activate @ 5m - 1h ", []QueueChange{{At: 300, Queue: 1, State: Activated}, {At: 3600, Queue: 1, State: Activated}}, ""},
		{"x=disabled@1", nil, "not a queue index"},
		{"1disabled@1", nil, "no '='"},
		{"1=disabled", nil, "no '@'"},
		{"1=paused@1", nil, "unknown state"},
		{"1=disabled@10-5", nil, "end not after start"},
		{"1=disabled@10-x", nil, "end"},
	}
	for _, c := range cases {
		got, err := ParseQueueChange(c.in, Activated)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want one containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestQueueMap(t *testing.T) {
	cases := []struct {
		spec string
		raw  []int
		want []int // with 3 queues
		err  string
	}{
		{"", []int{-1, 0, 1, 2, 3, 9}, []int{2, 0, 1, 2, 2, 2}, ""},
		{"1=0,2=1", []int{1, 2, 3, -1}, []int{0, 1, 2, 2}, ""},
		{"1=0,*=1", []int{1, 2, -1}, []int{0, 1, 1}, ""},
		{"*=0", []int{1, 7, -1}, []int{0, 0, 0}, ""},
		{"1=0,1=2", nil, nil, "mapped twice"},
		{"*=0,*=1", nil, nil, "* given twice"},
		{"1", nil, nil, "not FROM=TO"},
		{"a=1", nil, nil, "source"},
		{"1=-1", nil, nil, "target"},
	}
	for _, c := range cases {
		m, err := ParseQueueMap(c.spec)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want one containing %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.spec, err)
		}
		for i, raw := range c.raw {
			if got := m.QueueOf(raw, 3); got != c.want[i] {
				t.Errorf("%q: queue %d → %d, want %d", c.spec, raw, got, c.want[i])
			}
		}
	}
}

func TestParseMillis(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{{"5", 5, true}, {"5ms", 5, true}, {"2s", 2000, true}, {"1m", 60000, true}, {"", 0, false}, {"-1", 0, false}, {"1.5s", 0, false}, {"99999999999999s", 0, false}}
	for _, c := range cases {
		got, err := ParseMillis(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%q: %d, %v; want %d (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestParseQueueEnums(t *testing.T) {
	for _, s := range []QueueState{Activated, Deactivated, Disabled} {
		if got, err := ParseQueueState(s.String()); err != nil || got != s {
			t.Errorf("state %v: %v, %v", s, got, err)
		}
	}
	for _, m := range []QueueMode{Exclusive, Gang} {
		if got, err := ParseQueueMode(m.String()); err != nil || got != m {
			t.Errorf("mode %v: %v, %v", m, got, err)
		}
	}
	for _, m := range []PreemptMode{PreemptSuspend, PreemptRequeue, PreemptCancel, PreemptOff} {
		if got, err := ParsePreemptMode(m.String()); err != nil || got != m {
			t.Errorf("preempt %v: %v, %v", m, got, err)
		}
	}
	if _, err := ParseQueueState("paused"); err == nil {
		t.Error("paused: no error")
	}
	if _, err := ParseQueueMode("batch"); err == nil {
		t.Error("batch: no error")
	}
	if _, err := ParsePreemptMode("kill"); err == nil {
		t.Error("kill: no error")
	}
}

func TestScoreDValidate(t *testing.T) {
	ok := NewScoreD(3, Gang)
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		edit func(c *ScoreD)
		err  string
	}{
		{"no queues", func(c *ScoreD) { c.Queues = nil }, "no queues"},
		{"mpl", func(c *ScoreD) { c.MPL = 0 }, "multiprogramming level"},
		{"quantum", func(c *ScoreD) { c.QuantumMs = 0 }, "time quantum"},
		{"switch", func(c *ScoreD) { c.SwitchMs = -1 }, "switch overhead"},
		{"percent", func(c *ScoreD) { c.Queues[1].MemPercent = 101 }, "percentages"},
		{"change", func(c *ScoreD) { c.Changes = []QueueChange{{Queue: 3}} }, "state change of queue 3"},
		{"map", func(c *ScoreD) { c.Map, _ = ParseQueueMap("1=5") }, "sends 1 to queue 5"},
		{"map default", func(c *ScoreD) { c.Map, _ = ParseQueueMap("*=3") }, "default queue 3"},
		{"negative time", func(c *ScoreD) { c.Queues[0].MaxCPUSec = -1 }, "negative time limit"},
		{"group", func(c *ScoreD) { c.Queues[2].Group = -7 }, "queue 2: group -7"},
	}
	for _, c := range cases {
		cfg := NewScoreD(3, Gang)
		c.edit(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
		}
	}
}

func FuzzParseQueueChange(f *testing.F) {
	for _, s := range []string{"2=deactivated@86400-172800", "0=disabled@1d", "1=activated@5m-1h", "=@-", "1=x@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ParseQueueChange(s, Activated)
		if err != nil {
			return
		}
		if len(cs) == 0 || len(cs) > 2 || cs[0].At < 0 || cs[0].Queue < 0 {
			t.Fatalf("%q: %v", s, cs)
		}
		if len(cs) == 2 && (cs[1].At <= cs[0].At || cs[1].State != Activated) {
			t.Fatalf("%q: %v", s, cs)
		}
	})
}

func FuzzParseQueueMap(f *testing.F) {
	for _, s := range []string{"", "1=0,2=1,*=2", "*=0", "1=0,1=1", ",", "=,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseQueueMap(s)
		if err != nil {
			return
		}
		for _, raw := range []int{-1, 0, 1, 2, 100} {
			if q := m.QueueOf(raw, 3); q < 0 {
				t.Fatalf("%q: queue %d → %d", s, raw, q)
			}
		}
	})
}

func FuzzParseMillis(f *testing.F) {
	for _, s := range []string{"5", "5ms", "2s", "1m", "", "ms", "-3s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseMillis(s)
		if err == nil && (v < 0 || v > 1<<40) {
			t.Fatalf("%q: %d", s, v)
		}
	})
}
