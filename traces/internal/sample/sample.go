// Package sample defines the sample traces of package traces: their
// configuration and how they are written. The generator program and the
// test that keeps the embedded files current both use it.
package sample

import (
	"bufio"
	"io"

	"github.com/schedsim/schedsim/workload"
)

// Config is the configuration of the default sample trace, SampleName.
var Config = workload.GenConfig{
	Jobs:             2000,
	Procs:            128,
	Seed:             2003,
	Load:             0.9,
	Model:            &workload.LublinAll,
	EstimateRoundSec: 60,
}

// Write writes the default sample trace, header and jobs, to w.
func Write(w io.Writer) error {
	h := Config.Header()
	var fields []workload.HeaderField
	for _, f := range h.Fields {
		if f.Key == "MaxJobs" {
			fields = append(fields, workload.HeaderField{Key: "Note", Value: "sample trace of package traces; regenerate with: go generate ./traces"})
		}
		fields = append(fields, f)
	}
	h.Fields = fields
	bw := bufio.NewWriter(w)
	sw, err := workload.NewSWFWriter(bw, h)
	if err != nil {
		return err
	}
	if err := workload.Generate(Config, sw.Write); err != nil {
		return err
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}
