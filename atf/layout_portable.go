//go:build !amd64 && !arm64

package atf

// loadIndexEvent decodes the index event at the start of b (len(b) ≥ 32,
// checked); see layout_native.go for the amd64/arm64 version.
func loadIndexEvent(b []byte) IndexEvent { return decodeIndexEvent(b) }
