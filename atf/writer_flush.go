package atf

import (
	"sync"
	"time"
)

// flusher is the goroutine of WithBackgroundFlush: every period it flushes
// each of its ThreadWriters that holds buffered events, under the thread's
// mutex.
type flusher struct {
	mu      sync.Mutex // guards threads
	threads []*ThreadWriter
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

func startFlusher(period time.Duration) *flusher {
	f := &flusher{stop: make(chan struct{}), done: make(chan struct{})}
	go f.run(period)
	return f
}

func (f *flusher) add(t *ThreadWriter) {
	f.mu.Lock()
	f.threads = append(f.threads, t)
	f.mu.Unlock()
}

func (f *flusher) run(period time.Duration) {
	defer close(f.done)
	tick := time.NewTicker(period)
	defer tick.Stop()
	var list []*ThreadWriter
	for {
		select {
		case <-f.stop:
			return
		case <-tick.C:
		}
		f.mu.Lock()
		list = append(list[:0], f.threads...)
		f.mu.Unlock()
		for _, t := range list {
			t.backgroundFlush()
		}
	}
}

// close stops the goroutine and waits for it to end; it may be called more
// than once.
func (f *flusher) close() {
	f.once.Do(func() { close(f.stop) })
	<-f.done
}
