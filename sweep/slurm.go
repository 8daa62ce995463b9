package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/report"
)

// SlurmArray says how a sweep runs as a Slurm job array.
type SlurmArray struct {
	// Dir is the sweep's directory, on a file system the compute nodes
	// share: manifest.json, sweep.sbatch, logs/, parts/ and points/.
	Dir string
	// Chunk is the number of points of an array task; Limit how many
	// tasks run at once (sbatch --array=0-N%Limit); CPUs the CPUs of a
	// task, which runs that many points at once.
	Chunk, Limit, CPUs int
	// SbatchOptions are extra #SBATCH lines, e.g. "--partition=batch".
	SbatchOptions []string
	// Binary is the schedsim the tasks run ("": this program).
	Binary string
}

// Emitted is what EmitSlurm wrote.
type Emitted struct {
	// Manifest and Script are the paths of manifest.json and sweep.sbatch.
	Manifest, Script string
	// Points and Tasks count the grid's points and the array's tasks.
	Points, Tasks int
}

// manifest is DIR/manifest.json of a Slurm sweep: the grid (its base
// scenario as canonical JSON), the plots, and which task runs which
// points.
type manifest struct {
	Format string `json:"format"`
	// Workdir is the directory the sweep was emitted from: the points'
	// relative paths are relative to it.
	Workdir string             `json:"workdir"`
	Base    json.RawMessage    `json:"base"`
	Fixed   []schedsim.Setting `json:"fixed"`
	Axes    []Axis             `json:"params"`
	X       string             `json:"x"`
	Plots   []string           `json:"plots"`
	// PointsPerTask is the chunk size: task K runs points K·PointsPerTask
	// up to the next chunk.
	PointsPerTask int `json:"points_per_task"`
	Tasks         int `json:"tasks"`
	// Points lists each point's key, task and values, in grid order.
	Points []manifestPoint `json:"points"`
}

// manifestPoint is one point in the manifest.
type manifestPoint struct {
	Key    string   `json:"key"`
	Task   int      `json:"task"`
	Values []string `json:"values"`
}

// partFile is what one array task of a Slurm sweep writes: each of its
// points as a point file (with its checksum).
type partFile struct {
	Format string      `json:"format"`
	Task   int         `json:"task"`
	Points []pointFile `json:"points"`
}

