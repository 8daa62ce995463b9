// Package traces holds small sample workloads that schedsim generates itself,
// embedded in the binary so that it runs without any input file.
//
// The files are generated, never edited: `go generate ./traces` rewrites them
// from the generator in internal/gen, and a test fails if an embedded file
// differs from what the generator makes now.
package traces

import (
	"bytes"
	_ "embed"
	"io"
)

//go:generate go run ./internal/gen -o sample-lublin-2k.swf

// SampleName is the file name of the default sample trace: 2,000 jobs of the
// Lublin–Feitelson model on 128 processors at an offered load of about 0.9,
// with runtime estimates (see internal/sample for the exact configuration).
const SampleName = "sample-lublin-2k.swf"

//go:embed sample-lublin-2k.swf
var sample []byte

// Sample returns a reader of the default sample trace, an SWF text (see
// SampleName). Each call returns a new reader from the start.
func Sample() io.Reader { return bytes.NewReader(sample) }
