package schedsim

import (
	"strings"
	"testing"
	"time"
)

func TestParseFidelityZone(t *testing.T) {
	for _, tc := range []struct {
		in      string
		offset  int // seconds east of UTC in January 2000
		wantErr bool
	}{
		{"UTC", 0, false},
		{"UTC+02:00", 7200, false},
		{"UTC-07:00", -7 * 3600, false},
		{"UTC+5", 5 * 3600, false},
		{"UTC+05:30", 5*3600 + 1800, false},
		{"Europe/Stockholm", 3600, false},
		{"UTC+15:00", 0, true},
		{"UTC+2:3", 0, true},
		{"UTC*02:00", 0, true},
		{"UTC+", 0, true},
		{"Mars/Olympus", 0, true},
	} {
		loc, err := parseFidelityZone(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("%q: error %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if err != nil {
			if !strings.Contains(err.Error(), tc.in) {
				t.Errorf("%q: the error %q does not name the value", tc.in, err)
			}
			continue
		}
		_, off := timeJan2000().In(loc).Zone()
		if off != tc.offset {
			t.Errorf("%q: offset %d, want %d", tc.in, off, tc.offset)
		}
	}
}

// FuzzParseFidelityZone checks that any text either parses into a zone
// whose offset is within ±14 h, or is an error, and never panics.
func FuzzParseFidelityZone(f *testing.F) {
	for _, s := range []string{"UTC", "UTC+02:00", "UTC-07:00", "UTC+5", "Europe/Stockholm", "UTC+", "UTC+99:99", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		loc, err := parseFidelityZone(s)
		if err != nil {
			return
		}
		if _, off := timeJan2000().In(loc).Zone(); off < -14*3600 || off > 15*3600 {
			t.Errorf("%q: offset %d s", s, off)
		}
	})
}

func timeJan2000() time.Time { return time.Date(2000, 1, 15, 12, 0, 0, 0, time.UTC) }
