//go:build (amd64 || arm64) && !atf_portable

package atf

import "unsafe"

// On amd64 and arm64 (little-endian, unaligned loads in hardware) the memory
// layout of IndexEvent is the file layout of an index event — the same six
// little-endian fields at the same offsets, 32 bytes, no pointers — so an
// event is loaded with one 32-byte copy instead of six loads and stores. The
// array indexes below stop the build if the struct ever drifts from the file
// layout.
var _ = [1]struct{}{}[unsafe.Sizeof(IndexEvent{})-IndexEventSize]
var _ = [1]struct{}{}[unsafe.Offsetof(IndexEvent{}.Timestamp)-0]
var _ = [1]struct{}{}[unsafe.Offsetof(IndexEvent{}.FunctionID)-8]
var _ = [1]struct{}{}[unsafe.Offsetof(IndexEvent{}.ThreadID)-16]
var _ = [1]struct{}{}[unsafe.Offsetof(IndexEvent{}.Kind)-20]
var _ = [1]struct{}{}[unsafe.Offsetof(IndexEvent{}.CallDepth)-24]
var _ = [1]struct{}{}[unsafe.Offsetof(IndexEvent{}.DetailSeq)-28]
var _ = [1]struct{}{}[unsafe.Sizeof(EventKind(0))-4]

// loadIndexEvent decodes the index event at the start of b (len(b) ≥ 32,
// checked) with the result decodeIndexEvent gives. It exists because a
// six-field struct built field by field is copied through memory, and on the
// iterator's hot path that copy stalls on store forwarding (about half the
// time per event, measured); copying the file bytes does not.
func loadIndexEvent(b []byte) IndexEvent {
	return *(*IndexEvent)(unsafe.Pointer(unsafe.SliceData(b[:IndexEventSize])))
}

// nativeLayout: an []IndexEvent's memory is the file's bytes of as many
// events (IndexBlocks and ReadEvents read into it directly).
const nativeLayout = true

// loadIndexEventAt sets *e to the index event at p+off with one 32-byte
// copy and no bounds check: the caller guarantees that the 32 bytes are
// there (IndexIter keeps off within its block). Assigned to a named result,
// the copy lands in the caller's variable directly.
func loadIndexEventAt(e *IndexEvent, p unsafe.Pointer, off int) {
	*(*words4)(unsafe.Pointer(e)) = *(*words4)(unsafe.Add(p, off))
}

// loadIndexEventInto is *dst = loadIndexEvent(b[off:]) with one bounds
// check (a slice expression costs several instructions more) and no
// temporary copy, for the merge's hot path.
func loadIndexEventInto(dst *IndexEvent, b []byte, off uint32) {
	if uint64(off)+IndexEventSize > uint64(len(b)) {
		panic(errOutOfBlock)
	}
	*(*words4)(unsafe.Pointer(dst)) = *(*words4)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), off))
}

// The first 24 bytes of DetailEvent are the file layout of a detail record
// header, for loadDetailHeaderAt.
var _ = [1]struct{}{}[unsafe.Offsetof(DetailEvent{}.TotalLength)-0]
var _ = [1]struct{}{}[unsafe.Offsetof(DetailEvent{}.Type)-4]
var _ = [1]struct{}{}[unsafe.Offsetof(DetailEvent{}.Flags)-6]
var _ = [1]struct{}{}[unsafe.Offsetof(DetailEvent{}.IndexSeq)-8]
var _ = [1]struct{}{}[unsafe.Offsetof(DetailEvent{}.ThreadID)-12]
var _ = [1]struct{}{}[unsafe.Offsetof(DetailEvent{}.Timestamp)-16]
var _ = [1]struct{}{}[unsafe.Offsetof(DetailEvent{}.Payload)-DetailEventHeaderSize]
var _ = [1]struct{}{}[unsafe.Sizeof(DetailType(0))-2]

// loadDetailHeaderAt sets e's header fields from the record header at p
// (which the caller guarantees holds at least a header) with one 24-byte
// copy; e.Payload is left alone.
func loadDetailHeaderAt(e *DetailEvent, p unsafe.Pointer) {
	*(*words3)(unsafe.Pointer(e)) = *(*words3)(p)
}

// words3 and words4 are 24 and 32 bytes copied as three and four words (an
// array copy of that size is a call to memmove, a struct of up to four words
// is copied in registers).
type (
	words3 struct{ a, b, c uint64 }
	words4 struct{ a, b, c, d uint64 }
)
