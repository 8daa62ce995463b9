package workload

import (
	"errors"
	"io"
	"sync"
)

// readAheadChunk is how many bytes the read-ahead goroutine reads at once,
// and readAheadDepth how many filled chunks may wait for the reader.
const (
	readAheadChunk = 128 << 10
	readAheadDepth = 4
)

// readAhead is an io.ReadCloser that reads its source on a goroutine of its
// own, chunk by chunk, ahead of its reader: a gzip-compressed trace is
// decompressed while the lines already decompressed are parsed. Its
// reader sees exactly the source's bytes, then the source's error, as
// reading the source directly.
type readAhead struct {
	src  io.Reader
	full chan aheadChunk
	free chan []byte
	quit chan struct{}
	done chan struct{}
	once sync.Once

	buf  []byte // the chunk being read, to give back
	rest []byte // its bytes not read yet
	err  error  // the source's error, after rest
}

type aheadChunk struct {
	b   []byte
	err error
}

// errReadAheadClosed is what Read returns after Close.
var errReadAheadClosed = errors.New("workload: read from a closed read-ahead")

func newReadAhead(src io.Reader) *readAhead {
	r := &readAhead{
		src:  src,
		full: make(chan aheadChunk, readAheadDepth),
		free: make(chan []byte, readAheadDepth+2),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	for range readAheadDepth + 2 {
		r.free <- make([]byte, readAheadChunk)
	}
	go r.run()
	return r
}

func (r *readAhead) run() {
	defer close(r.done)
	defer close(r.full)
	for {
		var buf []byte
		select {
		case buf = <-r.free:
		case <-r.quit:
			return
		}
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var m int
			m, err = r.src.Read(buf[n:])
			n += m
		}
		select {
		case r.full <- aheadChunk{buf[:n], err}:
		case <-r.quit:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read reads the bytes read ahead, and the source's error after them.
func (r *readAhead) Read(p []byte) (int, error) {
	for len(r.rest) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.buf != nil {
			r.free <- r.buf[:cap(r.buf)]
			r.buf = nil
		}
		c, ok := <-r.full
		if !ok {
			r.err = errReadAheadClosed
			continue
		}
		r.buf, r.rest, r.err = c.b, c.b, c.err
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// Close stops the goroutine and waits for it; it does not close the source.
func (r *readAhead) Close() error {
	r.once.Do(func() { close(r.quit) })
	<-r.done
	return nil
}
