package workload

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sharedDir holds the real traces every developer and CI has beside the
// repository (see ../shared/README.md); tests that need them skip without.
const sharedDir = "../../shared"

func sharedPath(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(sharedDir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipped: %s not found (%v); the shared traces sit beside the repository, at ../shared", p, err)
	}
	return p
}

// full reports whether long tests run in full: simtest.Full's rule (the
// environment variable CI is true, and no -short), which this package's
// tests cannot import (simtest imports workload).
func full() bool {
	if testing.Short() {
		return false
	}
	ci, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && ci
}

// bigTrace is the compressed size above which a shared trace is big:
// LANL-CM5, CTC-SP2 and the whole HPC2N-2002 log, 77,000 to 203,000 jobs.
const bigTrace = 1 << 20

// skipBig skips a whole-trace test of the trace at path when it is big and
// the run is not full (see full): CI runs them all.
func skipBig(t *testing.T, path string) {
	t.Helper()
	if fi, err := os.Stat(path); err == nil && fi.Size() > bigTrace && !full() {
		t.Skipf("skipped: %s is big; CI=true go test runs it", filepath.Base(path))
	}
}

// countRecords counts the job lines of a trace the way SWF defines them,
// independently of the reader: lines that are neither blank nor comments.
func countRecords(t *testing.T, path string) int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var in io.Reader = bytes.NewReader(data)
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(in)
		if err != nil {
			t.Fatal(err)
		}
		in = zr
	}
	sc := bufio.NewScanner(in)
	var n int64
	for sc.Scan() {
		s := strings.TrimSpace(sc.Text())
		if s != "" && !strings.HasPrefix(s, ";") {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// readTrace reads a whole trace with rules and returns its jobs' summary.
func readTrace(t *testing.T, path string, rules Rules) (CleanStats, *Header, []Job) {
	t.Helper()
	r, err := OpenSWF(path, rules)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var jobs []Job
	var j Job
	for {
		err := r.Next(&j)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	return r.Stats(), r.Header(), jobs
}

// TestSharedTraces reads every trace of ../shared/traces end to end with the
// default rules and checks its counts against what the archive says of it
// (../shared/README.md) and against an independent count of its job lines.
func TestSharedTraces(t *testing.T) {
	dir := sharedPath(t, "traces")
	type facts struct {
		records, kept      int64
		maxProcs, maxNodes int
		check              func(t *testing.T, st CleanStats)
	}
	known := map[string]facts{
		"NASA-iPSC-1993-3.1-cln.swf.gz": {records: 18239, kept: 18066, maxProcs: 128, maxNodes: 128,
			check: func(t *testing.T, st CleanStats) {
				// Requested procs and requested time are -1 for every job; 173 jobs run 0 s.
				if st.NoEstimate != st.Kept || st.ProcsFromOther != st.Records || st.DroppedRun != 173 {
					t.Errorf("want NoEstimate == Kept, ProcsFromOther == Records, DroppedRun == 173")
				}
			}},
		"LANL-CM5-1994-4.1-cln.swf.gz": {records: 122060, kept: 122055, maxProcs: 1024, maxNodes: 1024,
			check: func(t *testing.T, st CleanStats) {
				// 40,180 jobs run longer than requested; 11,329 lack requested
				// procs (some lack allocated ones too); 11,290 lack requested time.
				if st.Overrun != 40180 || st.ProcsFromOther+st.DroppedProcs != 11329 || st.DroppedProcs == 0 {
					t.Errorf("want Overrun == 40180, ProcsFromOther + DroppedProcs == 11329")
				}
				if dropped := st.Records - st.Kept; st.NoEstimate > 11290 || st.NoEstimate < 11290-dropped {
					t.Errorf("NoEstimate = %d, want 11290 less at most the %d dropped", st.NoEstimate, dropped)
				}
			}},
		"HPC2N-2002-first3170.swf.gz": {records: 3170, kept: 3145, maxProcs: 240, maxNodes: 240,
			check: func(t *testing.T, st CleanStats) {
				if st.Overrun == 0 || st.NoEstimate != 0 || st.DroppedRun != 25 {
					t.Errorf("want some overruns, every job with an estimate, 25 zero-length jobs")
				}
			}},
		"CEA-Curie-2011-sample30k.swf.gz": {records: 29998, kept: 29998, maxProcs: 93312},
		"lublin-256-synthetic.swf.gz": {records: 10000, kept: 10000, maxNodes: 256,
			check: func(t *testing.T, st CleanStats) {
				// Only fields 1, 2, 4 and 5 are set.
				if st.NoEstimate != st.Kept || st.ProcsFromOther != st.Kept {
					t.Errorf("want NoEstimate == ProcsFromOther == Kept")
				}
			}},
		"hpc2n-like-25jobs-noheader.swf": {records: 25, kept: 25},
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !(strings.HasSuffix(name, ".swf") || strings.HasSuffix(name, ".swf.gz")) {
			continue
		}
		seen++
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			st, h, jobs := readTrace(t, p, Rules{})
			t.Logf("%+v", st)
			if lines := countRecords(t, p); st.Records != lines {
				t.Errorf("Records = %d, but the file has %d job lines", st.Records, lines)
			}
			dropped := st.DroppedProcs + st.DroppedRun + st.DroppedStatus + st.DroppedPartial + st.DroppedSubmitUnset
			if st.Kept+dropped != st.Records || int64(len(jobs)) != st.Kept {
				t.Errorf("kept %d + dropped %d != records %d, or %d jobs returned", st.Kept, dropped, st.Records, len(jobs))
			}
			if st.NoEstimate+st.EstimateFromRun > st.Kept || st.Overrun > st.Kept {
				t.Errorf("rule counters exceed the kept jobs: %+v", st)
			}
			checkJobs(t, jobs)
			f, ok := known[name]
			if !ok {
				if st.Kept == 0 {
					t.Errorf("no jobs kept")
				}
				return
			}
			if st.Records != f.records || st.Kept != f.kept {
				t.Errorf("records, kept = %d, %d; want %d, %d", st.Records, st.Kept, f.records, f.kept)
			}
			if h.MaxProcs != f.maxProcs || h.MaxNodes != f.maxNodes {
				t.Errorf("MaxProcs, MaxNodes = %d, %d; want %d, %d", h.MaxProcs, h.MaxNodes, f.maxProcs, f.maxNodes)
			}
			if size := h.MachineSize(); size > 0 {
				for _, j := range jobs {
					if j.Procs > size {
						t.Errorf("job %d needs %d processors, more than the machine's %d", j.ID, j.Procs, size)
						break
					}
				}
			}
			if f.check != nil {
				f.check(t, st)
			}
		})
	}
	if seen == 0 {
		t.Errorf("no trace in %s", dir)
	}
}

// checkJobs checks what every cleaned job stream guarantees.
func checkJobs(t *testing.T, jobs []Job) {
	t.Helper()
	for i, j := range jobs {
		if j.Procs <= 0 || j.Run <= 0 || (j.Estimate != Unknown && j.Estimate <= 0) {
			t.Fatalf("job %d (id %d): procs %d, run %d, estimate %d", i, j.ID, j.Procs, j.Run, j.Estimate)
		}
		if i > 0 && (j.Submit < jobs[i-1].Submit || j.Seq <= jobs[i-1].Seq) {
			t.Fatalf("job %d (id %d): submit %d seq %d after submit %d seq %d", i, j.ID, j.Submit, j.Seq, jobs[i-1].Submit, jobs[i-1].Seq)
		}
	}
}

// TestSharedTracesNormalised reads each trace with the rules of the reference
// normalisation (requested processors, else allocated; run ≤ 0 and procs ≤ 0
// dropped; missing or short requested time set to the run time) and compares
// it job by job with the normalised copy the reference simulators ran.
func TestSharedTracesNormalised(t *testing.T) {
	pairs := []struct{ trace, norm string }{
		{"NASA-iPSC-1993-3.1-cln.swf.gz", "NASA-iPSC-1993-3.1-cln.swf.gz"},
		{"LANL-CM5-1994-4.1-cln.swf.gz", "LANL-CM5-1994-4.1-cln.swf.gz"},
		{"HPC2N-2002-first3170.swf.gz", "hpc2n.swf.gz"},
		{"CEA-Curie-2011-sample30k.swf.gz", "log.swf.gz"},
		{"lublin-256-synthetic.swf.gz", "lublin_256.swf.gz"},
	}
	sharedPath(t, "reference/inputs/norm")
	rules := Rules{Estimate: EstimateRun, Overrun: OverrunExtend}
	for _, p := range pairs {
		t.Run(p.trace, func(t *testing.T) {
			st, h, jobs := readTrace(t, sharedPath(t, "traces/"+p.trace), rules)
			_, nh, norm := readTrace(t, sharedPath(t, "reference/inputs/norm/"+p.norm), Rules{})
			if nh.MachineSize() != h.MachineSize() {
				t.Errorf("machine size %d, normalised %d", h.MachineSize(), nh.MachineSize())
			}
			if st.NoEstimate != 0 || st.Overrun != 0 {
				t.Errorf("rules runtime and extend left jobs without an estimate or killed: %+v", st)
			}
			if len(jobs) != len(norm) {
				t.Fatalf("%d jobs, normalised trace has %d", len(jobs), len(norm))
			}
			for i := range jobs {
				a, b := &jobs[i], &norm[i]
				if a.ID != b.ID || a.Submit != b.Submit || a.Procs != b.Procs || a.Run != b.Run || a.Estimate != b.Estimate {
					t.Fatalf("job %d: id %d submit %d procs %d run %d estimate %d; normalised: id %d submit %d procs %d run %d estimate %d",
						i, a.ID, a.Submit, a.Procs, a.Run, a.Estimate, b.ID, b.Submit, b.Procs, b.Run, b.Estimate)
				}
			}
		})
	}
}
