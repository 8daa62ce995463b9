package report

import (
	"math"
	"testing"
)

// TestHoverJSONMarshal checks that hoverJSON writes what json.Marshal
// writes of the points: plain numbers and labels, and every kind it hands
// to json.Marshal (labels with quotes, HTML characters, control
// characters and non-ASCII text; numbers written with exponents; NaN,
// which makes both give up).
func TestHoverJSONMarshal(t *testing.T) {
	for _, tc := range []struct {
		name string
		pts  []hoverPoint
	}{
		{"none", nil},
		{"plain", []hoverPoint{{X: 12.34, Y: 567.8, Label: "Mon 3 Jan 1994 10:00: 12.5 % busy"}, {X: 0, Y: -3.25, Label: ""}}},
		{"escaped labels", []hoverPoint{{X: 1, Y: 2, Label: `a "quoted" <b> & back\slash`}, {X: 3, Y: 4, Label: "tab\there, line\nthere"},
			{X: 5, Y: 6, Label: "wait ≤ 1 s · 50 %"}, {X: 7, Y: 8, Label: "invalid \xff utf-8, \u2028 separator"}}},
		{"plain numbers", []hoverPoint{{X: math.Copysign(0, -1), Y: 1e-6, Label: "x"}, {X: 9.99e20, Y: -123456789.125, Label: "y"}, {X: 0.1, Y: 1.0 / 3, Label: "z"}}},
		{"numbers with exponents", []hoverPoint{{X: math.Copysign(0, -1), Y: 1e-6, Label: "x"}, {X: 9.99e-7, Y: 1e21, Label: "y"}, {X: -1e21, Y: 123456789.125, Label: "z"},
			{X: 1e-300, Y: -5e-324, Label: "tiny"}}},
		{"not a number", []hoverPoint{{X: 1, Y: 2, Label: "a"}, {X: math.NaN(), Y: 0, Label: "b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Figure{hover: tc.pts}
			want := ""
			if len(tc.pts) > 0 {
				want = f.hoverJSONMarshal()
			}
			if got := f.hoverJSON(); got != want {
				t.Errorf("hoverJSON = %s\nwant (json.Marshal) %s", got, want)
			}
		})
	}
}
