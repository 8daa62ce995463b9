package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

func TestProgress(t *testing.T) {
	for _, tc := range []struct {
		name     string
		jobs     int
		step     time.Duration // fake wall-clock time per job
		wantLine string        // in the output; "" for no output
		tick     int64         // the run's ticks a second
	}{
		{"short run prints nothing", 5000, time.Microsecond, "", 0},
		{"long run", 5000, time.Millisecond, "5000 jobs done · simulated 2.8 h · 1000 jobs/s", 0},
		{"long run in ms", 5000, time.Millisecond, "5000 jobs done · simulated 10 s · 1000 jobs/s", 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			now := time.Unix(0, 0)
			p := NewProgress(&buf, time.Second)
			p.SetTick(tc.tick)
			p.now = func() time.Time { return now }
			p.start, p.last = now, now
			for i := 0; i < tc.jobs; i++ {
				now = now.Add(tc.step)
				p.Sample(&sim.Sample{Time: workload.Time(2 * i)})
				p.JobDone(nil)
			}
			p.Done()
			out := buf.String()
			if tc.wantLine == "" {
				if out != "" {
					t.Errorf("printed %q", out)
				}
				return
			}
			if !strings.Contains(out, tc.wantLine) || !strings.HasPrefix(out, "\r") || !strings.HasSuffix(out, "\n") {
				t.Errorf("output %q, want a line with %q rewritten in place and ended", out, tc.wantLine)
			}
			if n := strings.Count(out, "\r"); n < 2 || n > 6 {
				t.Errorf("%d updates for 5 s of wall time at one per second", n)
			}
		})
	}
}

// A Progress that takes its samples a batch at a time, after the batch's
// jobs (as Async hands them), ends on the line it ends on one call at a time.
func TestProgressBatch(t *testing.T) {
	run := func(batch int) string {
		var buf bytes.Buffer
		now := time.Unix(0, 0)
		p := NewProgress(&buf, time.Second)
		p.now = func() time.Time { return now }
		p.start, p.last = now, now
		var ss []sim.Sample
		jobs := 0
		for i := range 5000 {
			now = now.Add(time.Millisecond)
			s := sim.Sample{Time: workload.Time(2 * i)}
			if batch == 0 {
				p.Sample(&s)
				p.JobDone(nil)
				continue
			}
			ss = append(ss, s)
			if jobs++; jobs == batch {
				for range jobs {
					p.JobDone(nil)
				}
				p.SampleBatch(ss)
				ss, jobs = ss[:0], 0
			}
		}
		for range jobs {
			p.JobDone(nil)
		}
		p.SampleBatch(ss)
		p.Done()
		out := buf.String()
		if strings.Count(out, "\r") < 2 {
			t.Fatalf("batches of %d: output %q, want updates", batch, out)
		}
		return out[strings.LastIndex(out, "\r"):]
	}
	want := run(0)
	for _, batch := range []int{1, 7, 300, 1024} {
		if got := run(batch); got != want {
			t.Errorf("batches of %d end on %q, want %q", batch, got, want)
		}
	}
}
