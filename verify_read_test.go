package schedsim

import (
	"errors"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim"
)

// TestReadScoreDJobs reads a SCore-D run's jobs.csv, and names the file,
// the line and the column of every bad value.
func TestReadScoreDJobs(t *testing.T) {
	const head = "job_id,submission_time,requested_number_of_resources,finish_time,final_state,queue,end_reason,mem_limit_kb,mem_kb_per_host,disk_limit_kb,stints_ms\n"
	const good = "7,1.500,4,9.250,COMPLETED_SUCCESSFULLY,1,,0,0,0,1500-9250:1:0\n"
	for _, tc := range []struct {
		name, text, err string
	}{
		{"good", head + good, ""},
		{"rejected", head + "8,2,4,,REJECTED,0,memory,0,0,0,\n", ""},
		{"immediate", strings.TrimSuffix(head, "\n") + ",starting_time,metadata\n" + strings.TrimSuffix(good, "\n") + ",1.500,\n" +
			"9,3,4,5,COMPLETED_SUCCESSFULLY,0,,0,0,0,,3,immediate=1 user=2 account=-1 partition=-1 queue=6\n", ""},
		{"no column", "job_id,submission_time\n1,2\n", `no column "requested_number_of_resources": verify checks a SCore-D run`},
		{"bad id", head + strings.Replace(good, "7,", "x,", 1), `jobs.csv:2: job_id: "x" is not a whole number`},
		{"negative submit", head + strings.Replace(good, "1.500", "-1", 1), `jobs.csv:2: submission_time: "-1" is not a time ≥ 0`},
		{"too many decimals", head + strings.Replace(good, "9.250", "9.2505", 1), `jobs.csv:2: finish_time: "9.2505"`},
		{"bad state", head + strings.Replace(good, "COMPLETED_SUCCESSFULLY", "RUNNING", 1), `jobs.csv:2: final_state: "RUNNING" is not a state`},
		{"bad stints", head + strings.Replace(good, "1500-9250:1:0", "1500", 1), `jobs.csv:2: stints_ms:`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "jobs.csv", tc.text)
			outs, imm, err := readScoreDJobs(path, 1000)
			if tc.err == "" {
				if err != nil || len(outs) != 1 {
					t.Fatalf("got %d jobs, %v; want 1, no error", len(outs), err)
				}
				if tc.name == "immediate" {
					// Job 9 ran beside the machine: an outcome for
					// sim.Verify, in ms.
					if len(imm) != 1 || imm[0].Job.ID != 9 || imm[0].Job.Queue != 6 || imm[0].Start != 3000 || imm[0].End != 5000 || !imm[0].Immediate {
						t.Errorf("immediate jobs %+v", imm)
					}
				} else if len(imm) > 0 {
					t.Errorf("immediate jobs %+v in a table without", imm)
				}
				if tc.name == "good" && (outs[0].ID != 7 || outs[0].Submit != 1500 || outs[0].End != 9250 || outs[0].State != sim.Completed) {
					t.Errorf("got %+v", outs[0])
				}
				return
			}
			var ie *InputError
			if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want an InputError containing %q", err, tc.err)
			}
		})
	}
}
