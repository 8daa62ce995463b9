package workload

import (
	"testing"
	"time"
)

// TestParseZone: IANA names with daylight saving and fixed offsets.
func TestParseZone(t *testing.T) {
	summer := time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in      string
		offset  int // seconds east of UTC on 1 July 2024
		wantErr bool
	}{
		{"Europe/Stockholm", 2 * 3600, false},
		{"UTC", 0, false},
		{"UTC+02:00", 2 * 3600, false},
		{"UTC-07:00", -7 * 3600, false},
		{"UTC+5", 5 * 3600, false},
		{"UTC+05:30", 5*3600 + 1800, false},
		{"UTC+15:00", 0, true},
		{"UTC+02:0", 0, true},
		{"Mars/Olympus", 0, true},
	}
	for _, tc := range tests {
		loc, err := ParseZone(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("%q: error %v", tc.in, err)
			continue
		}
		if err == nil {
			if _, off := summer.In(loc).Zone(); off != tc.offset {
				t.Errorf("%q: offset %d, want %d", tc.in, off, tc.offset)
			}
		}
	}
}

// TestCalendarDST: a calendar in a zone with daylight saving maps trace
// time to local wall clocks either side of the change, and back.
func TestCalendarDST(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Skip(err)
	}
	// Time 0: Saturday 30 March 2024, 12:00 CET; summer time starts on
	// Sunday 31 March at 02:00 (→ 03:00).
	c := Calendar{Epoch: time.Date(2024, 3, 30, 12, 0, 0, 0, loc).Unix(), Loc: loc}
	if got := c.At(24 * 3600).Format("15:04"); got != "13:00" {
		t.Errorf("24 h later: %s, want 13:00 (summer time)", got)
	}
	if got := c.TraceTime(c.Local(2024, 3, 31, 12, 0, 0)); got != 23*3600 {
		t.Errorf("Sunday noon: %d, want 23 h (the night lost an hour)", got)
	}
}

// FuzzParseZone: ParseZone never panics.
func FuzzParseZone(f *testing.F) {
	for _, s := range []string{"UTC+02:00", "Europe/Stockholm", "UTC-", "UTC+99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ParseZone(s)
	})
}
