package ctf2meta

import (
	"bytes"
	"io"
)

// Kind is what a metadata file holds, judged by its first bytes.
type Kind uint8

// Kinds of metadata streams.
const (
	KindUnknown Kind = iota // empty input
	// KindPacketized: the first 4 bytes are the packet magic in either byte order.
	KindPacketized
	// KindCTF2: the first byte is RS (0x1E): a CTF 2 JSON text sequence.
	KindCTF2
	// KindTSDL: anything else, CTF 1.8 TSDL text. LTTng 2.14 kernel traces
	// and old lttng-modules metadata lack the "/* CTF 1.8" signature, so it
	// is not required; see HasTSDLSignature.
	KindTSDL
)

// String returns "packetized", "CTF 2 JSON text sequence", "TSDL text" or
// "unknown".
func (k Kind) String() string {
	switch k {
	case KindPacketized:
		return "packetized"
	case KindCTF2:
		return "CTF 2 JSON text sequence"
	case KindTSDL:
		return "TSDL text"
	}
	return "unknown"
}

// RS is the RFC 7464 record separator that starts every CTF 2 fragment.
const RS = 0x1e

// Detect classifies a raw metadata stream by its first bytes, as babeltrace
// 2.1 and yactfr do: packet magic, else RS → CTF 2, else TSDL text.
func Detect(head []byte) Kind {
	switch {
	case len(head) == 0:
		return KindUnknown
	case IsPacketized(head):
		return KindPacketized
	case head[0] == RS:
		return KindCTF2
	}
	return KindTSDL
}

// ContentVersion returns the CTF version of depacketized (plain) metadata:
// "2.0" if it starts with RS, else "1.8". Decide from the content, not from
// packet headers: lttng-ust's ring buffer labels CTF 2 content 1.8.
func ContentVersion(plain []byte) string {
	if len(plain) > 0 && plain[0] == RS {
		return "2.0"
	}
	return "1.8"
}

// HasTSDLSignature reports whether plain TSDL text starts with "/* CTF 1.8".
func HasTSDLSignature(plain []byte) bool {
	return bytes.HasPrefix(plain, []byte("/* CTF 1.8"))
}

// ToPlain copies the metadata stream r to w as plain text: packetized input
// is depacketized (validated), plain input is copied unchanged. It returns
// the stream summary (zero Packets for plain input).
func ToPlain(w io.Writer, r io.Reader, opts ...ReaderOption) (StreamInfo, error) {
	var head [4]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return StreamInfo{}, err
	}
	src := io.MultiReader(bytes.NewReader(head[:n]), r)
	if Detect(head[:n]) != KindPacketized {
		m, err := io.Copy(w, src)
		return StreamInfo{ContentBytes: m}, err
	}
	rd, err := NewReader(src, opts...)
	if err != nil {
		return StreamInfo{}, err
	}
	_, err = rd.Content().(io.WriterTo).WriteTo(w)
	return rd.Info(), err
}

// ToPacketized copies the metadata stream r into the packet Writer pw and
// closes pw, so its last packet is written. Plain input (TSDL text or a CTF 2
// JSON text sequence) is copied as it is; packetized input is depacketized
// (validated, with opts) first, so it is repacketized with pw's layout, byte
// order, UUID and sizes. It returns the summary of the input's packets (zero
// Packets for plain input); pw.Packets and pw.BytesWritten tell the output.
func ToPacketized(pw *Writer, r io.Reader, opts ...ReaderOption) (StreamInfo, error) {
	info, err := ToPlain(pw, r, opts...)
	if err != nil {
		return info, err
	}
	return info, pw.Close()
}
