// Package wtfcff reads and writes Google Web Tracing Framework (WTF) traces:
// the chunked file format (CFF v10) in its binary form (.wtf-trace) and its
// JSON form (.wtf-json), and reads the legacy big-endian BinaryTrace v3 files.
package wtfcff
