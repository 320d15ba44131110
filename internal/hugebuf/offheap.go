package hugebuf

import "sync/atomic"

var offHeap atomic.Int64

// NoteOffHeap counts n bytes of memory outside the Go heap handed to a
// reader: Map counts its mappings, and a pool that hands a mapped buffer
// out again counts the capacity asked for once more, as the Go heap's
// TotalAlloc counts every allocation. Allocation-budget tests add OffHeapBytes to TotalAlloc.
func NoteOffHeap(n int) { offHeap.Add(int64(n)) }

// OffHeapBytes returns the bytes counted by NoteOffHeap so far.
func OffHeapBytes() uint64 { return uint64(offHeap.Load()) }
