package atf

import (
	"encoding/binary"
	"strconv"
)

// Sizes of the fixed structures (reference notes §1).
const (
	HeaderSize            = 64 // index and detail headers
	FooterSize            = 64 // index and detail footers
	IndexEventSize        = 32
	DetailEventHeaderSize = 24
	// DetailFunctionPayloadSize is the fixed part of DetailFunctionPayload; the
	// stack snapshot follows it.
	DetailFunctionPayloadSize = 100
	// MaxStackSnapshot is the largest stack_size the spec allows.
	MaxStackSnapshot = 256
)

// NoDetail is the detail_seq of an index event without a detail event.
const NoDetail = 0xFFFFFFFF

// Magic strings.
const (
	IndexMagic        = "ATI2"
	IndexFooterMagic  = "2ITA"
	DetailMagic       = "ATD2"
	DetailFooterMagic = "2DTA"
)

const (
	endianLittle  = 1
	formatVersion = 1
	// flagHasDetailFile is bit 0 of the index header flags.
	flagHasDetailFile = 1
)

// Arch is the header's CPU architecture byte.
type Arch uint8

// Architectures.
const (
	ArchX86_64 Arch = 1
	ArchARM64  Arch = 2
)

// String names the architecture (x86_64, arm64), or gives the number.
func (a Arch) String() string {
	switch a {
	case ArchX86_64:
		return "x86_64"
	case ArchARM64:
		return "arm64"
	}
	return "arch(" + strconv.Itoa(int(a)) + ")"
}

// OS is the header's operating-system byte.
type OS uint8

// Operating systems.
const (
	OSiOS     OS = 1
	OSAndroid OS = 2
	OSmacOS   OS = 3
	OSLinux   OS = 4
	OSWindows OS = 5
)

// String names the operating system, or gives the number.
func (o OS) String() string {
	switch o {
	case OSiOS:
		return "iOS"
	case OSAndroid:
		return "Android"
	case OSmacOS:
		return "macOS"
	case OSLinux:
		return "Linux"
	case OSWindows:
		return "Windows"
	}
	return "os(" + strconv.Itoa(int(o)) + ")"
}

// ClockType is the index header's clock source byte.
type ClockType uint8

// Clock sources.
const (
	ClockMachContinuous ClockType = 1
	ClockQPC            ClockType = 2
	ClockBoottime       ClockType = 3
)

// EventKind is an index event's kind.
type EventKind uint32

// Event kinds.
const (
	KindCall      EventKind = 1
	KindReturn    EventKind = 2
	KindException EventKind = 3
)

// String is the reference's name of the kind (CALL, RETURN, EXCEPTION), or
// the number for any other value.
func (k EventKind) String() string {
	switch k {
	case KindCall:
		return "CALL"
	case KindReturn:
		return "RETURN"
	case KindException:
		return "EXCEPTION"
	}
	return "KIND(" + strconv.FormatUint(uint64(k), 10) + ")"
}

