package workload

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Calendar places trace times on the wall clock: the trace's time 0 is the
// instant Epoch (Unix seconds, the SWF header's UnixStartTime), and wall
// clocks read in Loc (the header's TimeZoneString, else its TimeZone, else
// UTC; a run may override it, see ParseZone). Reports draw calendar axes
// with it, and the engine places its calendar rules (reservations, start
// windows) with it. A nil Loc is UTC.
type Calendar struct {
	Epoch int64
	Loc   *time.Location
	// Tick is the run's ticks a second (0 or 1: seconds): trace times
	// are ticks of 1/Tick second from Epoch.
	Tick int64
}

// tick returns the calendar's ticks a second, 1 for seconds.
func (c *Calendar) tick() int64 { return max(c.Tick, 1) }

// loc returns the calendar's zone, UTC when Loc is nil.
func (c *Calendar) loc() *time.Location {
	if c.Loc == nil {
		return time.UTC
	}
	return c.Loc
}

// At returns trace time t as a wall-clock time in the calendar's zone.
func (c *Calendar) At(t Time) time.Time {
	if k := c.tick(); k > 1 {
		sec, frac := int64(t)/k, int64(t)%k
		if frac < 0 {
			sec, frac = sec-1, frac+k
		}
		return time.Unix(c.Epoch+sec, frac*(int64(time.Second)/k)).In(c.loc())
	}
	return time.Unix(c.Epoch+int64(t), 0).In(c.loc())
}

// TraceTime returns the trace time of the instant w (to the tick below
// it in a unit finer than the second).
func (c *Calendar) TraceTime(w time.Time) Time {
	if k := c.tick(); k > 1 {
		return Time((w.Unix()-c.Epoch)*k + int64(w.Nanosecond())/(int64(time.Second)/k))
	}
	return Time(w.Unix() - c.Epoch)
}

// Local returns the wall-clock date and time (year, month, day, hour,
// minute, second) as a time in the calendar's zone: the instant that
// clock shows (for a time a daylight-saving change skips or repeats, the
// one time.Date gives).
func (c *Calendar) Local(year int, month time.Month, day, hour, min, sec int) time.Time {
	return time.Date(year, month, day, hour, min, sec, 0, c.loc())
}

// ZoneName names the calendar's zone ("UTC" for UTC or an unnamed zone).
func (c *Calendar) ZoneName() string {
	if n := c.loc().String(); n != "" && n != "Local" {
		return n
	}
	return "UTC"
}

// CalendarOf returns the calendar of a trace's header: its UnixStartTime
// (0 without one, ok false) and its zone, unless zone (a ParseZone value)
// overrides it.
func CalendarOf(h *Header, zone string) (cal Calendar, ok bool, err error) {
	var loc *time.Location
	if zone != "" {
		if loc, err = ParseZone(zone); err != nil {
			return Calendar{}, false, err
		}
	}
	epoch, hloc, ok := h.Calendar()
	if loc == nil {
		loc = hloc
	}
	if loc == nil {
		loc = time.UTC
	}
	return Calendar{Epoch: epoch, Loc: loc}, ok, nil
}

// ParseZone parses a time zone: an IANA name such as "Europe/Stockholm"
// (daylight saving included), "UTC", or a fixed offset from UTC such as
// "UTC+02:00", "UTC-07:00" or "UTC+2" for a clock that is simply off.
func ParseZone(s string) (*time.Location, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "UTC"); ok && rest != "" && (rest[0] == '+' || rest[0] == '-') {
		sign := 1
		if rest[0] == '-' {
			sign = -1
		}
		hh, mm, hasMin := strings.Cut(rest[1:], ":")
		h, err := strconv.Atoi(hh)
		m := 0
		if err == nil && hasMin {
			m, err = strconv.Atoi(mm)
		}
		if err != nil || h < 0 || h > 14 || m < 0 || m > 59 || (hasMin && len(mm) != 2) {
			return nil, fmt.Errorf("time zone %q: want an IANA name such as Europe/Stockholm or an offset such as UTC+02:00", s)
		}
		return time.FixedZone(s, sign*(h*3600+m*60)), nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: want an IANA name such as Europe/Stockholm or an offset such as UTC+02:00: %v", s, err)
	}
	return loc, nil
}
