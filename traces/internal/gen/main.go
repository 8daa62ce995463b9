// Command gen writes the sample traces of package traces. Run it through
// `go generate ./traces`.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/schedsim/schedsim/traces/internal/sample"
)

func main() {
	out := flag.String("o", "", "output file (required)")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: gen -o FILE")
		os.Exit(2)
	}
	// Generate in memory first so that a failure leaves the old file whole.
	var b bytes.Buffer
	if err := sample.Write(&b); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
