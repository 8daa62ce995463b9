package policy

import (
	"math"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

func TestParseSpeedup(t *testing.T) {
	tests := []struct {
		in   string
		want string // the model's Name, "" for an error
	}{
		{"", "linear"},
		{"linear", "linear"},
		{" Linear ", "linear"},
		{"amdahl:0.1", "amdahl:0.1"},
		{"AMDAHL:0", "amdahl:0"},
		{"amdahl:1", "amdahl:1"},
		{"amdahl:.25", "amdahl:0.25"},
		{"amdahl", ""},
		{"amdahl:", ""},
		{"amdahl:-0.1", ""},
		{"amdahl:1.5", ""},
		{"amdahl:NaN", ""},
		{"amdahl:x", ""},
		{"linear:2", ""},
		{"gustafson:0.1", ""},
	}
	for _, tt := range tests {
		m, err := ParseSpeedup(tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("ParseSpeedup(%q) = %s, want an error", tt.in, m.Name())
		case tt.want == "" && !strings.Contains(err.Error(), "speedup"):
			t.Errorf("ParseSpeedup(%q): error %q does not say what it parsed", tt.in, err)
		case tt.want != "" && err != nil:
			t.Errorf("ParseSpeedup(%q): %v", tt.in, err)
		case tt.want != "" && m.Name() != tt.want:
			t.Errorf("ParseSpeedup(%q) = %s, want %s", tt.in, m.Name(), tt.want)
		}
	}
}

// Factors by hand: Amdahl 0.5 is 2p/(p+1); Amdahl 0.1 on 10 processors is
// 1/(0.1 + 0.09) = 5.263…; Amdahl 1 never speeds up.
func TestSpeedupFactor(t *testing.T) {
	tests := []struct {
		m    Speedup
		p    int
		want float64
	}{
		{Linear{}, 1, 1}, {Linear{}, 7, 7},
		{Amdahl{0.5}, 1, 1}, {Amdahl{0.5}, 2, 4.0 / 3}, {Amdahl{0.5}, 8, 16.0 / 9},
		{Amdahl{0.1}, 10, 1 / 0.19},
		{Amdahl{0}, 6, 6},
		{Amdahl{1}, 64, 1},
	}
	for _, tt := range tests {
		if got := tt.m.Factor(tt.p); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s.Factor(%d) = %v, want %v", tt.m.Name(), tt.p, got, tt.want)
		}
	}
}

// Span rounds up to whole seconds, but not for rounding noise.
func TestSpan(t *testing.T) {
	tests := []struct {
		name string
		m    Speedup
		work float64
		p    int
		want workload.Time
	}{
		{"exact", Linear{}, 400, 8, 50},
		{"fraction rounds up", Linear{}, 30, 4, 8},
		{"a sliver of work is a second", Linear{}, 1e-6, 8, 1},
		{"no work", Linear{}, 0, 8, 0},
		// 160 / (16/9) = 90 exactly in reals; the float is within noise.
		{"amdahl noise is not a second", Amdahl{0.5}, 160, 8, 90},
		// 26⅔ / (16/9) = 15.
		{"amdahl remainder", Amdahl{0.5}, 160 - Work(Amdahl{0.5}, 100, 2), 8, 15},
		{"amdahl fraction", Amdahl{0.5}, 100, 8, 57}, // 56.25
	}
	for _, tt := range tests {
		if got := Span(tt.m, tt.work, tt.p); got != tt.want {
			t.Errorf("%s: Span(%s, %v, %d) = %d, want %d", tt.name, tt.m.Name(), tt.work, tt.p, got, tt.want)
		}
	}
}

// FuzzParseSpeedup: any input parses to a model that round-trips through
// its name, or to an error; never a panic.
func FuzzParseSpeedup(f *testing.F) {
	for _, s := range []string{"", "linear", "amdahl:0.1", "amdahl:1", "amdahl:-1", "amdahl:1e-3", "x:y:z", "amdahl:inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseSpeedup(s)
		if err != nil {
			return
		}
		m2, err := ParseSpeedup(m.Name())
		if err != nil || m2.Name() != m.Name() {
			t.Fatalf("%q parsed as %s, which reads back as %v (%v)", s, m.Name(), m2, err)
		}
		prev := 0.0
		for p := 1; p <= 64; p *= 2 {
			f := m.Factor(p)
			if f < prev || f < 1-1e-12 || math.IsNaN(f) {
				t.Fatalf("%s.Factor(%d) = %v after %v", m.Name(), p, f, prev)
			}
			prev = f
		}
	})
}
