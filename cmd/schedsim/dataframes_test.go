package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/report"
)

// The dataframe tests read schedsim's outputs with the tools users read
// them with: pandas (Debian's python3-pandas, under /usr/bin/python3) and
// DuckDB (the npm package @duckdb/node-api). .ci/run installs both
// (.ci/install-dataframes.sh); elsewhere a test whose tool is missing says
// so and skips, and under CI=true it fails.

// pandasPython is the Python that has Debian's pandas.
const pandasPython = "/usr/bin/python3"

// needTool skips the test, or fails it under CI=true, for a tool that is
// missing (what says which and why).
func needTool(t *testing.T, what string) {
	t.Helper()
	msg := what + " (bash .ci/install-dataframes.sh installs it; CI=true bash .ci/run does so itself)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip("skipping: " + msg)
}

// requirePandas returns the Python to run pandas with.
func requirePandas(t *testing.T) string {
	t.Helper()
	if err := exec.Command(pandasPython, "-c", "import pandas").Run(); err != nil {
		needTool(t, "python3-pandas is not installed: "+pandasPython+" cannot import pandas")
	}
	return pandasPython
}

// duckDBDir returns the directory where @duckdb/node-api is installed
// (its node_modules), as .ci/install-dataframes.sh chooses it.
func duckDBDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SCHEDSIM_DUCKDB_DIR")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				needTool(t, "@duckdb/node-api: no home directory to find it in")
			}
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "schedsim", "duckdb")
	}
	if _, err := exec.LookPath("node"); err != nil {
		needTool(t, "node is not installed, and DuckDB's npm package needs it")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
		needTool(t, "@duckdb/node-api is not installed in "+dir)
	}
	return dir
}

// duckDB runs the queries with DuckDB and returns their rows.
func duckDB(t *testing.T, queries ...string) [][]map[string]any {
	t.Helper()
	dir := duckDBDir(t)
	cmd := exec.Command("node", append([]string{filepath.Join("testdata", "dataframes", "duckdb_query.cjs")}, queries...)...)
	cmd.Env = append(os.Environ(), "DUCKDB_DIR="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB: %v\n%s\nqueries: %q", err, stderr.String(), queries)
	}
	var res [][]map[string]any
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("DuckDB's output %q: %v", out, err)
	}
	return res
}

// runUnknowns runs unknownsTrace (rejected jobs, a job without a requested
// time, a start time) with --format csv,parquet and returns the result
// directory and its summary.
func runUnknowns(t *testing.T) (string, *report.Summary) {
	t.Helper()
	dir := t.TempDir()
	trace := writeFile(t, dir, "u.swf", unknownsTrace)
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, "run", "--trace", trace, "--format", "csv,parquet", "--out", out, "-q", "--plots=false"); code != 0 {
		t.Fatal(stderr)
	}
	var sum report.Summary
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Rejected == 0 || sum.Wait.Mean == 0 {
		t.Fatalf("the trace must have rejected jobs and waits: %d rejected, mean wait %v", sum.Rejected, sum.Wait.Mean)
	}
	return out, &sum
}

