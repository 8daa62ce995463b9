package workload

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// errAfter gives data in pieces of random size, then err.
type errAfter struct {
	data []byte
	err  error
	rng  *rand.Rand
}

func (e *errAfter) Read(p []byte) (int, error) {
	if len(e.data) == 0 {
		return 0, e.err
	}
	n := min(len(p), 1+e.rng.IntN(3*readAheadChunk/2), len(e.data))
	copy(p, e.data[:n])
	e.data = e.data[n:]
	return n, nil
}

// TestReadAhead checks that a readAhead gives its source's bytes and then
// its error (io.EOF or another), for sources shorter than a chunk, of
// whole chunks and of many chunks, read in small and large pieces.
func TestReadAhead(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	broken := errors.New("unexpected end of gzip stream")
	for _, size := range []int{0, 1, 1000, readAheadChunk, readAheadChunk + 1, 7*readAheadChunk + 333, 3 * readAheadDepth * readAheadChunk} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		for _, srcErr := range []error{io.EOF, broken} {
			r := newReadAhead(&errAfter{data: data, err: srcErr, rng: rand.New(rand.NewPCG(uint64(size), 3))})
			var got []byte
			var err error
			buf := make([]byte, 1+rng.IntN(70000))
			for err == nil {
				var n int
				n, err = r.Read(buf)
				got = append(got, buf[:n]...)
			}
			if !bytes.Equal(got, data) || err != srcErr {
				t.Fatalf("size %d, source error %v: got %d bytes (equal %v) and %v", size, srcErr, len(got), bytes.Equal(got, data), err)
			}
			if _, again := r.Read(buf); again != srcErr {
				t.Fatalf("Read after the end: %v, want %v again", again, srcErr)
			}
			r.Close()
		}
		if err := iotest.TestReader(newReadAhead(bytes.NewReader(data)), data); err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
	}
}

// TestReadAheadCloseEarly checks that Close stops the goroutine while it
// waits to hand over chunks, and that Read then fails.
func TestReadAheadCloseEarly(t *testing.T) {
	data := make([]byte, 20*readAheadChunk)
	r := newReadAhead(bytes.NewReader(data))
	if _, err := r.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r.Close()
	buf := make([]byte, readAheadChunk)
	for range 2 * (readAheadDepth + 2) {
		if _, err := r.Read(buf); err != nil {
			if !errors.Is(err, errReadAheadClosed) {
				t.Fatalf("after Close: %v", err)
			}
			return
		}
	}
	t.Fatal("Read after Close never failed")
}
