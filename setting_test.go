package schedsim

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestScenarioSet(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		check      func(sc *Scenario) bool
		err        string
	}{
		{"lookahead", "all", func(sc *Scenario) bool { return sc.Lookahead == "all" }, ""},
		{"reservation_depth", "4", func(sc *Scenario) bool { return sc.ReservationDepth == "4" }, ""},
		{"reservation-depth", "all", func(sc *Scenario) bool { return sc.ReservationDepth == "all" }, ""},
		{"procs", "0x40", func(sc *Scenario) bool { return sc.Procs == 64 }, ""},
		{"max-jobs", "1000", func(sc *Scenario) bool { return sc.MaxJobs == 1000 }, ""},
		{"sjbf", "true", func(sc *Scenario) bool { return sc.SJBF }, ""},
		{"batsim_speed", "1e9", func(sc *Scenario) bool { return sc.BatsimSpeed == 1e9 }, ""},
		{"mode", "gang", func(sc *Scenario) bool { return sc.Mode == "gang" }, ""},
		{"node-size", "4", func(sc *Scenario) bool { return sc.NodeSize == 4 }, ""},
		{"queue-state", "1=disabled@0;2=deactivated@10-20", func(sc *Scenario) bool {
			return slices.Equal(sc.QueueStates, []string{"1=disabled@0", "2=deactivated@10-20"})
		}, ""},
		{"queue_state", "", func(sc *Scenario) bool { return sc.QueueStates == nil }, ""},
		{"procs", "many", nil, "procs=many: want a whole number"},
		{"procs", "99999999999999999999", nil, "want a whole number"},
		{"sjbf", "perhaps", nil, "want true or false"},
		{"batsim-speed", "fast", nil, "want a number"},
		{"frobs", "1", nil, "no key frobs"},
		{"", "1", nil, "no key"},
	} {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			sc := Default()
			err := sc.Set(tc.key, tc.value)
			if tc.err != "" {
				var ie *InputError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want an InputError containing %q", err, tc.err)
				}
				return
			}
			if err != nil || !tc.check(&sc) {
				t.Errorf("Set: %v, scenario %+v", err, sc)
			}
		})
	}
}

// TestEveryKeySets sets every scenario key from text: none panics.
func TestEveryKeySets(t *testing.T) {
	for _, k := range Keys() {
		sc := Default()
		if err := sc.Set(k, "1"); err != nil && !strings.Contains(err.Error(), "want") {
			t.Errorf("%s: %v", k, err)
		}
		if name, ok := FlagName(k); !ok || strings.Contains(name, "_") {
			t.Errorf("FlagName(%q) = %q, %v", k, name, ok)
		}
	}
}

// FuzzScenarioSet checks that any key and value either set a field or are
// an InputError.
func FuzzScenarioSet(f *testing.F) {
	for _, kv := range [][2]string{{"lookahead", "all"}, {"procs", "0x40"}, {"sjbf", "maybe"}, {"queue_state", "a;b"}, {"frobs", ""}} {
		f.Add(kv[0], kv[1])
	}
	f.Fuzz(func(t *testing.T, key, value string) {
		sc := Default()
		if err := sc.Set(key, value); err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Set(%q, %q): %v is no InputError", key, value, err)
			}
		}
	})
}
