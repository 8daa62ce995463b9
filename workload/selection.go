package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// selection is the part of Rules that selects jobs (From, Until, MaxJobs,
// Users, Queues, Partitions), resolved against a trace's header: names
// are numbers and instants are seconds from the log's start.
type selection struct {
	from, until                   Time // [from, until); math.MinInt64 and math.MaxInt64 when unbounded
	users, queues, partitions     []int64
	hasUsers, hasQueues, hasParts bool
	maxJobs                       int64
	window, lists                 bool
}

// ParseList splits a comma-separated list of selection entries, such as a
// command line's "--queues 2,production", into Rules.Users, Queues or
// Partitions: entries are trimmed, empty ones dropped.
func ParseList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// validateSelection checks the syntax of the selection rules; names and
// date-times are resolved against the header later (see resolve).
func (r Rules) validateSelection() error {
	if r.MaxJobs < 0 {
		return fmt.Errorf("workload: max-jobs %d is negative (0 means all jobs)", r.MaxJobs)
	}
	var bounds [2]Time
	var secs [2]bool
	for i, b := range []struct{ name, v string }{{"from", r.From}, {"until", r.Until}} {
		if b.v == "" {
			continue
		}
		if t, ok := ParseSeconds(b.v, Forever); ok {
			bounds[i], secs[i] = t, true
			continue
		}
		if _, _, _, err := parseDateTime(b.v); err != nil {
			return fmt.Errorf("workload: %s %q is neither seconds from the log's start (3600, 90m, 2d) nor a date-time (2002-08-01, 2002-08-01T12:00:00)", b.name, b.v)
		}
	}
	if secs[0] && secs[1] && bounds[1] <= bounds[0] {
		return fmt.Errorf("workload: until %q is not after from %q: the window holds no job", r.Until, r.From)
	}
	for _, l := range []struct {
		name    string
		entries []string
	}{{"users", r.Users}, {"queues", r.Queues}, {"partitions", r.Partitions}} {
		for _, e := range l.entries {
			if strings.TrimSpace(e) == "" {
				return fmt.Errorf("workload: %s: an empty entry", l.name)
			}
		}
	}
	return nil
}

// parseDateTime parses a date ("2006-01-02") or date-time
// ("2006-01-02T15:04:05", a space for the T; time.Parse takes fractional
// seconds after the seconds)
// with an optional zone ("Z", "+02:00", "-0700"). It returns the wall
// clock as a time in UTC and, when the text gives a zone, that zone's
// offset in seconds east of UTC (zoned true).
func parseDateTime(s string) (wall time.Time, offset int, zoned bool, err error) {
	s = strings.TrimSpace(s)
	if n := len(s); n > 10 {
		if s[n-1] == 'Z' || s[n-1] == 'z' {
			s, zoned = s[:n-1], true
		} else if i := strings.LastIndexAny(s, "+-"); i > 10 {
			z := strings.ReplaceAll(s[i+1:], ":", "")
			h, errH := strconv.Atoi(z[:min(2, len(z))])
			m := 0
			if len(z) == 4 {
				m, err = strconv.Atoi(z[2:])
			}
			if errH != nil || err != nil || (len(z) != 2 && len(z) != 4) || h > 14 || m > 59 {
				return time.Time{}, 0, false, fmt.Errorf("bad zone offset %q", s[i:])
			}
			offset = h*3600 + m*60
			if s[i] == '-' {
				offset = -offset
			}
			s, zoned = s[:i], true
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, e := time.Parse(layout, s); e == nil {
			if zoned && layout == "2006-01-02" {
				break
			}
			return t, offset, zoned, nil
		}
	}
	return time.Time{}, 0, false, fmt.Errorf("%q is not a date-time such as 2006-01-02T15:04:05", s)
}

// headerZone returns the zone the header's wall-clock times are in: its
// TimeZoneString when the system knows that zone, else its TimeZone
// (seconds east of UTC), else UTC.
func headerZone(h *Header) *time.Location {
	if name := strings.TrimSpace(h.Get("TimeZoneString")); name != "" {
		if loc, err := time.LoadLocation(name); err == nil {
			return loc
		}
	}
	if v, err := strconv.Atoi(strings.TrimSpace(h.Get("TimeZone"))); err == nil && v > -86400 && v < 86400 {
		return time.FixedZone("UTC"+strconv.Itoa(v/3600), v)
	}
	return time.UTC
}

// windowBound resolves a From or Until value against the header: seconds
// as they are, a date-time as the seconds from UnixStartTime.
func windowBound(name, v string, h *Header) (Time, error) {
	if t, ok := ParseSeconds(v, Forever); ok {
		return t, nil
	}
	wall, offset, zoned, err := parseDateTime(v)
	if err != nil {
		return 0, fmt.Errorf("%s %q: %v", name, v, err)
	}
	start, err := strconv.ParseInt(strings.TrimSpace(h.Get("UnixStartTime")), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q is a date-time, but the trace's header gives no UnixStartTime to count it from: give seconds from the log's start instead", name, v)
	}
	var at int64
	if zoned {
		at = wall.Unix() - int64(offset)
	} else {
		loc := headerZone(h)
		at = time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), loc).Unix()
	}
	return Time(at - start), nil
}

