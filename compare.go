package schedsim

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/schedsim/schedsim/policy/external"
	"github.com/schedsim/schedsim/report"
)

// Named is a scenario with a name, one run of a comparison.
type Named struct {
	// Name names the run in the table and the plots.
	Name string
	// Scenario is what it simulates; its outputs are not written.
	Scenario Scenario
}

// Compare simulates the runs, jobs at a time (less than 1: one), each in
// its own goroutine, and returns their results in the runs' order, each
// named by its run, whatever order they finish in. done, when set, is
// called as each run finishes, one call at a time, with its index. The
// first error in the runs' order is returned, naming its run (an
// *InputError stays one). When ctx is cancelled the runs stop and Compare
// returns ErrInterrupted.
func Compare(ctx context.Context, runs []Named, jobs int, done func(i int, took time.Duration)) ([]*report.Run, error) {
	scs := make([]*Scenario, len(runs))
	for i := range runs {
		scs[i] = &runs[i].Scenario
	}
	if err := CheckSideBySide(scs); err != nil {
		return nil, err
	}
	results := make([]*report.Run, len(runs))
	errs := make([]error, len(runs))
	sem := make(chan struct{}, max(jobs, 1))
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range runs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			sc := runs[i].Scenario
			sc.Out = ""
			res, err := Run(ctx, &sc, Options{})
			if err != nil {
				errs[i] = err
				return
			}
			res.Run.Name = runs[i].Name
			results[i] = res.Run
			if done != nil {
				mu.Lock()
				done(i, time.Since(start))
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	for i, err := range errs {
		if err == nil {
			continue
		}
		return nil, fmt.Errorf("run %q: %w", runs[i].Name, err)
	}
	return results, nil
}

// CheckSideBySide refuses, among runs made side by side (compare,
// sweep), an external policy that speaks over schedsim's own standard
// input and output, and one --policy-log file for several runs.
func CheckSideBySide(scs []*Scenario) error {
	logs := map[string]bool{}
	for _, sc := range scs {
		if sc.PolicyExec == external.Stdio {
			return inputf("--policy-exec -: the policy speaks over schedsim's own standard input and output, for one run at a time (schedsim run), not side by side")
		}
		if sc.PolicyExec != "" && sc.PolicyLog != "" {
			if logs[sc.PolicyLog] {
				return inputf("--policy-log %s: several runs would write the same log; give each run its own", sc.PolicyLog)
			}
			logs[sc.PolicyLog] = true
		}
	}
	return nil
}

// WriteCompare writes a comparison's files into dir (created if needed):
// compare.csv and compare.json, and with plots the overlaid figures (.svg,
// .png) and compare.html. Each file is written atomically. It returns what
// it wrote, for a message; when ctx is cancelled after the figures it
// returns ErrInterrupted before the page.
func WriteCompare(ctx context.Context, dir string, results []*report.Run, plots bool) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var wrote []string
	for _, f := range []struct {
		name  string
		write func(io.Writer, []*report.Run) error
	}{{"compare.csv", report.WriteCompareCSV}, {"compare.json", report.WriteCompareJSON}} {
		path := filepath.Join(dir, f.name)
		if err := report.WriteFileAtomic(path, func(w io.Writer) error { return f.write(w, results) }); err != nil {
			return wrote, err
		}
		wrote = append(wrote, path)
	}
	if !plots {
		return wrote, nil
	}
	rendered, err := report.RenderFigures(dir, func() []*report.Figure { return report.CompareFigures(results) })
	if err != nil {
		return wrote, err
	}
	if ctx.Err() != nil {
		return wrote, ErrInterrupted
	}
	wrote = append(wrote, "the overlaid plots")
	page := filepath.Join(dir, "compare.html")
	if err := report.WriteFileAtomic(page, func(w io.Writer) error { return report.WriteCompareHTML(w, results, rendered) }); err != nil {
		return wrote, err
	}
	return append(wrote, page), nil
}
