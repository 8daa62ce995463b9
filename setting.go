package schedsim

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Setting is one scenario key set to a value given as text, as on the
// command line: a sweep's point is a base scenario and its settings.
type Setting struct {
	// Key is a scenario key, in its TOML form (reservation_depth) or as
	// the command line's option (reservation-depth).
	Key string `json:"name"`
	// Value is the value as the command line takes it (Scenario.Set).
	Value string `json:"value"`
}

// outputKeys are the scenario keys that say what a run writes, not what
// it computes.
var outputKeys = map[string]bool{"out": true, "format": true, "plots": true, "gantt_max_jobs": true, "page_gantt_max_jobs": true}

// IsOutputKey reports whether a scenario key (in either form) says what a
// run writes (out, format, plots, …), not what it computes: a sweep may not
// sweep it, and a stored result does not depend on it.
func IsOutputKey(key string) bool {
	return outputKeys[strings.ReplaceAll(strings.TrimSpace(key), "-", "_")]
}

// FlagName returns the command line's name of a scenario key given in
// either form ("reservation_depth" or "reservation-depth" gives
// "reservation-depth"), and whether the scenario has that key.
func FlagName(key string) (string, bool) {
	k := strings.ReplaceAll(strings.TrimSpace(key), "-", "_")
	return strings.ReplaceAll(k, "_", "-"), scenarioKeys[k]
}

// Set sets the field of key (a TOML key, or the option's name with '-' for
// '_') from its text, parsed as the command line parses the option: a
// whole number for a count (0x… and 0… prefixes too), true or false for a
// switch, a decimal number for a speed, the text itself for the others.
// The items of a list (queue_state) are separated by ';'. An unknown key
// or a value that does not parse is an *InputError; what the value means
// is checked when the run is built (Check).
func (sc *Scenario) Set(key, value string) error {
	name, ok := FlagName(key)
	if !ok {
		return inputf("%s: a scenario has no key %s (see schedsim run --help)", key, strings.ReplaceAll(name, "-", "_"))
	}
	f, ok := scenarioField(reflect.ValueOf(sc).Elem(), strings.ReplaceAll(name, "-", "_"))
	if !ok {
		panic("schedsim: scenario key without a field: " + name)
	}
	bad := func(want string) error {
		return inputf("%s=%s: want %s", name, value, want)
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(value)
	case reflect.Bool:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return bad("true or false")
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(value, 0, f.Type().Bits())
		if err != nil {
			return bad("a whole number")
		}
		f.SetInt(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return bad("a number")
		}
		f.SetFloat(x)
	case reflect.Slice:
		var items []string
		if value != "" {
			items = strings.Split(value, ";")
		}
		f.Set(reflect.ValueOf(items))
	default:
		panic(fmt.Sprintf("schedsim: scenario key %s of kind %s", name, f.Kind()))
	}
	return nil
}

// scenarioField returns the field of v (a Scenario, or one of its embedded
// option groups) whose TOML key is key.
func scenarioField(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous {
			if f, ok := scenarioField(v.Field(i), key); ok {
				return f, true
			}
			continue
		}
		if sf.Tag.Get("toml") == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}
