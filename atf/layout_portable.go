//go:build (!amd64 && !arm64) || atf_portable

package atf

import "unsafe"

// loadIndexEvent decodes the index event at the start of b (len(b) ≥ 32,
// checked); see layout_native.go for the amd64/arm64 version. The build tag
// atf_portable selects this version everywhere (go test -tags atf_portable
// runs the tests on it).
func loadIndexEvent(b []byte) IndexEvent { return decodeIndexEvent(b) }

// loadIndexEventInto is *dst = loadIndexEvent(b[off:]).
func loadIndexEventInto(dst *IndexEvent, b []byte, off uint32) {
	if uint64(off)+IndexEventSize > uint64(len(b)) {
		panic(errOutOfBlock)
	}
	*dst = decodeIndexEvent(b[off:])
}

// loadIndexEventAt sets *e to the index event at p+off; the caller
// guarantees that the 32 bytes are there.
func loadIndexEventAt(e *IndexEvent, p unsafe.Pointer, off int) {
	*e = decodeIndexEvent(unsafe.Slice((*byte)(unsafe.Add(p, off)), IndexEventSize))
}

// nativeLayout: false here, the events are decoded field by field.
const nativeLayout = false

// loadDetailHeaderAt sets e's header fields from the record header at p,
// which the caller guarantees holds at least a header; e.Payload is left
// alone.
func loadDetailHeaderAt(e *DetailEvent, p unsafe.Pointer) {
	payload := e.Payload
	*e = decodeDetailEventHeader(unsafe.Slice((*byte)(p), DetailEventHeaderSize))
	e.Payload = payload
}
