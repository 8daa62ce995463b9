package workload

import "testing"

// TestParquetQueueAndWait reads the queue and wait_resources columns SCore-D
// uses: 1 → wait (1), 0 → refuse (-1), null or another value → the queue
// decides (0).
func TestParquetQueueAndWait(t *testing.T) {
	cols := []pqCol{
		{"job_id", optInt64()},
		{"submit_time", optF64()},
		{"run_time", optInt64()},
		{"requested_procs", optInt32()},
		{"queue", optInt64()},
		{"wait_resources", optInt64()},
	}
	rows := [][]any{
		{int64(1), 0.0, int64(10), int32(1), int64(2), int64(1)},
		{int64(2), 1.0, int64(10), int32(1), int64(0), int64(0)},
		{int64(3), 2.0, int64(10), int32(1), nil, nil},
		{int64(4), 3.0, int64(10), int32(1), int64(1), int64(7)},
	}
	jobs, _, err := readPQ(t, writePQ(t, cols, rows, 2), Rules{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		queue int
		wait  int8
	}{{2, 1}, {0, -1}, {Unknown, 0}, {1, 0}}
	if len(jobs) != len(want) {
		t.Fatalf("%d jobs", len(jobs))
	}
	for i, w := range want {
		if jobs[i].Queue != w.queue || jobs[i].WaitResources != w.wait {
			t.Errorf("job %d: queue %d wait %d, want %d and %d", jobs[i].ID, jobs[i].Queue, jobs[i].WaitResources, w.queue, w.wait)
		}
	}
}
