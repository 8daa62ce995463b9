//go:build unix

package schedsim

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/schedsim/schedsim/report"
)

// plotsBenchTrace is LANL-CM5's cleaned log, in ../shared beside the repository.
var plotsBenchTrace = filepath.Join("..", "shared", "traces", "LANL-CM5-1994-4.1-cln.swf.gz")

// plotsBenchCPU returns the user and system CPU time of the process so far,
// all threads (0 where getrusage fails).
func plotsBenchCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPlotsLANL measures what the plots and report.html cost on
// LANL-CM5 (122,055 jobs, EASY with the default lookahead), the way
// `schedsim run --trace … --out DIR` runs it:
//
//   - noplots is the run with --plots=false (jobs.csv and summary.json);
//   - plots is the same run writing every plot and report.html;
//   - draw is the drawing alone: the plots and report.html of the plotted
//     run's data, written again;
//   - ratio runs the two, noplots then plots, in each iteration, and
//     reports the ratios of their wall times (wall-ratio) and of their CPU
//     times (cpu-ratio): what issue #26 bounds (1.5), measured side by
//     side in one process, so that a change in the machine's load touches
//     both.
//
// Besides the wall time per run (ns/op) each reports the CPU time of the
// process (user and system, every thread) per run as cpu-ms/op: the
// stages overlap on several cores, so the CPU time is the steadier figure
// on a shared machine. The ratios are measured here, never asserted.
// Compare medians of several runs (-count 11): go test -run '^$' -bench
// 'PlotsLANL/ratio' -count 11. The whole process (schedsim run, with
// and without --plots=false, alternating) is the figure that counts; in
// one process, the second run of each kind finds the first's memory.
func BenchmarkPlotsLANL(b *testing.B) {
	if _, err := os.Stat(plotsBenchTrace); err != nil {
		b.Skipf("skipped: %v; the shared data sit beside the repository, at ../shared", err)
	}
	run := func(b *testing.B, dir string, plots bool) *Result {
		sc := Default()
		sc.Trace = plotsBenchTrace
		sc.Out = dir
		sc.Plots = plots
		res, err := Run(context.Background(), &sc, Options{})
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	measure := func(b *testing.B, step func(dir string)) {
		base := b.TempDir()
		b.ResetTimer()
		c0 := plotsBenchCPU()
		for i := 0; b.Loop(); i++ {
			step(filepath.Join(base, strconv.Itoa(i)))
		}
		b.ReportMetric(float64(plotsBenchCPU()-c0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
	b.Run("noplots", func(b *testing.B) {
		measure(b, func(dir string) { run(b, dir, false) })
	})
	b.Run("plots", func(b *testing.B) {
		measure(b, func(dir string) { run(b, dir, true) })
	})
	b.Run("ratio", func(b *testing.B) {
		base := b.TempDir()
		var wall, cpu [2]time.Duration // without plots, with
		for i := 0; b.Loop(); i++ {
			for k, plots := range []bool{false, true} {
				t0, c0 := time.Now(), plotsBenchCPU()
				run(b, filepath.Join(base, strconv.Itoa(2*i+k)), plots)
				wall[k] += time.Since(t0)
				cpu[k] += plotsBenchCPU() - c0
			}
		}
		b.ReportMetric(float64(wall[1])/float64(wall[0]), "wall-ratio")
		b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "cpu-ratio")
		b.ReportMetric(float64(cpu[0]+cpu[1])/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	})
	plotted := run(b, b.TempDir(), true)
	b.Run("draw", func(b *testing.B) {
		measure(b, func(dir string) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := report.WriteRunPlots(dir, plotted.Run); err != nil {
				b.Fatal(err)
			}
		})
	})
	// Each figure's PNG and SVG alone, one after the other.
	for _, f := range report.RunFigures(plotted.Run) {
		for _, format := range []struct {
			ext    string
			render func() ([]byte, error)
		}{{"png", f.PNG}, {"svg", f.SVG}} {
			b.Run(f.Name+"."+format.ext, func(b *testing.B) {
				measure(b, func(string) {
					if _, err := format.render(); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}
