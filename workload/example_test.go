package workload_test

import (
	"fmt"

	"github.com/schedsim/schedsim/workload"
)

// A submission latency of 15 s for every job, 4 s for the jobs of queue 2
// and none for those of the queue the trace's header names "interactive".
func ExampleParseLatency() {
	h := &workload.Header{Fields: []workload.HeaderField{{Key: "Queue", Value: "6 interactive"}}}
	l, err := workload.ParseLatency("15s,2=4s,interactive=0", h)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l, l.Of(1), l.Of(2), l.Of(6))
	// Output: 15s,2=4s,6=0s 15 4 0
}
