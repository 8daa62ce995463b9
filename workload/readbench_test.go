package workload

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	gzip "github.com/klauspost/compress/gzip"
)

// BenchmarkRead1M reads a generated trace of one million jobs with Open, as
// "schedsim run" does, in each format: MB/s is over the uncompressed SWF
// text (the same for every form, so the figures compare), and the jobs/s
// and peak heap metrics show the reader streams (the heap does not grow
// with the trace). Generating the files takes a few seconds, once.
//
// Compare with "zcat FILE | wc -l" on a file "schedsim generate --jobs
// 1000000 --procs 1024 --seed 1 --out FILE.swf.gz" makes: the same jobs.
func BenchmarkRead1M(b *testing.B) {
	const jobs = 1_000_000
	dir := b.TempDir()
	cfg := GenConfig{Jobs: jobs, Procs: 1024, Seed: 1}
	plain := filepath.Join(dir, "big.swf")
	zipped := filepath.Join(dir, "big.swf.gz")
	pq := filepath.Join(dir, "big.parquet")
	writeFile := func(path string, write func(w io.Writer) error) {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		if err := write(bw); err != nil {
			b.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	swf := func(w io.Writer) error {
		sw, err := NewSWFWriter(w, cfg.Header())
		if err != nil {
			return err
		}
		if err := Generate(cfg, sw.Write); err != nil {
			return err
		}
		return sw.Flush()
	}
	writeFile(plain, swf)
	writeFile(zipped, func(w io.Writer) error {
		zw := gzip.NewWriter(w)
		if err := swf(zw); err != nil {
			return err
		}
		return zw.Close()
	})
	writeFile(pq, func(w io.Writer) error {
		pw, err := NewParquetWriter(w, cfg.Header())
		if err != nil {
			return err
		}
		if err := Generate(cfg, pw.Write); err != nil {
			return err
		}
		return pw.Close()
	})
	st, err := os.Stat(plain)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{{"swf", plain}, {"swf.gz", zipped}, {"parquet", pq}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(st.Size())
			var n int64
			var peak uint64
			for b.Loop() {
				r, err := Open(tc.path, Rules{})
				if err != nil {
					b.Fatal(err)
				}
				var j Job
				for {
					err := r.Next(&j)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if n++; n%250_000 == 0 {
						var ms runtime.MemStats
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapInuse)
					}
				}
				r.Close()
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "jobs/s")
			b.ReportMetric(float64(peak)/(1<<20), "heapMB")
		})
	}
}
