package schedsim

import (
	"bytes"
	"strings"
	"testing"
)

// The harness of these tests is package sim/simtest (job sources, files,
// CSV); what follows needs this package's VerifyDir.

// verifyClean fails t unless VerifyDir finds every per-job table of the
// result directory dir clean, and returns what it wrote.
func verifyClean(t *testing.T, dir string) string {
	t.Helper()
	var out bytes.Buffer
	rs, err := VerifyDir(dir, 20, &out)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Violations != 0 {
		t.Fatalf("violations in a clean run:\n%s", out.String())
	}
	return out.String()
}

// verifyCatches fails t, saying what was planted, unless VerifyDir finds
// a violation in the result directory dir and its report contains want.
func verifyCatches(t *testing.T, dir, want, planted string) {
	t.Helper()
	var out bytes.Buffer
	rs, err := VerifyDir(dir, 0, &out)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Violations == 0 || !strings.Contains(out.String(), want) {
		t.Fatalf("%s was not caught:\n%s", planted, out.String())
	}
}
