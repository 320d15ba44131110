package wtfcff

import (
	"bytes"
	"encoding/binary"
)

// Kind is the container a file uses.
type Kind int

// Container kinds recognised by Sniff.
const (
	KindUnknown Kind = iota
	KindBinary       // binary CFF (.wtf-trace), little-endian
	KindLegacy       // pre-CFF big-endian BinaryTrace v3
	KindJSON         // JSON CFF (.wtf-json), COMPLETE or PARTIAL mode
)

// String returns "unknown", "binary", "legacy" or "json".
func (k Kind) String() string {
	return [...]string{"unknown", "binary", "legacy", "json"}[k]
}

// Sniff tells the container kind from the first bytes of a file.
func Sniff(head []byte) Kind {
	switch {
	case len(head) >= 4 && binary.LittleEndian.Uint32(head) == Magic:
		return KindBinary
	case len(head) >= 4 && binary.BigEndian.Uint32(head) == Magic:
		return KindLegacy
	}
	// A JSON document may start with white space (all of head may be).
	if t := bytes.TrimLeft(head, " \t\r\n"); len(head) > 0 && (len(t) == 0 || t[0] == '{') {
		return KindJSON
	}
	return KindUnknown
}
