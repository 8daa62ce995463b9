package workload

import (
	"errors"
	"sync"
)

// prefetchBatch is how many jobs the prefetching goroutine reads before
// handing them over: large enough that the hand-over costs nothing per
// job, small enough that the first jobs arrive at once.
const prefetchBatch = 1024

// prefetchDepth is how many full batches may wait for the reader of a
// Prefetch: enough to ride out a burst of slow passes, few enough that
// the read-ahead stays a few hundred kilobytes.
const prefetchDepth = 4

type jobBatch struct {
	jobs  []Job
	err   error      // after jobs: io.EOF, or the reader's error
	stats CleanStats // the reader's counts after the batch
}

// prefetch is the Reader Prefetch returns.
type prefetch struct {
	r     Reader
	full  chan *jobBatch
	free  chan *jobBatch
	quit  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
	cur   *jobBatch
	jobs  []Job      // cur.jobs, or nil
	i     int        // the next job in jobs
	err   error      // the terminal error, once reached
	stats CleanStats // the counts as of the batch last taken
}

// Prefetch returns a Reader that reads r ahead on a goroutine of its own,
// so that parsing a trace overlaps with what the caller does with its
// jobs. It yields exactly r's jobs and r's error, at the same position:
// only the time at which the work happens moves. Stats may run up to a
// batch of jobs ahead of Next until Next has returned io.EOF (or another
// error); from then on they are r's final counts. Close stops the
// goroutine and closes r. A Prefetch is used by one goroutine at a time,
// as any Reader, and r must not be used by anyone else meanwhile. The
// Reader it returns also lends its jobs without copying them, through a
// method NextRef (see sim.RefSource).
func Prefetch(r Reader) Reader {
	p := &prefetch{
		r:     r,
		full:  make(chan *jobBatch, prefetchDepth),
		free:  make(chan *jobBatch, prefetchDepth+2),
		quit:  make(chan struct{}),
		stats: r.Stats(),
	}
	for range prefetchDepth + 2 {
		p.free <- &jobBatch{jobs: make([]Job, 0, prefetchBatch)}
	}
	p.wg.Add(1)
	go p.run()
	return p
}

func (p *prefetch) run() {
	defer p.wg.Done()
	defer close(p.full)
	for {
		var b *jobBatch
		select {
		case b = <-p.free:
		case <-p.quit:
			return
		}
		if br, ok := p.r.(batchReader); ok {
			b.jobs, b.err = br.readBatch(b.jobs[:0])
		} else {
			b.jobs, b.err = readBatch(p.r, b.jobs[:0])
		}
		b.stats = p.r.Stats()
		select {
		case p.full <- b:
		case <-p.quit:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// Next returns the next job read ahead, or the reader's error where the
// reader gave it.
func (p *prefetch) Next(j *Job) error {
	r, err := p.NextRef()
	if err == nil {
		*j = *r
	}
	return err
}

// NextRef is Next without the copy: it returns the next job in the batch
// that holds it, valid (and free to modify) until the next call of Next or
// NextRef, which may hand the batch back to the reading goroutine.
func (p *prefetch) NextRef() (*Job, error) {
	if p.i < len(p.jobs) {
		p.i++
		return &p.jobs[p.i-1], nil
	}
	return p.nextBatch()
}

// nextBatch is NextRef at the end of a batch: it hands the batch back
// and takes the next, or returns the error that ended the batch.
func (p *prefetch) nextBatch() (*Job, error) {
	for p.err == nil {
		if p.cur != nil {
			if p.i < len(p.cur.jobs) {
				p.i++
				return &p.cur.jobs[p.i-1], nil
			}
			if p.cur.err != nil {
				p.err = p.cur.err
				p.stop()
				break
			}
			p.free <- p.cur
			p.cur, p.jobs = nil, nil
		}
		b, ok := <-p.full
		if !ok { // stopped by Close
			p.err = errPrefetchClosed
			break
		}
		p.cur, p.jobs, p.i, p.stats = b, b.jobs, 0, b.stats
	}
	return nil, p.err
}

// errPrefetchClosed is what Next returns after Close.
var errPrefetchClosed = errors.New("workload: Next on a closed reader")

// stop stops the goroutine (if it still runs) and waits for it.
func (p *prefetch) stop() {
	p.once.Do(func() { close(p.quit) })
	p.wg.Wait()
}

// Header returns r's header, which r read before Prefetch was called.
func (p *prefetch) Header() *Header { return p.r.Header() }

// Stats returns r's counts as of the last batch Next took: its final
// counts once Next has returned an error.
func (p *prefetch) Stats() CleanStats { return p.stats }

// Path returns r's path.
func (p *prefetch) Path() string { return p.r.Path() }

// Close stops the read-ahead and closes r.
func (p *prefetch) Close() error {
	p.stop()
	return p.r.Close()
}