// headerNumbers returns the numbers the header's directives named key
// ("Queue: 2 production") give the names: name → number.
func headerNumbers(h *Header, key string) map[string]int64 {
	out := map[string]int64{}
	for _, f := range h.Fields {
		if !strings.EqualFold(f.Key, key) {
			continue
		}
		num, name, ok := strings.Cut(strings.TrimSpace(f.Value), " ")
		n, err := strconv.ParseInt(num, 10, 64)
		name = strings.TrimSpace(name)
		if !ok || err != nil || name == "" {
			continue
		}
		if _, dup := out[name]; !dup {
			out[name] = n
		}
	}
	return out
}

// Numbers returns the numbers the header's directives named key give to
// names ("; Partition: 4 batch", as the Parallel Workloads Archive and the
// sacct reader write them): name → number, the first directive naming a
// name winning.
func (h *Header) Numbers(key string) map[string]int64 { return headerNumbers(h, key) }

// ResolveList turns a comma-separated list of numbers or names (a
// scenario's queues or partitions) into numbers: an integer is itself,
// any other entry a name the header's directives named key ("Queue",
// "Partition", "User") number; what names the list in errors.
func ResolveList(what, key, list string, h *Header) ([]int64, error) {
	return resolveList(what, key, ParseList(list), h)
}

// resolveList turns the entries of a Users, Queues or Partitions rule into
// numbers: an integer is itself, any other entry a name the header's
// directives named key number.
func resolveList(what, key string, entries []string, h *Header) ([]int64, error) {
	var names map[string]int64
	var out []int64
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if n, err := strconv.ParseInt(e, 10, 64); err == nil {
			out = append(out, n)
			continue
		}
		if names == nil {
			names = headerNumbers(h, key)
		}
		n, ok := names[e]
		if !ok {
			return nil, fmt.Errorf("%s: %q is not a number, and no %q line of the trace's header names it%s", what, e, key+":", knownNames(h, key))
		}
		out = append(out, n)
	}
	return out, nil
}

// knownNames lists, for an error, the names the header's directives named
// key give, in header order.
func knownNames(h *Header, key string) string {
	var names []string
	for _, f := range h.Fields {
		if strings.EqualFold(f.Key, key) {
			names = append(names, strings.TrimSpace(f.Value))
		}
	}
	if len(names) == 0 {
		return ""
	}
	if len(names) > 8 {
		names = append(names[:8], "…")
	}
	return " (it has: " + strings.Join(names, ", ") + ")"
}

// newSelection resolves the selection rules of r against h. It returns
// nil when r selects every job.
func newSelection(r Rules, h *Header) (*selection, error) {
	s := &selection{from: math.MinInt64, until: math.MaxInt64, maxJobs: r.MaxJobs}
	var err error
	if r.From != "" {
		if s.from, err = windowBound("from", r.From, h); err != nil {
			return nil, err
		}
		s.window = true
	}
	if r.Until != "" {
		if s.until, err = windowBound("until", r.Until, h); err != nil {
			return nil, err
		}
		s.window = true
	}
	if s.window && s.until <= s.from {
		return nil, fmt.Errorf("until %q is not after from %q: the window holds no job", r.Until, r.From)
	}
	if s.users, err = resolveList("users", "User", r.Users, h); err != nil {
		return nil, err
	}
	if s.queues, err = resolveList("queues", "Queue", r.Queues, h); err != nil {
		return nil, err
	}
	if s.partitions, err = resolveList("partitions", "Partition", r.Partitions, h); err != nil {
		return nil, err
	}
	s.hasUsers, s.hasQueues, s.hasParts = len(r.Users) > 0, len(r.Queues) > 0, len(r.Partitions) > 0
	s.lists = s.hasUsers || s.hasQueues || s.hasParts
	if !s.window && !s.lists && s.maxJobs == 0 {
		return nil, nil
	}
	return s, nil
}

// selects reports whether the window and the lists select j, and counts
// the job it drops.
func (s *selection) selects(j *Job, st *CleanStats) bool {
	if s.window {
		if j.Submit < s.from {
			st.DroppedBeforeFrom++
			return false
		}
		if j.Submit >= s.until {
			st.DroppedAfterUntil++
			return false
		}
	}
	if s.lists {
		if s.hasUsers && !containsInt64(s.users, int64(j.User)) {
			st.DroppedUser++
			return false
		}
		if s.hasQueues && !containsInt64(s.queues, int64(j.Queue)) {
			st.DroppedQueue++
			return false
		}
		if s.hasParts && !containsInt64(s.partitions, int64(j.Partition)) {
			st.DroppedPartition++
			return false
		}
	}
	return true
}

func containsInt64(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Calendar returns the wall-clock instant of the trace's time 0 (the
// header's UnixStartTime) and the zone its times are in (its
// TimeZoneString when the system knows that zone, else its TimeZone,
// else UTC); ok is false when the header has no UnixStartTime.
func (h *Header) Calendar() (epoch int64, loc *time.Location, ok bool) {
	v := strings.Fields(h.Get("UnixStartTime"))
	if len(v) == 0 {
		return 0, nil, false
	}
	epoch, err := strconv.ParseInt(v[0], 10, 64)
	if err != nil {
		return 0, nil, false
	}
	return epoch, headerZone(h), true
}