// sameFloat says whether a and b agree to 1e-12 relative.
func sameFloat(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

// TestPandasJobsCSV reads jobs.csv of a run with rejected jobs with pandas,
// no option given: the mean of waiting_time is summary.json's wait.mean,
// the rejected jobs' waits are missing (NaN), and the numeric columns are
// numbers.
func TestPandasJobsCSV(t *testing.T) {
	py := requirePandas(t)
	out, sum := runUnknowns(t)
	cmd := exec.Command(py, filepath.Join("testdata", "dataframes", "pandas_jobs.py"), filepath.Join(out, "jobs.csv"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("pandas: %v\n%s", err, stderr.String())
	}
	var got struct {
		WaitMean float64           `json:"wait_mean"`
		Rows     int64             `json:"rows"`
		Missing  map[string]int64  `json:"missing"`
		Dtypes   map[string]string `json:"dtypes"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("pandas' output %q: %v", b, err)
	}
	if !sameFloat(got.WaitMean, sum.Wait.Mean) {
		t.Errorf("pandas: df.waiting_time.mean() = %v, summary.json's wait.mean = %v", got.WaitMean, sum.Wait.Mean)
	}
	if got.Rows != sum.Jobs {
		t.Errorf("pandas read %d rows, summary.json has %d jobs", got.Rows, sum.Jobs)
	}
	for _, c := range []string{"starting_time", "finish_time", "waiting_time", "turnaround_time", "stretch"} {
		if got.Missing[c] != sum.Rejected {
			t.Errorf("pandas: %d missing values in %s, want the %d rejected jobs'", got.Missing[c], c, sum.Rejected)
		}
		if got.Dtypes[c] != "float64" {
			t.Errorf("pandas: %s is %s, want float64 (numbers with NaN for the unknowns)", c, got.Dtypes[c])
		}
	}
	if got.Missing["requested_time"] != 1 || got.Missing["consumed_energy"] != got.Rows {
		t.Errorf("pandas: missing requested_time %d (want 1), consumed_energy %d (want all %d)", got.Missing["requested_time"], got.Missing["consumed_energy"], got.Rows)
	}
	for _, c := range []string{"job_id", "submission_time", "requested_number_of_resources", "success"} {
		if got.Dtypes[c] != "int64" || got.Missing[c] != 0 {
			t.Errorf("pandas: %s is %s with %d missing, want int64 and none", c, got.Dtypes[c], got.Missing[c])
		}
	}
}

// TestDuckDBJobsParquet reads jobs.parquet of a run with rejected jobs with
// DuckDB: typed columns, NULL for the unknowns (so avg(waiting_time) is
// summary.json's wait.mean), UTC timestamps from the trace's UnixStartTime,
// and the run's header, policy, scenario and version in the metadata.
func TestDuckDBJobsParquet(t *testing.T) {
	duckDBDir(t)
	out, sum := runUnknowns(t)
	pq := "read_parquet('" + filepath.Join(out, "jobs.parquet") + "')"
	res := duckDB(t,
		"SELECT column_name AS c, column_type AS t FROM (DESCRIBE SELECT * FROM "+pq+")",
		"SELECT avg(waiting_time) AS wait_mean, count(*) AS n, count(*) FILTER (WHERE waiting_time IS NULL) AS null_waits, "+
			"count(*) FILTER (WHERE final_state = 'REJECTED') AS rejected, count(*) FILTER (WHERE start_time_ts IS NULL) AS null_starts, "+
			"count(*) FILTER (WHERE requested_time IS NULL) AS null_requested, count(consumed_energy) AS energies, "+
			"count(*) FILTER (WHERE epoch(submit_time_ts) = 1000000000 + submission_time AND (starting_time IS NULL OR epoch(start_time_ts) = 1000000000 + starting_time) "+
			"AND (finish_time IS NULL OR epoch(end_time_ts) = 1000000000 + finish_time)) AS stamps_right, "+
			"CAST(min(submit_time_ts) AS VARCHAR) AS first FROM "+pq,
		"SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('"+filepath.Join(out, "jobs.parquet")+"')")
	types := map[string]any{}
	for _, r := range res[0] {
		types[r["c"].(string)] = r["t"]
	}
	for c, want := range map[string]string{
		"job_id": "BIGINT", "submission_time": "BIGINT", "requested_time": "BIGINT", "waiting_time": "BIGINT",
		"starting_time": "BIGINT", "stretch": "DOUBLE", "consumed_energy": "DOUBLE", "final_state": "VARCHAR",
		"submit_time_ts": "TIMESTAMP WITH TIME ZONE", "start_time_ts": "TIMESTAMP WITH TIME ZONE", "end_time_ts": "TIMESTAMP WITH TIME ZONE",
	} {
		if types[c] != want {
			t.Errorf("DuckDB: column %s is %v, want %s", c, types[c], want)
		}
	}
	r := res[1][0]
	num := func(k string) float64 {
		switch v := r[k].(type) {
		case float64:
			return v
		case string:
			f, err := strconv.ParseFloat(v, 64)
			if err == nil {
				return f
			}
		}
		t.Fatalf("DuckDB: %s = %v (%T)", k, r[k], r[k])
		return 0
	}
	if !sameFloat(num("wait_mean"), sum.Wait.Mean) {
		t.Errorf("DuckDB: avg(waiting_time) = %v, summary.json's wait.mean = %v", r["wait_mean"], sum.Wait.Mean)
	}
	rej := float64(sum.Rejected)
	if num("n") != float64(sum.Jobs) || num("null_waits") != rej || num("rejected") != rej || num("null_starts") != rej {
		t.Errorf("DuckDB: %v; want %d rows and a NULL wait and start for each of the %d rejected jobs", r, sum.Jobs, sum.Rejected)
	}
	if num("null_requested") != 1 || num("energies") != 0 {
		t.Errorf("DuckDB: %v NULL requested times (want 1), %v energies (want none)", r["null_requested"], r["energies"])
	}
	if num("stamps_right") != float64(sum.Jobs) || r["first"] != "2001-09-09 01:46:40+00" {
		t.Errorf("DuckDB: timestamps right in %v of %d rows, first submission %v (want 2001-09-09 01:46:40+00, UnixStartTime 1000000000)", r["stamps_right"], sum.Jobs, r["first"])
	}
	meta := map[string]string{}
	for _, kv := range res[2] {
		meta[kv["k"].(string)], _ = kv["v"].(string)
	}
	var sc map[string]any
	if err := json.Unmarshal([]byte(meta["schedsim.scenario"]), &sc); err != nil || sc["format"] != "csv,parquet" {
		t.Errorf("DuckDB: schedsim.scenario %q is not the run's scenario (%v)", meta["schedsim.scenario"], err)
	}
	if meta["schedsim.policy"] != sum.Policy || meta["schedsim.table"] != "jobs" || meta["schedsim.version"] == "" ||
		!strings.Contains(meta["schedsim.swf_header"], "; UnixStartTime: 1000000000\n") {
		t.Errorf("DuckDB: metadata %q: want the policy %q, the table, the version and the trace's header", meta, sum.Policy)
	}
}

// TestDuckDBConvertedTrace reads a trace schedsim convert wrote as Parquet
// with DuckDB: SWF's -1 is NULL in every optional column, the submit time
// included, and the recorded instants are UTC timestamps.
func TestDuckDBConvertedTrace(t *testing.T) {
	duckDBDir(t)
	dir := t.TempDir()
	swf := writeFile(t, dir, "c.swf", `; Version: 2.2
; UnixStartTime: 1000000000
; MaxProcs: 8
1 0 5 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1
2 10 -1 100.5 8 -1 -1 8 -1 -1 1 1 1 -1 -1 -1 -1 -1
3 -1 -1 10 2 -1 -1 2 60 -1 1 7 1 -1 -1 -1 -1 -1
`)
	pqPath := filepath.Join(dir, "c.parquet")
	if code, _, stderr := run(t, "convert", swf, pqPath); code != exitOK {
		t.Fatal(stderr)
	}
	pq := "read_parquet('" + pqPath + "')"
	res := duckDB(t,
		"SELECT column_name AS c, column_type AS t FROM (DESCRIBE SELECT * FROM "+pq+")",
		"SELECT job_id, submit_time, wait_time, run_time, requested_time, user_id, used_memory, "+
			"CAST(submit_time_ts AS VARCHAR) AS s, CAST(start_time_ts AS VARCHAR) AS b, CAST(end_time_ts AS VARCHAR) AS e FROM "+pq+" ORDER BY job_id")
	types := map[string]any{}
	for _, r := range res[0] {
		types[r["c"].(string)] = r["t"]
	}
	for c, want := range map[string]string{
		"job_id": "BIGINT", "submit_time": "BIGINT", "run_time": "DOUBLE", "requested_procs": "BIGINT",
		"submit_time_ts": "TIMESTAMP WITH TIME ZONE", "start_time_ts": "TIMESTAMP WITH TIME ZONE", "end_time_ts": "TIMESTAMP WITH TIME ZONE",
	} {
		if types[c] != want {
			t.Errorf("DuckDB: column %s is %v, want %s", c, types[c], want)
		}
	}
	want := []map[string]any{
		{"job_id": "1", "submit_time": "0", "wait_time": 5.0, "run_time": 100.0, "requested_time": 100.0, "user_id": "1", "used_memory": nil,
			"s": "2001-09-09 01:46:40+00", "b": "2001-09-09 01:46:45+00", "e": "2001-09-09 01:48:25+00"},
		{"job_id": "2", "submit_time": "10", "wait_time": nil, "run_time": 100.5, "requested_time": nil, "user_id": "1", "used_memory": nil,
			"s": "2001-09-09 01:46:50+00", "b": nil, "e": nil},
		{"job_id": "3", "submit_time": nil, "wait_time": nil, "run_time": 10.0, "requested_time": 60.0, "user_id": "7", "used_memory": nil,
			"s": nil, "b": nil, "e": nil},
	}
	if len(res[1]) != len(want) {
		t.Fatalf("DuckDB read %d rows, want %d: %v", len(res[1]), len(want), res[1])
	}
	for i, w := range want {
		for k, v := range w {
			if got := res[1][i][k]; got != v {
				t.Errorf("DuckDB: job %s: %s = %v (%T), want %v", w["job_id"], k, got, got, v)
			}
		}
	}
}

// TestDuckDBSweepParquet reads sweep.parquet with DuckDB: the point number,
// the machine size, the whole-number metrics and the cleaning counts are
// BIGINT, the other metrics DOUBLE, the parameters and names VARCHAR, and
// the values are sweep.csv's.
func TestDuckDBSweepParquet(t *testing.T) {
	duckDBDir(t)
	dir := t.TempDir()
	trace := writeFile(t, dir, "u.swf", unknownsTrace)
	out := filepath.Join(dir, "sw")
	if code, _, stderr := run(t, "sweep", "--trace", trace, "--param", "lookahead=1,all", "--out", out, "-q", "--plots=false"); code != exitOK {
		t.Fatal(stderr)
	}
	pq := "read_parquet('" + filepath.Join(out, "sweep.parquet") + "')"
	csvFile := "read_csv('" + filepath.Join(out, "sweep.csv") + "', header = true, all_varchar = true)"
	res := duckDB(t,
		"SELECT column_name AS c, column_type AS t FROM (DESCRIBE SELECT * FROM "+pq+")",
		"SELECT count(*) AS n FROM "+pq+" p JOIN "+csvFile+" c ON CAST(p.point AS VARCHAR) = c.point "+
			"AND p.lookahead = c.lookahead AND p.wait_mean = CAST(c.wait_mean AS DOUBLE) AND p.rejected = CAST(c.rejected AS BIGINT)")
	types := map[string]any{}
	for _, r := range res[0] {
		types[r["c"].(string)] = r["t"]
	}
	for c, want := range map[string]string{
		"point": "BIGINT", "key": "VARCHAR", "lookahead": "VARCHAR", "machine_procs": "BIGINT",
		"jobs": "BIGINT", "rejected": "BIGINT", "wait_mean": "DOUBLE", "utilisation": "DOUBLE",
	} {
		if types[c] != want {
			t.Errorf("DuckDB: sweep.parquet column %s is %v, want %s (columns %v)", c, types[c], want, types)
		}
	}
	if n := res[1][0]["n"]; n != "2" && n != 2.0 {
		t.Errorf("DuckDB: %v of sweep.parquet's 2 points match sweep.csv", n)
	}
}
