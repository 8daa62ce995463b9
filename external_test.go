package schedsim_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExternalModule builds and runs a separate module that uses schedsim
// through its public API only, as a user's program would (the README's
// Library section shows the same program).
func TestExternalModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a separate module; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	repo, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/mystudy\n\ngo 1.26\n\nrequire github.com/schedsim/schedsim v0.0.0\n\nreplace github.com/schedsim/schedsim => " + repo + "\n",
		"go.sum": string(sum),
		"main.go": `package main

import (
	"context"
	"fmt"
	"os"

	"github.com/schedsim/schedsim"
)

func main() {
	for _, la := range []schedsim.Param{"1", "10", "all"} {
		sc := schedsim.Default() // the embedded sample trace under EASY
		sc.Lookahead = la
		res, err := schedsim.Run(context.Background(), &sc, schedsim.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Printf("lookahead %-4s mean wait %8.0f s\n", la, res.Summary.Wait.Mean)
	}
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "run", "-mod=mod", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run in a separate module: %v\n%s", err, out)
	}
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[2], "lookahead all") {
		t.Errorf("output:\n%s", out)
	}
}