// ParseEventKind maps "call", "return", "exception" (any case) or a number to
// an EventKind.
func ParseEventKind(s string) (EventKind, bool) {
	switch lower(s) {
	case "call":
		return KindCall, true
	case "return":
		return KindReturn, true
	case "exception":
		return KindException, true
	}
	v, err := strconv.ParseUint(s, 10, 32)
	return EventKind(v), err == nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// DetailType is a detail event's event_type.
type DetailType uint16

// Detail event types (the only two the format defines).
const (
	DetailFunctionCall   DetailType = 3
	DetailFunctionReturn DetailType = 4
)

// String is the reference's name of the type (FUNCTION_CALL,
// FUNCTION_RETURN), or the number for any other value.
func (t DetailType) String() string {
	switch t {
	case DetailFunctionCall:
		return "FUNCTION_CALL"
	case DetailFunctionReturn:
		return "FUNCTION_RETURN"
	}
	return "TYPE(" + strconv.Itoa(int(t)) + ")"
}

// DetailTypeFor is the detail type the reference writer stores for an index
// event kind: RETURN → FUNCTION_RETURN, anything else (EXCEPTION included) →
// FUNCTION_CALL.
func DetailTypeFor(k EventKind) DetailType {
	if k == KindReturn {
		return DetailFunctionReturn
	}
	return DetailFunctionCall
}

// IndexHeader is the 64-byte header of index.atf (reference notes §1.1).
type IndexHeader struct {
	Endian       uint8
	Version      uint8
	Arch         Arch
	OS           OS
	Flags        uint32 // bit 0: has_detail_file
	ThreadID     uint32
	ClockType    ClockType
	EventSize    uint32
	EventCount   uint32 // 0 until the writer closes
	EventsOffset uint64
	FooterOffset uint64 // == EventsOffset until the writer closes
	TimeStartNs  uint64
	TimeEndNs    uint64
}

// HasDetailFile reports flag bit 0 (only persisted by a finalized writer).
func (h IndexHeader) HasDetailFile() bool { return h.Flags&flagHasDetailFile != 0 }

// AppendIndexHeader appends the 64-byte encoding of h (magic "ATI2").
func AppendIndexHeader(dst []byte, h IndexHeader) []byte {
	dst = append(dst, IndexMagic...)
	dst = append(dst, h.Endian, h.Version, byte(h.Arch), byte(h.OS))
	dst = binary.LittleEndian.AppendUint32(dst, h.Flags)
	dst = binary.LittleEndian.AppendUint32(dst, h.ThreadID)
	dst = append(dst, byte(h.ClockType), 0, 0, 0, 0, 0, 0, 0)
	dst = binary.LittleEndian.AppendUint32(dst, h.EventSize)
	dst = binary.LittleEndian.AppendUint32(dst, h.EventCount)
	dst = binary.LittleEndian.AppendUint64(dst, h.EventsOffset)
	dst = binary.LittleEndian.AppendUint64(dst, h.FooterOffset)
	dst = binary.LittleEndian.AppendUint64(dst, h.TimeStartNs)
	return binary.LittleEndian.AppendUint64(dst, h.TimeEndNs)
}

// parseIndexHeader decodes b[:64] without validating it.
func parseIndexHeader(b []byte) IndexHeader {
	_ = b[63]
	le := binary.LittleEndian
	return IndexHeader{
		Endian: b[4], Version: b[5], Arch: Arch(b[6]), OS: OS(b[7]),
		Flags: le.Uint32(b[8:]), ThreadID: le.Uint32(b[12:]), ClockType: ClockType(b[16]),
		EventSize: le.Uint32(b[24:]), EventCount: le.Uint32(b[28:]),
		EventsOffset: le.Uint64(b[32:]), FooterOffset: le.Uint64(b[40:]),
		TimeStartNs: le.Uint64(b[48:]), TimeEndNs: le.Uint64(b[56:]),
	}
}

// IndexFooter is the 64-byte footer of a finalized index.atf (§1.3: 24
// reserved bytes, not the spec's 28).
type IndexFooter struct {
	Checksum     uint32 // CRC-32 (IEEE) of the events section; 0 = not computed
	EventCount   uint64
	TimeStartNs  uint64
	TimeEndNs    uint64
	BytesWritten uint64 // 32 × EventCount
}

// AppendIndexFooter appends the 64-byte encoding of f (magic "2ITA").
func AppendIndexFooter(dst []byte, f IndexFooter) []byte {
	dst = append(dst, IndexFooterMagic...)
	dst = binary.LittleEndian.AppendUint32(dst, f.Checksum)
	dst = binary.LittleEndian.AppendUint64(dst, f.EventCount)
	dst = binary.LittleEndian.AppendUint64(dst, f.TimeStartNs)
	dst = binary.LittleEndian.AppendUint64(dst, f.TimeEndNs)
	dst = binary.LittleEndian.AppendUint64(dst, f.BytesWritten)
	return append(dst, make([]byte, 24)...)
}

func parseIndexFooter(b []byte) IndexFooter {
	_ = b[63]
	le := binary.LittleEndian
	return IndexFooter{
		Checksum: le.Uint32(b[4:]), EventCount: le.Uint64(b[8:]),
		TimeStartNs: le.Uint64(b[16:]), TimeEndNs: le.Uint64(b[24:]), BytesWritten: le.Uint64(b[32:]),
	}
}

// IndexEvent is one fixed 32-byte record of index.atf. Its sequence number is
// its position in the file.
type IndexEvent struct {
	Timestamp  uint64 // ns, the cross-thread "genlock" clock
	FunctionID uint64 // (module_id << 32) | symbol_index
	ThreadID   uint32
	Kind       EventKind
	CallDepth  uint32
	DetailSeq  uint32 // forward link into detail.atf, NoDetail if none
}

// HasDetail reports whether the event links to a detail event.
func (e IndexEvent) HasDetail() bool { return e.DetailSeq != NoDetail }

// ModuleID is the upper half of FunctionID.
func (e IndexEvent) ModuleID() uint32 { return uint32(e.FunctionID >> 32) }

// SymbolIndex is the lower half of FunctionID.
func (e IndexEvent) SymbolIndex() uint32 { return uint32(e.FunctionID) }

// AppendIndexEvent appends the 32-byte encoding of e.
func AppendIndexEvent(dst []byte, e IndexEvent) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, e.Timestamp)
	dst = binary.LittleEndian.AppendUint64(dst, e.FunctionID)
	dst = binary.LittleEndian.AppendUint32(dst, e.ThreadID)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(e.Kind))
	dst = binary.LittleEndian.AppendUint32(dst, e.CallDepth)
	return binary.LittleEndian.AppendUint32(dst, e.DetailSeq)
}

