package ctf2meta

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/lincost"
)

// linearBase is the base size of the linearity inputs, in bytes (or in
// elements for the fragment shapes).
const linearBase = 256 << 10

// ercs is a CTF 2 stream of n event-record-class fragments (the most
// fragments per byte).
func ercs(n int) []byte {
	var b strings.Builder
	b.WriteString("\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\"}")
	for i := 0; i < n; i++ {
		b.WriteString("\x1e{\"type\":\"event-record-class\",\"id\":" + strconv.Itoa(i) + "}")
	}
	return []byte(b.String())
}

// variantOptions is one event record class whose payload is a variant of
// n options (the intersecting-ranges check's input).
func variantOptions(n int) []byte {
	var b strings.Builder
	b.WriteString("\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\"}\x1e{\"type\":\"event-record-class\",\"payload-field-class\":{\"type\":\"structure\",\"member-classes\":[")
	b.WriteString(`{"name":"sel","field-class":{"type":"fixed-length-unsigned-integer","length":32,"byte-order":"little-endian"}},{"name":"v","field-class":{"type":"variant","selector-field-location":{"path":["sel"]},"options":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"selector-field-ranges":[[` + strconv.Itoa(i) + `,` + strconv.Itoa(i) + `]],"field-class":{"type":"null-terminated-string"}}`)
	}
	b.WriteString("]}}]}}")
	return []byte(b.String())
}

// locations is one structure of n dynamic-length strings, each with a
// field location to resolve.
func locations(n int) []byte {
	var b strings.Builder
	b.WriteString("\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\"}\x1e{\"type\":\"event-record-class\",\"payload-field-class\":{\"type\":\"structure\",\"member-classes\":[")
	b.WriteString(`{"name":"len","field-class":{"type":"fixed-length-unsigned-integer","length":8,"byte-order":"little-endian"}}`)
	for i := 0; i < n; i++ {
		b.WriteString(`,{"name":"m` + strconv.Itoa(i) + `","field-class":{"type":"dynamic-length-string","length-field-location":{"path":["len"]}}}`)
	}
	b.WriteString("]}}")
	return []byte(b.String())
}

func linearDecode(in []byte) (int, error) {
	m, err := Decode(in)
	if err != nil {
		return 0, err
	}
	_ = m
	return bytes.Count(in, []byte{0x1e}) + bytes.Count(in, []byte{','}), nil
}

func linearDecodePacketized(in []byte) (int, error) {
	_, err := DecodeMetadata(bytes.NewReader(in))
	return len(in) / 4096, err
}

func linearDepacketize(in []byte) (int, error) {
	_, info, err := Depacketize(nil, in)
	return int(info.Packets), err
}

func linearStream(in []byte) (int, error) {
	r, err := NewReader(bytes.NewReader(in))
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(io.Discard, r.Content())
	return int(n / 4096), err
}

func linearPlain(in []byte) (int, error) {
	info, err := ToPlain(io.Discard, bytes.NewReader(in))
	return int(info.ContentBytes / 64), err
}

func linearCases() []lincost.Case {
	tsdl := func(_ testing.TB, s int) []byte { return syntheticMetadata(linearBase * s) }
	packets := func(tb testing.TB, s int) []byte { return packetized(tb, tsdl(tb, s), WithPacketSize(4096)) }
	numbers := func(_ testing.TB, s int) []byte { return inAttributes(repeatJSON("[", "1", "]", linearBase*s)) }
	return []lincost.Case{
		{Name: "json-numbers", Gen: numbers, Decode: linearDecode},
		{Name: "json-ercs", Gen: func(_ testing.TB, s int) []byte { return ercs(4000 * s) }, Decode: linearDecode},
		{Name: "json-variant-options", Gen: func(_ testing.TB, s int) []byte { return variantOptions(2000 * s) }, Decode: linearDecode},
		{Name: "json-locations", Gen: func(_ testing.TB, s int) []byte { return locations(2000 * s) }, Decode: linearDecode},
		{Name: "json-ercs-packetized", Gen: func(tb testing.TB, s int) []byte { return packetized(tb, ercs(4000*s), WithPacketSize(4096)) }, Decode: linearDecodePacketized},
		{Name: "tsdl-depacketize", Gen: packets, Decode: linearDepacketize},
		{Name: "tsdl-packet-stream", Gen: packets, Decode: linearStream},
		{Name: "tsdl-plain", Gen: tsdl, Decode: linearPlain},
	}
}

// BenchmarkLinear decodes the worst-case shapes of hostile_test.go (CTF 2
// JSON: huge arrays, many fragments, many variant options, many field
// locations; packetized streams of 4 KiB packets; plain TSDL text) at 1×, 4×
// and 16× the base size: the cpu-ns/B column is the constant of the package
// doc's time budget, and must not grow with the size.
func BenchmarkLinear(b *testing.B) {
	lincost.BenchCases(b, linearCases())
}

// TestLinearAllocs: allocation per input byte does not grow with the input.
func TestLinearAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("decodes tens of megabytes")
	}
	lincost.CheckAllocsCases(t, linearCases())
}
