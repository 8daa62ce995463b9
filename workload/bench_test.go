package workload

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strconv"
	"testing"
)

// BenchmarkSWFReader reads the LANL CM-5 trace (122,060 jobs, gzip) end to
// end; SetBytes is the uncompressed size, so MB/s is parsing throughput.
func BenchmarkSWFReader(b *testing.B) {
	raw, err := os.ReadFile(sharedPath(b, "traces/LANL-CM5-1994-4.1-cln.swf.gz"))
	if err != nil {
		b.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("gzip", func(b *testing.B) { benchRead(b, raw, int64(len(plain))) })
	b.Run("plain", func(b *testing.B) { benchRead(b, plain, int64(len(plain))) })
}

// BenchmarkSWFReaderSynthetic reads an in-memory trace, so it always runs.
func BenchmarkSWFReaderSynthetic(b *testing.B) {
	data := syntheticSWF(100000)
	benchRead(b, data, int64(len(data)))
}

func benchRead(b *testing.B, data []byte, size int64) {
	b.ReportAllocs()
	b.SetBytes(size)
	var jobs int64
	for b.Loop() {
		r, err := NewSWFReader(bytes.NewReader(data), "bench", Rules{})
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
			jobs++
		}
		r.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(jobs), "ns/job")
}

// syntheticSWF returns an SWF text of n jobs with a header, integer and
// fractional fields.
func syntheticSWF(n int) []byte {
	var b bytes.Buffer
	b.WriteString("; Version: 2.2\n; MaxProcs: 1024\n; MaxNodes: 1024\n")
	var line []byte
	for i := 0; i < n; i++ {
		line = line[:0]
		line = strconv.AppendInt(line, int64(i+1), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(i*7), 10)
		line = append(line, " 12 "...)
		line = strconv.AppendInt(line, int64(1+i%5000), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(1<<(i%10)), 10)
		line = append(line, " 34.50 1024 -1 "...)
		line = strconv.AppendInt(line, int64(2+i%9000), 10)
		line = append(line, " -1 1 3 4 -1 1 -1 -1 -1\n"...)
		b.Write(line)
	}
	return b.Bytes()
}
