package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
)

// CPUProfile starts writing a CPU profile of the process to path (for go
// tool pprof) and returns the function that stops it and closes the file;
// with path empty it does nothing. schedsim run --cpuprofile, which bench
// asks for with --cpuprofile-dir, profiles the run this way.
func CPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// WriteHeapProfile writes a heap profile of the process to path, after a
// garbage collection so that it shows what is live.
func WriteHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	err = pprof.WriteHeapProfile(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// RunArgs returns the options Runner.Measure adds to run r of case ci:
// --plots=false unless plots, and with profDir (which it creates) a CPU
// profile written to profDir/case<N>-run<R>.pprof (from 1).
func RunArgs(plots bool, profDir string) (func(ci, r int) []string, error) {
	if profDir != "" {
		if err := os.MkdirAll(profDir, 0o755); err != nil {
			return nil, err
		}
	}
	return func(ci, r int) []string {
		var extra []string
		if !plots {
			extra = append(extra, "--plots=false")
		}
		if profDir != "" {
			extra = append(extra, "--cpuprofile", filepath.Join(profDir, fmt.Sprintf("case%d-run%d.pprof", ci+1, r+1)))
		}
		return extra
	}, nil
}