func putIndexEvent(b []byte, e *IndexEvent) {
	_ = b[31]
	le := binary.LittleEndian
	le.PutUint64(b[0:], e.Timestamp)
	le.PutUint64(b[8:], e.FunctionID)
	le.PutUint32(b[16:], e.ThreadID)
	le.PutUint32(b[20:], uint32(e.Kind))
	le.PutUint32(b[24:], e.CallDepth)
	le.PutUint32(b[28:], e.DetailSeq)
}

// DecodeIndexEvent decodes a 32-byte record; b must hold at least 32 bytes.
func DecodeIndexEvent(b []byte) (IndexEvent, bool) {
	if len(b) < IndexEventSize {
		return IndexEvent{}, false
	}
	return decodeIndexEvent(b), true
}

func decodeIndexEvent(b []byte) IndexEvent {
	_ = b[31]
	le := binary.LittleEndian
	return IndexEvent{
		Timestamp: le.Uint64(b[0:]), FunctionID: le.Uint64(b[8:]), ThreadID: le.Uint32(b[16:]),
		Kind: EventKind(le.Uint32(b[20:])), CallDepth: le.Uint32(b[24:]), DetailSeq: le.Uint32(b[28:]),
	}
}

// DetailHeader is the 64-byte header of detail.atf (§1.4: its u64 fields are
// unaligned and it ends with 4 reserved bytes the spec text leaves out).
type DetailHeader struct {
	Endian        uint8
	Version       uint8
	Arch          Arch
	OS            OS
	Flags         uint32
	ThreadID      uint32
	EventsOffset  uint64
	EventCount    uint64 // 0 until the writer closes
	BytesLength   uint64 // Σ total_length; 0 until the writer closes
	IndexSeqStart uint64 // min linked index_seq; 0 until the writer closes
	IndexSeqEnd   uint64 // max linked index_seq (inclusive)
}

// AppendDetailHeader appends the 64-byte encoding of h (magic "ATD2").
func AppendDetailHeader(dst []byte, h DetailHeader) []byte {
	dst = append(dst, DetailMagic...)
	dst = append(dst, h.Endian, h.Version, byte(h.Arch), byte(h.OS))
	dst = binary.LittleEndian.AppendUint32(dst, h.Flags)
	dst = binary.LittleEndian.AppendUint32(dst, h.ThreadID)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.LittleEndian.AppendUint64(dst, h.EventsOffset)
	dst = binary.LittleEndian.AppendUint64(dst, h.EventCount)
	dst = binary.LittleEndian.AppendUint64(dst, h.BytesLength)
	dst = binary.LittleEndian.AppendUint64(dst, h.IndexSeqStart)
	dst = binary.LittleEndian.AppendUint64(dst, h.IndexSeqEnd)
	return append(dst, 0, 0, 0, 0)
}

func parseDetailHeader(b []byte) DetailHeader {
	_ = b[63]
	le := binary.LittleEndian
	return DetailHeader{
		Endian: b[4], Version: b[5], Arch: Arch(b[6]), OS: OS(b[7]),
		Flags: le.Uint32(b[8:]), ThreadID: le.Uint32(b[12:]),
		EventsOffset: le.Uint64(b[20:]), EventCount: le.Uint64(b[28:]), BytesLength: le.Uint64(b[36:]),
		IndexSeqStart: le.Uint64(b[44:]), IndexSeqEnd: le.Uint64(b[52:]),
	}
}

// DetailFooter is the 64-byte footer of a finalized detail.atf. Its field order
// differs from IndexFooter: BytesLength comes before the times.
type DetailFooter struct {
	Checksum    uint32 // CRC-32 (IEEE) of the events section; 0 = not computed
	EventCount  uint64
	BytesLength uint64
	TimeStartNs uint64
	TimeEndNs   uint64
}

