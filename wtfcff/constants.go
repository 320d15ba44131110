package wtfcff

import "strconv"

// File header words.
const (
	// Magic is the first little-endian word of a binary CFF file (bytes EF BE AD DE).
	Magic = 0xDEADBEEF
	// FormatVersion is wtf.data.formats.ChunkedFileFormat.VERSION, the only
	// binary and JSON CFF version the reference reads.
	FormatVersion = 10
	// LegacyFormatVersion is wtf.data.formats.BinaryTrace.VERSION, the
	// big-endian pre-CFF format read by NewReader and LegacyReader.
	LegacyFormatVersion = 3
	// JSWTFVersion is the full wtf.version.getValue() of the last JS release
	// (2015.7.15-1) as the JSON container stores it.
	JSWTFVersion = 1436947200000
	// JSWTFVersionWord is JSWTFVersion mod 2^32, as the binary header stores it.
	JSWTFVersionWord = 0x90BA3800
	// CppWTFVersionWord is the version word written by the C++ bindings.
	CppWTFVersionWord = 0xE8214400
	// CppWTFVersion is the full number behind CppWTFVersionWord.
	CppWTFVersion = 1408348800000
	// InvalidTime is the chunk start/end time the JS writer always writes.
	InvalidTime = 0xFFFFFFFF

	fileHeaderSize  = 12
	chunkHeaderSize = 24
	partEntrySize   = 12
)

// ChunkType is the type word of a chunk.
type ChunkType uint32

// Chunk types.
const (
	ChunkFileHeader ChunkType = 0x1
	ChunkEventData  ChunkType = 0x2
)

// String returns the reference's name ("file_header", "event_data") or
// "chunk_0xN" for a type the reference does not know.
func (t ChunkType) String() string {
	switch t {
	case ChunkFileHeader:
		return "file_header"
	case ChunkEventData:
		return "event_data"
	}
	return "chunk_0x" + strconv.FormatUint(uint64(t), 16)
}

// Known reports whether the reference reader understands chunks of this type.
func (t ChunkType) Known() bool { return t == ChunkFileHeader || t == ChunkEventData }

// PartType is the type word of a part.
type PartType uint32

// Part types.
const (
	PartFileHeader        PartType = 0x10000
	PartJSONEventBuffer   PartType = 0x20000
	PartLegacyEventBuffer PartType = 0x20001
	PartBinaryEventBuffer PartType = 0x20002
	PartStringTable       PartType = 0x30000
	PartBinaryResource    PartType = 0x40000
	PartStringResource    PartType = 0x40001
)

// String returns the reference's name ("string_table", …) or "part_0xN".
func (t PartType) String() string {
	switch t {
	case PartFileHeader:
		return "file_header"
	case PartJSONEventBuffer:
		return "json_event_buffer"
	case PartLegacyEventBuffer:
		return "legacy_event_buffer"
	case PartBinaryEventBuffer:
		return "binary_event_buffer"
	case PartStringTable:
		return "string_table"
	case PartBinaryResource:
		return "binary_resource"
	case PartStringResource:
		return "string_resource"
	}
	return "part_0x" + strconv.FormatUint(uint64(t), 16)
}

// Known reports whether the reference reader understands parts of this type.
func (t PartType) Known() bool {
	switch t {
	case PartFileHeader, PartJSONEventBuffer, PartLegacyEventBuffer, PartBinaryEventBuffer,
		PartStringTable, PartBinaryResource, PartStringResource:
		return true
	}
	return false
}

func chunkTypeFromString(s string) (ChunkType, bool) {
	switch s {
	case "file_header":
		return ChunkFileHeader, true
	case "event_data":
		return ChunkEventData, true
	}
	if v, ok := hexSuffix(s, "chunk_0x"); ok {
		return ChunkType(v), true
	}
	return 0, false
}

func partTypeFromString(s string) (PartType, bool) {
	for _, t := range []PartType{PartFileHeader, PartJSONEventBuffer, PartLegacyEventBuffer,
		PartBinaryEventBuffer, PartStringTable, PartBinaryResource, PartStringResource} {
		if t.String() == s {
			return t, true
		}
	}
	if v, ok := hexSuffix(s, "part_0x"); ok {
		return PartType(v), true
	}
	return 0, false
}

func hexSuffix(s, prefix string) (uint32, bool) {
	if len(s) <= len(prefix) || s[:len(prefix)] != prefix {
		return 0, false
	}
	v, err := strconv.ParseUint(s[len(prefix):], 16, 32)
	return uint32(v), err == nil
}

// Event classes (wtf.data.EventClass).
const (
	ClassInstance = 0
	ClassScope    = 1
)

// Event flags (wtf.data.EventFlag).
const (
	FlagHighFrequency   = 1 << 1
	FlagSystemTime      = 1 << 2
	FlagInternal        = 1 << 3
	FlagAppendScopeData = 1 << 4
	FlagBuiltin         = 1 << 5
	FlagAppendFlowData  = 1 << 6
)

// File flags (wtf.data.formats.FileFlags) and their header strings.
const (
	FileFlagHighResolutionTimes = 1 << 0 // "has_high_resolution_times"
	FileFlagTimesAsCount        = 1 << 1 // "times_as_count"
)

// String-table ordinal sentinels.
const (
	NullString  = 0xFFFFFFFF // the string is null
	EmptyString = 0xFFFFFFFE // the string is ""
)
