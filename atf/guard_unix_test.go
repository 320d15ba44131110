//go:build unix

package atf

import (
	"os"
	"runtime/debug"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDetailIterGuardPage reads detail files whose last record ends at the
// last byte before an inaccessible page (the records of a file cut at its
// footer, as a crashed writer leaves them, with every record count around
// the look-ahead's batch and distance), through Next, Event and every
// getter: neither the look-ahead nor a getter reads a byte past the
// records (a fault fails the test instead of crashing it).
func TestDetailIterGuardPage(t *testing.T) {
	page := os.Getpagesize()
	for _, records := range []int{1, 3, 4, 5, detailBatch - 1, detailBatch, detailBatch + 3, detailAhead + 1, detailAhead + detailBatch + 2} {
		var idx, det memFile
		tw, err := NewThreadWriter(&idx, func() (ioWS, error) { return &det, nil }, 4)
		if err != nil {
			t.Fatal(err)
		}
		for i := range records {
			if _, err := tw.Write(uint64(i), 1, KindCall, 1, make([]byte, 1+i%3)); err != nil { // records of 25–27 bytes
				t.Fatal(err)
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		recs := det.b[:len(det.b)-FooterSize]
		size := (len(recs)/page + 2) * page
		m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
		if err != nil {
			t.Skip(err)
		}
		if err := unix.Mprotect(m[size-page:], unix.PROT_NONE); err != nil {
			t.Fatal(err)
		}
		b := m[size-page-len(recs) : size-page]
		copy(b, recs)
		func() {
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%d records: %v", records, r)
				}
			}()
			d, err := OpenDetailBytes(b)
			if err != nil || d.Len() != uint64(records) {
				t.Fatalf("%d records: %d read, %v", records, d.Len(), err)
			}
			var sum uint64
			it := d.Events()
			for it.Next() {
				e := it.Event()
				sum += e.Timestamp + it.Timestamp() + uint64(it.IndexSeq()+it.ThreadID()+uint32(it.Type())+uint32(it.Flags())) + uint64(len(it.Payload()))
			}
			if it.Seq() != uint64(records-1) || sum == 0 && records > 1 {
				t.Errorf("%d records: ended at %d", records, it.Seq())
			}
		}()
		if err := unix.Munmap(m); err != nil {
			t.Fatal(err)
		}
	}
}
