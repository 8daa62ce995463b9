package schedsim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim/simtest"
)

// TestReservationNodesResolve: a reservation's nodes on a cluster of
// nodes are node numbers or the cluster's node names, and hold those
// nodes' processors.
func TestReservationNodesResolve(t *testing.T) {
	spec := &cluster.Spec{Groups: []cluster.NodeGroup{{Name: "thin[001-004]", Count: 4, Cores: 32}, {Name: "fat[1-2]", Count: 2, Cores: 64}, {Name: "misc", Count: 2, Cores: 8}}}
	tests := []struct {
		nodes string
		want  []cluster.Range
		procs int
		err   string
	}{
		{"0-3", []cluster.Range{{Lo: 0, Hi: 4}}, 128, ""},
		{"3,4,7", []cluster.Range{{Lo: 3, Hi: 5}, {Lo: 7, Hi: 8}}, 32 + 64 + 8, ""},
		{"thin[002-003],fat2", []cluster.Range{{Lo: 1, Hi: 3}, {Lo: 5, Hi: 6}}, 128, ""},
		{"fat[1-2],thin004", []cluster.Range{{Lo: 3, Hi: 6}}, 160, ""},
		{"0-8", nil, 0, "node 8: the cluster has nodes 0-7"},
		{"thin009", nil, 0, `"thin009" is not a node of the cluster`},
		{"misc1", nil, 0, `"misc1" is not a node of the cluster`},
		{"3-1", nil, 0, "want node numbers"},
	}
	for _, tc := range tests {
		rs, procs, err := reservationNodes(tc.nodes, spec)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.nodes, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.nodes, err)
		case !slices.Equal(rs, tc.want) || procs != tc.procs:
			t.Errorf("%q: nodes %v (%d processors), want %v (%d)", tc.nodes, rs, procs, tc.want, tc.procs)
		}
	}
}

// TestRunReservationOnNodesSlurmConf: HPC2N's first jobs on the test
// slurm.conf, with a maintenance reservation of thin[001-120] for half a
// day and one of fat[01-04] for a user: the run passes verify, jobs ran
// on the reserved nodes before and after, none inside; a job moved onto
// a reserved node inside the span in jobs.csv is caught.
func TestRunReservationOnNodesSlurmConf(t *testing.T) {
	if _, err := os.Stat(hpc2nTrace); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", hpc2nTrace)
	}
	dir := t.TempDir()
	scPath := writeFile(t, dir, "sc.toml", `
backfill = "easy"

[[reservation]]
name = "thin-maint"
start = "2d"
duration = "12h"
nodes = "thin[001-120]"

[[reservation]]
name = "fat-u5"
start = "1d"
duration = "1d"
nodes = "fat[01-04]"
users = ["5"]
`)
	sc, err := LoadScenario(scPath, Default())
	if err != nil {
		t.Fatal(err)
	}
	sc.Trace, sc.SlurmConf = hpc2nTrace, filepath.Join("cmd", "schedsim", "testdata", "slurm-hetero.conf")
	sc.Out, sc.Plots = filepath.Join(dir, "out"), false
	if _, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}}); err != nil {
		t.Fatal(err)
	}
	verifyClean(t, sc.Out)
	p := filepath.Join(sc.Out, "jobs.csv")
	rows := simtest.ReadCSV(t, p)
	col := simtest.Columns(rows[0])
	// thin001-120 are cores 0-3455 (96 nodes of 32, 24 of 48).
	const from, to, reservedCores = 2 * 86400, 2*86400 + 12*3600, 96*32 + 24*48
	inside, before, after := 0, 0, 0
	victim := -1
	for k, r := range rows[1:] {
		if strings.TrimSpace(r[col["allocated_resources"]]) == "" {
			continue // rejected
		}
		start, _ := strconv.Atoi(r[col["starting_time"]])
		end, _ := strconv.Atoi(r[col["finish_time"]])
		lo, _ := strconv.Atoi(strings.FieldsFunc(r[col["allocated_resources"]]+" ", func(c rune) bool { return c == '-' || c == ' ' })[0])
		onReserved := lo < reservedCores
		switch {
		case start < to && end > from:
			if onReserved {
				inside++
			} else if victim < 0 {
				victim = k + 1
			}
		case end <= from && onReserved:
			before++
		case start >= to && onReserved:
			after++
		}
	}
	if inside != 0 || before == 0 || after == 0 || victim < 0 {
		t.Fatalf("jobs on thin[001-120]: %d inside the reservation, %d before, %d after; a job to move: %v", inside, before, after, victim >= 0)
	}
	procs, _ := strconv.Atoi(rows[victim][col["requested_number_of_resources"]])
	rows[victim][col["allocated_resources"]] = "0-" + strconv.Itoa(max(procs, 1)-1)
	simtest.WriteCSV(t, p, rows)
	verifyCatches(t, sc.Out, `reservation "thin-maint"`, "the job moved onto thin001")
}
