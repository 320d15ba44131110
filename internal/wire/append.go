package wire

import (
	"encoding/binary"
	"math"

	"github.com/tracecodec/tracecodec/internal/leb128"
)

// Append helpers follow the encoding/binary idiom: they append to dst and return
// the extended slice, so encoders can write straight into a reused buffer.

// AppendU8 appends one byte.
func AppendU8(dst []byte, v uint8) []byte { return append(dst, v) }

// AppendU16 appends v little-endian.
func AppendU16(dst []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(dst, v) }

// AppendU24 appends the low 24 bits of v little-endian.
func AppendU24(dst []byte, v uint32) []byte { return append(dst, byte(v), byte(v>>8), byte(v>>16)) }

// AppendU32 appends v little-endian.
func AppendU32(dst []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(dst, v) }

// AppendU64 appends v little-endian.
func AppendU64(dst []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(dst, v) }

// AppendI32 appends v little-endian.
func AppendI32(dst []byte, v int32) []byte { return AppendU32(dst, uint32(v)) }

// AppendI64 appends v little-endian.
func AppendI64(dst []byte, v int64) []byte { return AppendU64(dst, uint64(v)) }

// AppendF32 appends v little-endian.
func AppendF32(dst []byte, v float32) []byte { return AppendU32(dst, math.Float32bits(v)) }

// AppendF64 appends v little-endian.
func AppendF64(dst []byte, v float64) []byte { return AppendU64(dst, math.Float64bits(v)) }

// AppendU16BE appends v big-endian.
func AppendU16BE(dst []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(dst, v) }

// AppendU24BE appends the low 24 bits of v big-endian.
func AppendU24BE(dst []byte, v uint32) []byte { return append(dst, byte(v>>16), byte(v>>8), byte(v)) }

// AppendU32BE appends v big-endian.
func AppendU32BE(dst []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(dst, v) }

// AppendU64BE appends v big-endian.
func AppendU64BE(dst []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(dst, v) }

// AppendUvarint appends v as unsigned LEB128 (1 to 10 bytes).
func AppendUvarint(dst []byte, v uint64) []byte { return leb128.Append(dst, v) }

// PutU32 overwrites dst[0:4] with v little-endian; used to patch headers.
func PutU32(dst []byte, v uint32) { binary.LittleEndian.PutUint32(dst, v) }

// PutU64 overwrites dst[0:8] with v little-endian; used to patch headers.
func PutU64(dst []byte, v uint64) { binary.LittleEndian.PutUint64(dst, v) }

// Room returns dst with room for n more bytes, its capacity at least doubled
// when it must grow. append grows a large slice by a quarter, so a buffer
// taking long values one after another would be copied at nearly every value;
// Room first keeps the copies to a doubling's.
func Room(dst []byte, n int) []byte {
	if cap(dst)-len(dst) < n {
		g := make([]byte, len(dst), max(2*cap(dst), len(dst)+n))
		copy(g, dst)
		dst = g
	}
	return dst
}
