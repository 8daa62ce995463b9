package schedsim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/sim/simtest"
)

// TestCompare runs scenarios side by side: the results are in the runs'
// order whatever the parallelism, a bad run is named, a cancelled context
// stops them.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	trace := simtest.WriteTrace(t, dir, "t.swf", 800, 11)
	var runs []Named
	for _, la := range []Param{"0", "10", "all"} {
		sc := Default()
		sc.Trace, sc.Lookahead = trace, la
		runs = append(runs, Named{Name: "la" + string(la), Scenario: sc})
	}
	var first []float64
	for _, jobs := range []int{1, 3} {
		var order []int
		res, err := Compare(context.Background(), runs, jobs, func(i int, _ time.Duration) { order = append(order, i) })
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 3 || len(order) != 3 {
			t.Fatalf("--jobs %d: %d results, %d calls of done", jobs, len(res), len(order))
		}
		for i, r := range res {
			if r.Name != runs[i].Name {
				t.Errorf("--jobs %d: result %d is %q, want %q", jobs, i, r.Name, runs[i].Name)
			}
			if jobs == 1 {
				first = append(first, r.Summary.Wait.Mean)
			} else if r.Summary.Wait.Mean != first[i] {
				t.Errorf("result %d depends on the parallelism", i)
			}
		}
	}
	if first[0] <= first[2] {
		t.Errorf("mean waits %v: backfilling with lookahead all should wait less than none", first)
	}
	bad := append([]Named(nil), runs...)
	bad[1].Scenario.Backfill = "sometimes"
	var ie *InputError
	if _, err := Compare(context.Background(), bad, 2, nil); !errors.As(err, &ie) || !strings.Contains(err.Error(), `run "la10"`) {
		t.Errorf("a bad run: %v, want an InputError naming it", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Compare(ctx, runs, 2, nil); !errors.Is(err, ErrInterrupted) {
		t.Errorf("cancelled: %v", err)
	}
}
