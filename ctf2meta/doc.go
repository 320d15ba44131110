// Package ctf2meta reads and writes CTF metadata streams: packetized metadata
// (CTF 1.8 §7.1 37-byte headers, CTF2-PMETA-1.0 44-byte headers, and the
// 37-byte version-2.0 headers of the LTTng kernel ring buffer), plain CTF 1.8
// TSDL text, and CTF 2 metadata streams (RFC 7464 JSON text sequences of
// fragments) decoded into typed Go values.
package ctf2meta
