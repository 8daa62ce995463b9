package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"time"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/workload"
)

const convertUsage = `Usage: schedsim convert [options] IN OUT

Converts a trace between SWF, Parquet and Batsim's JSON workloads, and
turns Slurm accounting output into any of them. IN is SWF, sacct output
(sacct --allusers --parsable2, with its header line) or a Batsim workload,
plain or gzip, or Parquet, detected from its content; OUT's name says what
to write: .swf, .swf.gz (or .gz) for SWF, .parquet (or .pq) for Parquet in
schedsim's job schema (see the README's Workloads section), .json for a
Batsim workload.

Between SWF and Parquet the conversion is lossless: every record is carried
over as it is, none is cleaned or dropped (the cleaning rules apply when a
trace is run), and the SWF header is kept (in Parquet, in the file's
key/value metadata). Converting SWF to Parquet and back gives the same
jobs, and "schedsim run" gives the same results on both forms. (Parquet's
columns beyond SWF's 18 fields, such as licenses or priority, have no place
in SWF and are left out of it.)

sacct output becomes one record per job, its steps and the components of
a heterogeneous job folded into it. It needs JobID (or JobIDRaw), Submit,
Elapsed (or Start and End) and NCPUS (or ReqCPUS, ReqTRES); Start (the
recorded wait), Timelimit, State, ReqMem, ReqTRES, NNodes, UID or User,
GID or Group, QOS, Partition, Priority and Eligible are read when present.
Times count from the first submission, QOS and partition names are
numbered and listed in the header. --timezone says which zone the
wall-clock times are in (it matters across a change to or from summer
time).

With --columns, IN is a Parquet dataset in its own schema (a preset such as
pm100 or fdata, or a mapping), so a dataset can be converted to SWF or to
schedsim's schema once and run many times.

A Batsim workload holds, for each job, its number, submit time, processors,
requested time and run time (a delay profile; Batsim reads fractional
times, schedsim rounds them to whole seconds when it reads them, as it
rounds SWF's). Records Batsim has no place for — no submit time, no
processors, no run time, or a job number already written (SWF's partial
records) — are left out and counted. The SWF header is kept in the
workload's "swf_header", which Batsim ignores and schedsim reads back.

OUT is written to a temporary file and renamed when complete: a failed
conversion leaves nothing behind.

Examples:
  schedsim convert LANL-CM5-1994-4.1-cln.swf.gz lanl.parquet
  schedsim convert lanl.parquet lanl.swf.gz
  schedsim convert --columns pm100 job_table.parquet pm100.swf.gz
  schedsim convert --timezone Europe/Paris jobs.sacct jobs.swf.gz
  schedsim convert lanl.swf.gz lanl.json
`

func cmdConvert(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var columns, extra, tz string
	var speed float64
	fs := newFlagSet("convert", convertUsage, stdout)
	fs.StringVar(&columns, "columns", "", "IN's column mapping, for a Parquet dataset in its own schema: a preset (pm100, fdata) or target=column[:unit][?],…")
	fs.StringVar(&extra, "extra-fields", "error", "an SWF line with more than 18 fields: error, or ignore (read the first 18)")
	fs.StringVar(&tz, "timezone", "UTC", "the time zone of sacct's times (the zone of the host that ran sacct), such as Europe/Paris")
	fs.Float64Var(&speed, "batsim-speed", 0, "the speed of Batsim's hosts in flops per second, for parallel_homogeneous profiles (their run time is cpu/speed)")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usagef("want two arguments, IN and OUT, got %d (see schedsim convert --help)", fs.NArg())
	}
	in, out := fs.Arg(0), fs.Arg(1)
	var opts []workload.Option
	opts = append(opts, workload.Raw())
	if columns != "" {
		m, err := workload.ParseColumns(columns)
		if err != nil {
			return usagef("--columns: %v", err)
		}
		opts = append(opts, workload.WithColumns(m))
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return usagef("--timezone %q: %v", tz, err)
	}
	opts = append(opts, workload.WithTimeZone(loc))
	if speed < 0 || math.IsNaN(speed) || math.IsInf(speed, 0) {
		return usagef("--batsim-speed %v: want a speed in flops per second > 0", speed)
	}
	if speed > 0 {
		opts = append(opts, workload.WithBatsimSpeed(speed))
	}
	rules := workload.Rules{ExtraFields: workload.ExtraFieldsRule(extra)}
	if err := rules.Validate(); err != nil {
		return usagef("--extra-fields: %v", err)
	}
	format, err := schedsim.TraceFormat(out)
	if err != nil {
		return err
	}
	rd, err := workload.Open(in, rules, opts...)
	if err != nil {
		return inputError(err)
	}
	defer rd.Close()
	n, err := schedsim.CopyTrace(ctx, rd, out, format, func() { ready(ctx, "convert:record") })
	if err != nil {
		return inputError(err)
	}
	fmt.Fprintf(stderr, "converted %d records from %s to %s\n", rd.Stats().Records, in, out)
	if n > 0 {
		fmt.Fprintf(stderr, "left out %d records a Batsim workload has no place for (no submit time, processors or run time, or a job number already written)\n", n)
	}
	return nil
}

// inputError marks errors about the input as usage errors (exit status 2).
func inputError(err error) error {
	var pe *workload.ParseError
	if errors.As(err, &pe) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return usageError{err}
	}
	return err
}