// EmitSlurm writes a.Dir/manifest.json and a.Dir/sweep.sbatch, a Slurm
// job array over the sweep's points, after checking every point. Each task
// runs "schedsim sweep --manifest DIR/manifest.json --task K", which writes
// DIR/parts/part-K.json; MergeSlurm joins the parts.
func (s *Sweep) EmitSlurm(a SlurmArray) (*Emitted, error) {
	pts, err := s.Points()
	if err != nil {
		return nil, err
	}
	x, err := s.checkPlots()
	if err != nil {
		return nil, err
	}
	if err := checkPoints(pts); err != nil {
		return nil, err
	}
	if a.Chunk < 1 || a.Limit < 1 || a.CPUs < 1 {
		return nil, inputf("--chunk, --array-limit and --cpus-per-task must be at least 1")
	}
	dir, err := filepath.Abs(a.Dir)
	if err != nil {
		return nil, err
	}
	wd := s.Workdir
	if wd == "" {
		if wd, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	for _, p := range []string{dir, wd} {
		if strings.ContainsAny(p, " \t\n%'\"\\$`") {
			return nil, inputf("%q: an #SBATCH line cannot hold this path (spaces, quotes, %% or $): choose another directory", p)
		}
	}
	for _, o := range a.SbatchOptions {
		if strings.ContainsAny(o, "\n") || !strings.HasPrefix(o, "-") {
			return nil, inputf("--sbatch-option %q: want an sbatch option, e.g. --partition=batch", o)
		}
	}
	bin := a.Binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	n, err := s.Grid.normal()
	if err != nil {
		return nil, err
	}
	m := manifest{Format: manifestFormat, Workdir: wd, Base: s.Base.Canonical(), Fixed: n.Fixed, Axes: n.Axes,
		X: x, Plots: s.plots(), PointsPerTask: a.Chunk, Tasks: (len(pts) + a.Chunk - 1) / a.Chunk}
	for i, pt := range pts {
		m.Points = append(m.Points, manifestPoint{Key: pt.Key, Task: i / a.Chunk, Values: pt.Values})
	}
	for _, sub := range []string{"logs", "parts", "points"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	e := &Emitted{Manifest: filepath.Join(dir, "manifest.json"), Script: filepath.Join(dir, "sweep.sbatch"), Points: len(pts), Tasks: m.Tasks}
	b, err := indentJSON(&m)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(e.Manifest, b); err != nil {
		return nil, err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "#!/bin/bash\n")
	fmt.Fprintf(&sb, "# A Slurm job array written by schedsim sweep --emit-slurm: %d points in %d tasks\n", len(pts), m.Tasks)
	fmt.Fprintf(&sb, "# of at most %d points, %d running at once. Submit it with\n", a.Chunk, a.Limit)
	fmt.Fprintf(&sb, "#   sbatch %s\n", e.Script)
	fmt.Fprintf(&sb, "# and, once every task is over, join the parts with\n")
	fmt.Fprintf(&sb, "#   schedsim sweep --merge %s\n", dir)
	fmt.Fprintf(&sb, "#SBATCH --job-name=schedsim-sweep\n")
	fmt.Fprintf(&sb, "#SBATCH --array=0-%d%%%d\n", m.Tasks-1, a.Limit)
	fmt.Fprintf(&sb, "#SBATCH --ntasks=1\n")
	fmt.Fprintf(&sb, "#SBATCH --cpus-per-task=%d\n", a.CPUs)
	fmt.Fprintf(&sb, "#SBATCH --output=%s\n", filepath.Join(dir, "logs", "task-%a.out"))
	fmt.Fprintf(&sb, "#SBATCH --chdir=%s\n", wd)
	for _, o := range a.SbatchOptions {
		fmt.Fprintf(&sb, "#SBATCH %s\n", o)
	}
	fmt.Fprintf(&sb, "set -eu\n")
	fmt.Fprintf(&sb, "echo \"schedsim sweep: array job ${SLURM_ARRAY_JOB_ID} task ${SLURM_ARRAY_TASK_ID} (job ${SLURM_JOB_ID}) on $(hostname) at $(date -u +%%FT%%TZ)\"\n")
	fmt.Fprintf(&sb, "exec %s sweep --manifest %s --task \"${SLURM_ARRAY_TASK_ID}\" --jobs \"${SLURM_CPUS_PER_TASK:-1}\"\n", shellQuote(bin), shellQuote(e.Manifest))
	if err := writeFileAtomic(e.Script, []byte(sb.String())); err != nil {
		return nil, err
	}
	if err := os.Chmod(e.Script, 0o755); err != nil {
		return nil, err
	}
	return e, nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// SlurmSweep is a sweep emitted as a Slurm job array, read back from its
// manifest. Its Sweep's Dir is the manifest's directory; set Jobs, Done,
// Warn and NoPlots before running it.
type SlurmSweep struct {
	Sweep
	// Tasks is the number of array tasks.
	Tasks int

	m      manifest
	points []*Point
}

// OpenSlurmSweep reads the manifest EmitSlurm wrote and rebuilds its
// sweep, checking that the points are those it lists: a manifest of
// another format or schedsim, or edited by hand, is an *schedsim.InputError.
func OpenSlurmSweep(path string) (*SlurmSweep, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &schedsim.InputError{Err: err}
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, inputf("%s: not a sweep manifest: %v", path, err)
	}
	if m.Format != manifestFormat {
		return nil, inputf("%s: format %q, want %q (emit the sweep again with this schedsim)", path, m.Format, manifestFormat)
	}
	var base schedsim.Scenario
	if err := json.Unmarshal(m.Base, &base); err != nil {
		return nil, inputf("%s: its base scenario does not decode: %v", path, err)
	}
	ss := &SlurmSweep{Sweep: Sweep{Grid: Grid{Base: base, Fixed: m.Fixed, Axes: m.Axes, Workdir: m.Workdir},
		Dir: filepath.Dir(path), X: m.X, Plots: m.Plots}, Tasks: m.Tasks, m: m}
	pts, err := ss.Points()
	if err != nil {
		return nil, inputf("%s: %v", path, err)
	}
	if m.PointsPerTask < 1 || len(pts) != len(m.Points) || m.Tasks != (len(m.Points)+m.PointsPerTask-1)/m.PointsPerTask {
		return nil, inputf("%s: inconsistent: %d points in the grid, %d listed, %d tasks of %d", path, len(pts), len(m.Points), m.Tasks, m.PointsPerTask)
	}
	for i, pt := range pts {
		if m.Points[i].Key != pt.Key {
			return nil, inputf("%s: point %d has key %s, this schedsim computes %s: use the schedsim that emitted it", path, i, m.Points[i].Key, pt.Key)
		}
	}
	ss.points = pts
	return ss, nil
}

// TaskPoints returns the grid indexes of task k's points: from up to, not
// including, to.
func (ss *SlurmSweep) TaskPoints(k int) (from, to int) {
	from = k * ss.m.PointsPerTask
	return from, min(from+ss.m.PointsPerTask, len(ss.points))
}

// TaskResult is what one array task did.
type TaskResult struct {
	// Part is the file written.
	Part string
	// Points are the task's points and Summaries their results.
	Points    []*Point
	Summaries []report.Summary
	Counts
}

// Print writes on w a line for each point of array task k and one for
// the part it wrote.
func (tr *TaskResult) Print(w io.Writer, k int) {
	for i, pt := range tr.Points {
		fmt.Fprintf(w, "point %d %s: %s\n", pt.Index, pt.Label, tr.Summaries[i].Headline())
	}
	fmt.Fprintf(w, "task %d: wrote %s (points %d to %d)\n", k, tr.Part, tr.Points[0].Index, tr.Points[len(tr.Points)-1].Index)
}

// RunTask runs the points of array task k (as Sweep.Run does, keeping
// each in DIR/points) and writes the task's part, DIR/parts/part-K.json.
func (ss *SlurmSweep) RunTask(ctx context.Context, k int) (*TaskResult, error) {
	if k < 0 || k >= ss.Tasks {
		return nil, inputf("--task %d: the manifest has tasks 0 to %d", k, ss.Tasks-1)
	}
	from, to := ss.TaskPoints(k)
	pts := ss.points[from:to]
	if err := checkPoints(pts); err != nil {
		return nil, err
	}
	r := ss.runner(filepath.Join(ss.Dir, "points"))
	sums, err := r.run(ctx, pts)
	if err != nil {
		return nil, err
	}
	part := partFile{Format: partFormat, Task: k}
	for i, pt := range pts {
		inputs, err := pt.Scenario.HashWith(r.fp.get)
		if err != nil {
			return nil, err
		}
		f, err := newPointFile(&pointBody{Key: pt.Key, Scenario: pt.Scenario.Canonical(), Inputs: inputs, Summary: sums[i]})
		if err != nil {
			return nil, err
		}
		part.Points = append(part.Points, *f)
	}
	b, err := indentJSON(&part)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, &interruptedSweep{done: len(pts), total: len(pts), dir: r.dir}
	}
	res := &TaskResult{Part: partPath(ss.Dir, k), Points: pts, Summaries: sums, Counts: r.Counts}
	if err := writeFileAtomic(res.Part, b); err != nil {
		return nil, err
	}
	return res, nil
}

// partPath is where array task k writes its part.
func partPath(dir string, k int) string {
	return filepath.Join(dir, "parts", fmt.Sprintf("part-%d.json", k))
}

// MissingPartsError is the error of a merge that lacks parts: the tasks to
// run again, and why each part is missing.
type MissingPartsError struct {
	// Tasks are the array tasks without a usable part; Reasons say why,
	// one a task.
	Tasks   []int
	Reasons []string
	// Of is the number of tasks; Dir the sweep's directory.
	Of  int
	Dir string
}

// Error says how many tasks lack a part, and where.
func (e *MissingPartsError) Error() string {
	return fmt.Sprintf("%d of %d tasks have no part in %s: parts are missing", len(e.Tasks), e.Of, filepath.Join(e.Dir, "parts"))
}

// Rerun returns the sbatch command that runs the missing tasks again.
func (e *MissingPartsError) Rerun() string {
	ids := make([]string, len(e.Tasks))
	for i, k := range e.Tasks {
		ids[i] = strconv.Itoa(k)
	}
	return fmt.Sprintf("sbatch --array=%s %s", strings.Join(ids, ","), filepath.Join(e.Dir, "sweep.sbatch"))
}

// Merge joins the parts the array tasks wrote into the sweep's results
// table and writes it with its plots, as Sweep.Run does. A part that is
// absent, of another sweep or format, corrupt (a point's checksum does not
// match) or computed from input files that changed since, makes it fail
// with a *MissingPartsError that names its task.
func (ss *SlurmSweep) Merge() (*Result, error) {
	sums := make([]report.Summary, len(ss.points))
	fp := newFingerprints()
	missing := &MissingPartsError{Of: ss.Tasks, Dir: ss.Dir}
	for k := 0; k < ss.Tasks; k++ {
		from, to := ss.TaskPoints(k)
		path := partPath(ss.Dir, k)
		why, err := ss.readPart(path, k, sums[from:to], fp)
		if err != nil {
			return nil, err
		}
		if why != "" {
			missing.Tasks = append(missing.Tasks, k)
			missing.Reasons = append(missing.Reasons, fmt.Sprintf("task %d (points %d to %d): %s", k, from, to-1, why))
		}
	}
	if len(missing.Tasks) > 0 {
		return nil, missing
	}
	res, err := ss.result(ss.points, sums)
	if err != nil {
		return nil, err
	}
	if err := res.write(ss.Dir, ss.m.X, ss.plots(), !ss.NoPlots); err != nil {
		return nil, err
	}
	return res, nil
}

// readPart reads task k's part into sums; why says why it cannot be used
// ("" when it can). The error is one of reading the part or the points'
// input files.
func (ss *SlurmSweep) readPart(path string, k int, sums []report.Summary, fp *fingerprints) (why string, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "no part", nil
	} else if err != nil {
		return "", err
	}
	from, _ := ss.TaskPoints(k)
	var part partFile
	if json.Unmarshal(b, &part) != nil || part.Format != partFormat || part.Task != k || len(part.Points) != len(sums) {
		return path + " is not this sweep's part", nil
	}
	r := &pointRunner{fp: fp}
	for i := range part.Points {
		body, err := part.Points[i].body()
		if errors.Is(err, errPointCorrupt) {
			return fmt.Sprintf("%s: point %d is %v", path, from+i, err), nil
		} else if err != nil {
			return path + " is not this sweep's part", nil
		}
		switch err := r.matches(body, ss.points[from+i]); {
		case errors.Is(err, errPointStale):
			return fmt.Sprintf("%s: point %d is %v", path, from+i, err), nil
		case err != nil:
			return "", err
		}
		sums[i] = body.Summary
	}
	return "", nil
}
