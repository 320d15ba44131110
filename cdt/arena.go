package cdt

import (
	"runtime"
	"sync"

	"github.com/tracecodec/tracecodec/internal/hugebuf"
)

// arena is a sequential iterator's batch memory: the decompressed payloads
// of a batch of chunks and, after them, room for the compressed bytes of
// the largest (see Iterator.carve). An iterator holds it while it runs and
// hands it to its File at the end, for the next iterator.
//
// Arenas of hugebuf.Min and more are mapped outside the Go heap
// (hugebuf.Map) and go back to arenaPool, never to the garbage collector:
// in a fresh process, 20 MiB of new heap for five 4 MB chunks started a
// collection in the middle of the read, whose stop-the-world phases and
// worker wake-ups cost about a tenth of the side-by-side benchmark's typed
// read (docs/performance.md). Whoever holds a mapped arena (a File, an
// Iterator) guards it with a cleanup, so that one dropped without Close
// still gives it back; the memory is never unmapped, so a stale slice into
// it reads other bytes but never faults.
type arena struct {
	b       []byte
	mapped  bool            // from hugebuf.Map: released to arenaPool
	cleanup runtime.Cleanup // set while guarded
	guarded bool
}

// guardArena makes a's memory go back to the pool when owner becomes
// unreachable while it still holds a; unguard cancels that.
func guardArena[T any](a *arena, owner *T) {
	if a.mapped && !a.guarded {
		a.cleanup = runtime.AddCleanup(owner, putArena, a.b[:0])
		a.guarded = true
	}
}

func (a *arena) unguard() {
	if a.guarded {
		a.cleanup.Stop()
		a.guarded = false
	}
}

// release gives a mapped arena back to the pool (a heap one to the garbage
// collector) and empties a.
func (a *arena) release() {
	a.unguard()
	if a.mapped {
		putArena(a.b)
	}
	*a = arena{}
}

// newArena returns an arena of capacity at least c: a free one from the
// pool, a new mapping, or (below hugebuf.Min, or where nothing can be
// mapped) hugebuf.Make.
func newArena(c int) arena {
	if b := getArena(c); b != nil {
		hugebuf.NoteOffHeap(c) // what the caller asked for; a pooled arena may be larger
		return arena{b: b, mapped: true}
	}
	if b := hugebuf.Map(c); b != nil {
		return arena{b: b, mapped: true}
	}
	return arena{b: hugebuf.Make(0, c)}
}

// arenaPool keeps the mapped arenas no iterator or File holds. The pages of
// at most arenaKeep bytes of them stay resident; the pages of the others are
// handed back to the system (hugebuf.Drop) and their address space kept for
// reuse, so the pool never holds more mappings than were in use at once.
var arenaPool struct {
	sync.Mutex
	free     []pooledArena
	resident int
}

type pooledArena struct {
	b        []byte
	resident bool
}

// arenaKeep bounds the resident memory of idle arenas: two arenas of the
// largest batch (batchBytes of payloads, a quarter more for growth, the
// compressed bytes of a chunk).
const arenaKeep = 32 << 20

// getArena takes the smallest pooled arena of capacity at least c, or nil.
func getArena(c int) []byte {
	if c < hugebuf.Min {
		return nil
	}
	p := &arenaPool
	p.Lock()
	defer p.Unlock()
	best := -1
	for i, a := range p.free {
		if cap(a.b) >= c && (best < 0 || cap(a.b) < cap(p.free[best].b)) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	a := p.free[best]
	last := len(p.free) - 1
	p.free[best], p.free[last] = p.free[last], pooledArena{}
	p.free = p.free[:last]
	if a.resident {
		p.resident -= cap(a.b)
	}
	return a.b[:0]
}

func putArena(b []byte) {
	p := &arenaPool
	p.Lock()
	defer p.Unlock()
	a := pooledArena{b: b[:0], resident: p.resident+cap(b) <= arenaKeep}
	if a.resident {
		p.resident += cap(b)
	} else {
		hugebuf.Drop(b)
	}
	p.free = append(p.free, a)
}
