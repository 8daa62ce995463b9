package schedsim

import (
	"context"
	"io"
	"path/filepath"
	"strings"

	gzip "github.com/klauspost/compress/gzip"

	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/workload"
)

// TraceFormat returns the format a trace file's name says: .swf, .swf.gz
// (or .gz) for SWF, .parquet (or .pq) for Parquet, .json or .json.gz for a
// Batsim workload. Another name is an *InputError.
func TraceFormat(path string) (workload.Format, error) {
	name := strings.ToLower(filepath.Base(path))
	switch {
	case strings.HasSuffix(name, ".json"), strings.HasSuffix(name, ".json.gz"):
		return workload.FormatBatsim, nil
	case strings.HasSuffix(name, ".parquet"), strings.HasSuffix(name, ".pq"):
		return workload.FormatParquet, nil
	case strings.HasSuffix(name, ".swf"), strings.HasSuffix(name, ".gz"):
		return workload.FormatSWF, nil
	}
	return "", inputf("output %q: name it .swf, .swf.gz, .parquet or .json (a Batsim workload; .json.gz compressed) to say its format", path)
}

// TraceWriter writes a trace file atomically: to a temporary file beside
// it, renamed into place by Commit.
type TraceWriter struct {
	file *report.AtomicFile
	gz   *gzip.Writer
	swf  *workload.SWFWriter
	pq   *workload.ParquetWriter
	bat  *workload.BatsimWriter
}

// CreateTrace starts writing the trace file path in format (SWF and
// Batsim workloads gzip-compressed when the name ends with .gz) with
// header h.
func CreateTrace(path string, format workload.Format, h *workload.Header) (*TraceWriter, error) {
	f, err := report.CreateAtomic(path)
	if err != nil {
		return nil, err
	}
	w := &TraceWriter{file: f}
	switch format {
	case workload.FormatParquet:
		w.pq, err = workload.NewParquetWriter(f, h)
	default:
		var out io.Writer = f
		if strings.HasSuffix(strings.ToLower(path), ".gz") {
			w.gz = gzip.NewWriter(f)
			out = w.gz
		}
		if format == workload.FormatBatsim {
			w.bat, err = workload.NewBatsimWriter(out, h)
		} else {
			w.swf, err = workload.NewSWFWriter(out, h)
		}
	}
	if err != nil {
		f.Abort()
		return nil, err
	}
	return w, nil
}

// Write writes one job.
func (w *TraceWriter) Write(j *workload.Job) error {
	switch {
	case w.pq != nil:
		return w.pq.Write(j)
	case w.bat != nil:
		return w.bat.Write(j)
	}
	return w.swf.Write(j)
}

// Skipped counts the jobs a Batsim workload has no place for (no submit
// time, processors or run time, or a job number already written), which
// Write left out; 0 for other formats.
func (w *TraceWriter) Skipped() int64 {
	if w.bat == nil {
		return 0
	}
	return w.bat.Skipped()
}

// Commit finishes the file and renames it into place, unless ctx was
// cancelled meanwhile: the file is then removed and Commit returns
// ErrInterrupted.
func (w *TraceWriter) Commit(ctx context.Context) error {
	var err error
	switch {
	case w.pq != nil:
		err = w.pq.Close()
	case w.bat != nil:
		err = w.bat.Close()
	default:
		err = w.swf.Flush()
	}
	if w.gz != nil && err == nil {
		err = w.gz.Close()
	}
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		w.file.Abort()
		return ErrInterrupted
	}
	return w.file.Commit()
}

// Abort removes the unfinished file; it does nothing after Commit.
func (w *TraceWriter) Abort() { w.file.Abort() }

// CopyTrace writes every record rd yields into a new trace file out in
// format, with rd's header, and commits it when rd is exhausted: an error
// or a cancelled ctx leaves nothing at out (ErrInterrupted when
// cancelled). first, when set, is called after the first record is
// written. It returns how many records a Batsim workload had no place
// for (see TraceWriter.Skipped). A bad record is rd's error, unchanged.
func CopyTrace(ctx context.Context, rd workload.Reader, out string, format workload.Format, first func()) (skipped int64, err error) {
	w, err := CreateTrace(out, format, rd.Header())
	if err != nil {
		return 0, err
	}
	defer w.Abort()
	var j workload.Job
	for n := 0; ; n++ {
		err := rd.Next(&j)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		if err := w.Write(&j); err != nil {
			return 0, err
		}
		if n == 0 && first != nil {
			first()
		}
		if n&1023 == 1023 && ctx.Err() != nil {
			return 0, ErrInterrupted
		}
	}
	if err := w.Commit(ctx); err != nil {
		return 0, err
	}
	return w.Skipped(), nil
}

// GenerateTrace writes the synthetic trace of cfg (workload.Generate) to
// out in format, atomically; first, if not nil, is called once the first
// job is written. When ctx is cancelled it stops with ErrInterrupted and
// leaves nothing behind.
func GenerateTrace(ctx context.Context, cfg workload.GenConfig, out string, format workload.Format, first func()) error {
	w, err := CreateTrace(out, format, cfg.Header())
	if err != nil {
		return err
	}
	defer w.Abort()
	n := 0
	err = workload.Generate(cfg, func(j *workload.Job) error {
		if err := w.Write(j); err != nil {
			return err
		}
		if n++; n == 1 && first != nil {
			first()
		}
		if n&1023 == 0 && ctx.Err() != nil {
			return ErrInterrupted
		}
		return nil
	})
	if err != nil {
		return err
	}
	return w.Commit(ctx)
}
