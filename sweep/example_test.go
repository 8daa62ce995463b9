package sweep_test

import (
	"context"
	"fmt"
	"os"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/sweep"
)

// Lay out a grid: a base scenario and two swept keys, given by their TOML
// key or by the command line's option name.
func ExampleGrid_Points() {
	g := sweep.Grid{Base: schedsim.Default(), Axes: []sweep.Axis{
		{Key: "backfill", Values: []string{"off", "easy"}},
		{Key: "reservation_depth", Values: []string{"1", "all"}},
	}}
	pts, err := g.Points()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pts {
		fmt.Println(p.Index, p.Label, p.Scenario.Backfill, p.Scenario.ReservationDepth)
	}
	// Output:
	// 0 backfill=off reservation-depth=1 off 1
	// 1 backfill=off reservation-depth=all off all
	// 2 backfill=easy reservation-depth=1 easy 1
	// 3 backfill=easy reservation-depth=all easy all
}

// Sweep the lookahead on the embedded sample trace, as `schedsim sweep
// --param lookahead=1,all --out DIR` does; run again, it simulates
// nothing.
func ExampleSweep() {
	dir, _ := os.MkdirTemp("", "sweep")
	defer os.RemoveAll(dir)
	sw := &sweep.Sweep{Grid: sweep.Grid{Base: schedsim.Default(),
		Axes: []sweep.Axis{{Key: "lookahead", Values: []string{"1", "all"}}}}, Dir: dir, NoPlots: true}
	for i := 0; i < 2; i++ {
		res, err := sw.Run(context.Background())
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("simulated %d, kept %d\n", res.Computed, res.Reused)
		if i == 0 {
			res.Print(os.Stdout)
		}
	}
	// Output:
	// simulated 2, kept 0
	// point  lookahead  wait mean (s)  bounded slowdown  utilisation (%)
	// 0      1          280037.3       8726.653          65.45
	// 1      all        28767.0        511.541           77.96
	// simulated 0, kept 2
}
