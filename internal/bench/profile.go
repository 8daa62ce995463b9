package bench

import (
	"os"
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
