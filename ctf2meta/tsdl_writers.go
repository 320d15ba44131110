package ctf2meta

import (
	"bytes"
	"errors"
)

// ErrReadersReject: the output asked for is valid for this package but the
// reference readers refuse it (WriteCheck).
var ErrReadersReject = errors.New("ctf2meta: babeltrace2 rejects this output")

// TSDLSignature is the line babeltrace2's `-o ctf-metadata` puts before
// TSDL text that lacks it ("/* CTF 1.8 */" and an empty line).
const TSDLSignature = "/* CTF 1.8 */\n\n"

// WriteCheck says whether babeltrace2 (2.0.4 and 2.1.2) reads packetized
// metadata of the given layout holding plain (depacketized) metadata text.
// It returns an error wrapping ErrReadersReject when it does not:
//
//   - CTF 2 content (first byte RS) in packets of any layout: babeltrace2
//     2.1.2 reads CTF 2 only as a plain file starting with RS; it expects
//     version-1.8 headers and parses their content as TSDL ("Expecting
//     metadata stream packet version 1.8: actual-version=2.0", or "Invalid
//     character" for 1.8 headers around JSON);
//   - TSDL content in version-2.0 headers (PMETA or the 37-byte v2.0
//     layout): 2.0.4 accepts only version 1.8 packets and 2.1.2 reads
//     version-2.0 packets as CTF 2.
func WriteCheck(plain []byte, l Layout) error {
	if ContentVersion(trimLeadingSpace(plain)) == "2.0" {
		return newErr(0, ErrReadersReject, "CTF 2 metadata in packets: babeltrace2 reads CTF 2 only as a plain file starting with RS (0x1E) and rejects packetized CTF 2 (\"Expecting metadata stream packet version 1.8\"); write it plain")
	}
	if l != LayoutCTF18 {
		return newErr(0, ErrReadersReject, "TSDL (CTF 1.8) text in version-2.0 packet headers: babeltrace2 2.0 and 2.1 reject such packets; use the 1.8 layout")
	}
	return nil
}

func trimLeadingSpace(b []byte) []byte {
	return bytes.TrimLeft(b, " \t\r\n")
}

// AppendPlainForReaders appends plain metadata text as a plain metadata
// file babeltrace2 reads: TSDL text lacking the "/* CTF 1.8" signature
// (LTTng kernel and heartbeat traces) gets TSDLSignature first, as
// babeltrace2's `-o ctf-metadata` writes it (babeltrace2 2.0.4 rejects a
// plain file without it: "Invalid metadata version found in plain text
// signature"); CTF 2 text and signed TSDL are copied unchanged.
func AppendPlainForReaders(dst, plain []byte) []byte {
	if t := trimLeadingSpace(plain); len(t) > 0 && ContentVersion(t) == "1.8" && !HasTSDLSignature(plain) {
		dst = append(dst, TSDLSignature...)
	}
	return append(dst, plain...)
}
