package regress_test

import (
	"context"
	"fmt"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/regress"
)

// Check a run against a baseline of another policy: the check names the
// keys whose values differ, and the metrics that regressed.
func ExampleCheckRegression() {
	run := func(backfill string) *regress.Baseline {
		sc := schedsim.Default()
		sc.Backfill = backfill
		res, err := schedsim.Run(context.Background(), &sc, schedsim.Options{})
		if err != nil {
			panic(err)
		}
		b, err := regress.NewBaseline(&sc, &res.Summary)
		if err != nil {
			panic(err)
		}
		return b
	}
	c, err := regress.CheckRegression(run("easy"), run("off"), regress.DefaultTolerances())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Scenario)
	for _, r := range c.Regressions() {
		fmt.Println(r.Metric.Name, r.Change, r.Verdict)
	}
	// Output:
	// DIFFERS from the baseline's: backfill: saved "easy", now "off"
	// wait_mean +1322.25% REGRESSION
	// bounded_slowdown_mean +2400.20% REGRESSION
	// utilisation -24.58% (-19.16 pt) REGRESSION
}