// AppendDetailFooter appends the 64-byte encoding of f (magic "2DTA").
func AppendDetailFooter(dst []byte, f DetailFooter) []byte {
	dst = append(dst, DetailFooterMagic...)
	dst = binary.LittleEndian.AppendUint32(dst, f.Checksum)
	dst = binary.LittleEndian.AppendUint64(dst, f.EventCount)
	dst = binary.LittleEndian.AppendUint64(dst, f.BytesLength)
	dst = binary.LittleEndian.AppendUint64(dst, f.TimeStartNs)
	dst = binary.LittleEndian.AppendUint64(dst, f.TimeEndNs)
	return append(dst, make([]byte, 24)...)
}

func parseDetailFooter(b []byte) DetailFooter {
	_ = b[63]
	le := binary.LittleEndian
	return DetailFooter{
		Checksum: le.Uint32(b[4:]), EventCount: le.Uint64(b[8:]), BytesLength: le.Uint64(b[16:]),
		TimeStartNs: le.Uint64(b[24:]), TimeEndNs: le.Uint64(b[32:]),
	}
}

// DetailEvent is one length-prefixed record of detail.atf: a 24-byte header
// and an opaque payload.
type DetailEvent struct {
	TotalLength uint32 // 24 + len(Payload)
	Type        DetailType
	Flags       uint16
	IndexSeq    uint32 // back link: position of the paired index event
	ThreadID    uint32
	Timestamp   uint64
	Payload     []byte
}

// AppendDetailEventHeader appends the 24-byte record header for a payload of
// payloadLen bytes; the caller appends the payload.
func AppendDetailEventHeader(dst []byte, typ DetailType, flags uint16, indexSeq, threadID uint32, ts uint64, payloadLen int) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(DetailEventHeaderSize+payloadLen))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(typ))
	dst = binary.LittleEndian.AppendUint16(dst, flags)
	dst = binary.LittleEndian.AppendUint32(dst, indexSeq)
	dst = binary.LittleEndian.AppendUint32(dst, threadID)
	return binary.LittleEndian.AppendUint64(dst, ts)
}

func decodeDetailEventHeader(b []byte) DetailEvent {
	_ = b[23]
	le := binary.LittleEndian
	return DetailEvent{
		TotalLength: le.Uint32(b[0:]), Type: DetailType(le.Uint16(b[4:])), Flags: le.Uint16(b[6:]),
		IndexSeq: le.Uint32(b[8:]), ThreadID: le.Uint32(b[12:]), Timestamp: le.Uint64(b[16:]),
	}
}

// DetailFunctionPayload is the ARM64 function payload the spec documents: 100
// bytes followed by StackSize bytes of stack snapshot. (The production tracer
// writes a 516-byte ring-buffer struct instead; payloads are opaque bytes to
// the writer and reader alike.)
type DetailFunctionPayload struct {
	FunctionID uint64
	XRegs      [8]uint64 // x0–x7: arguments, or x0 = return value
	LR         uint64
	FP         uint64
	SP         uint64
	StackSize  uint16 // bytes of stack captured (0–256)
	Reserved   uint16
}

// AppendDetailFunctionPayload appends p and its stack snapshot; p.StackSize is
// written as len(stack).
func AppendDetailFunctionPayload(dst []byte, p *DetailFunctionPayload, stack []byte) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, p.FunctionID)
	for _, r := range p.XRegs {
		dst = binary.LittleEndian.AppendUint64(dst, r)
	}
	dst = binary.LittleEndian.AppendUint64(dst, p.LR)
	dst = binary.LittleEndian.AppendUint64(dst, p.FP)
	dst = binary.LittleEndian.AppendUint64(dst, p.SP)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(stack)))
	dst = binary.LittleEndian.AppendUint16(dst, p.Reserved)
	return append(dst, stack...)
}

// DecodeDetailFunctionPayload decodes a DetailFunctionPayload; stack aliases b.
// ok is false when b is shorter than 100 + stack_size bytes or stack_size > 256.
func DecodeDetailFunctionPayload(b []byte) (p DetailFunctionPayload, stack []byte, ok bool) {
	if len(b) < DetailFunctionPayloadSize {
		return p, nil, false
	}
	le := binary.LittleEndian
	p.FunctionID = le.Uint64(b)
	for i := range p.XRegs {
		p.XRegs[i] = le.Uint64(b[8+8*i:])
	}
	p.LR = le.Uint64(b[72:])
	p.FP = le.Uint64(b[80:])
	p.SP = le.Uint64(b[88:])
	p.StackSize = le.Uint16(b[96:])
	p.Reserved = le.Uint16(b[98:])
	n := int(p.StackSize)
	if n > MaxStackSnapshot || len(b) < DetailFunctionPayloadSize+n {
		return p, nil, false
	}
	return p, b[DetailFunctionPayloadSize : DetailFunctionPayloadSize+n], true
}
