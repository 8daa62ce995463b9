package schedsim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A run that takes checkpoints, in the same process (so that go test -race
// watches the goroutine that writes them while the simulation goes on),
// writes the same files as one that does not, and removes its checkpoint
// and journal when it completes.
func TestCheckpointedRunInProcess(t *testing.T) {
	dir := t.TempDir()
	for _, every := range []string{"", "1h", "1d"} {
		sc := Default()
		sc.Out = filepath.Join(dir, "out"+every)
		sc.Plots = false
		opt := Options{}
		ck := filepath.Join(dir, "run"+every+".ckpt")
		if every != "" {
			opt.Checkpoint, opt.CheckpointEvery = ck, every
		}
		if _, err := Run(context.Background(), &sc, opt); err != nil {
			t.Fatalf("every %q: %v", every, err)
		}
		if every == "" {
			continue
		}
		for _, name := range []string{"jobs.csv", "summary.json"} {
			want, err := os.ReadFile(filepath.Join(dir, "out", name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(sc.Out, name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("every %q: %s differs from the run without checkpoints", every, name)
			}
		}
		for _, p := range []string{ck, ck + ".journal"} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("every %q: %s left behind by a completed run", every, p)
			}
		}
	}
}
