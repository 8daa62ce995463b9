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
	}{
		{"short run prints nothing", 5000, time.Microsecond, ""},
		{"long run", 5000, time.Millisecond, "5000 jobs done · simulated 2.8 h · 1000 jobs/s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			now := time.Unix(0, 0)
			p := NewProgress(&buf, time.Second)
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
