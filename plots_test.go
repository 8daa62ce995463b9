package schedsim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The plots are drawn and written while jobs.csv goes to disk and
// summary.json is written (and the page's Gantt data is encoded while the
// figures render), and every file is synced at the end, together:
// two runs write the same files, byte for byte, and every one of them. Run
// with go test -race, as CI does, it watches those goroutines.
func TestPlotsDrawnWhileCommitting(t *testing.T) {
	dir := t.TempDir()
	var files [2][]string
	for i := range files {
		sc := Default()
		sc.Out = filepath.Join(dir, []string{"a", "b"}[i])
		sc.Plots = true
		if _, err := Run(context.Background(), &sc, Options{}); err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(sc.Out)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			files[i] = append(files[i], e.Name())
		}
	}
	if !slices.Equal(files[0], files[1]) {
		t.Fatalf("the runs wrote %v and %v", files[0], files[1])
	}
	for _, want := range []string{"jobs.csv", "summary.json", "report.html", "utilisation.svg", "utilisation.png", "queue.png", "wait_cdf.svg"} {
		if !slices.Contains(files[0], want) {
			t.Errorf("no %s among %v", want, files[0])
		}
	}
	for _, name := range files[0] {
		a, err := os.ReadFile(filepath.Join(dir, "a", name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "b", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}
