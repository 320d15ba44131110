package ctf2meta_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tracecodec/tracecodec/ctf2meta"
)

// Packetize CTF 2 metadata as CTF2-PMETA-1.0, read it back and decode it.
func Example() {
	metadata := "\x1e{\"type\":\"preamble\",\"version\":2}\n" +
		"\x1e{\"type\":\"data-stream-class\"}\n" +
		"\x1e{\"type\":\"event-record-class\",\"name\":\"hello\",\"payload-field-class\":" +
		"{\"type\":\"structure\",\"member-classes\":[{\"name\":\"msg\",\"field-class\":{\"type\":\"null-terminated-string\"}}]}}\n"

	var packets bytes.Buffer
	w, _ := ctf2meta.NewWriter(&packets, ctf2meta.WithLayout(ctf2meta.LayoutPMETA), ctf2meta.WithPacketSize(128))
	w.Write([]byte(metadata))
	w.Close()

	plain, info, err := ctf2meta.Depacketize(nil, packets.Bytes())
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Packets, "packets,", info.Layout.VersionString(), "headers, identical:", string(plain) == metadata)

	md, err := ctf2meta.Decode(plain)
	if err != nil {
		panic(err)
	}
	for _, f := range md.Fragments {
		fmt.Println(f.FragmentType())
	}
	payload := md.EventRecordClasses[0].PayloadFieldClass.(*ctf2meta.Structure)
	fmt.Println(md.EventRecordClasses[0].Name, payload.MemberClasses[0].Name, payload.MemberClasses[0].FieldClass.Type())
	// Output:
	// 3 packets, 2.0 headers, identical: true
	// preamble
	// data-stream-class
	// event-record-class
	// hello msg null-terminated-string
}

// Iterate over packets and their headers.
func ExampleReader() {
	var packets bytes.Buffer
	w, _ := ctf2meta.NewWriter(&packets, ctf2meta.WithLayout(ctf2meta.LayoutCTF18), ctf2meta.WithByteOrder(ctf2meta.BigEndian),
		ctf2meta.WithContentSize(16, 4))
	w.Write([]byte("/* CTF 1.8 */\ntrace { major = 1; minor = 8; };\n"))
	w.Close()

	r, _ := ctf2meta.NewReader(&packets)
	for p := range r.All() {
		if p == nil {
			break
		}
		fmt.Printf("packet %d at %d: %s, %d content bytes, %d padding bytes\n", p.Index, p.Offset, p.Header.ByteOrder, len(p.Content), p.Header.PaddingSize())
	}
	fmt.Println("error:", r.Err())
	// Output:
	// packet 0 at 0: big-endian, 16 content bytes, 4 padding bytes
	// packet 1 at 57: big-endian, 16 content bytes, 4 padding bytes
	// packet 2 at 114: big-endian, 15 content bytes, 4 padding bytes
	// error: <nil>
}

// Errors name the packet and its byte offset.
func ExampleDepacketize_error() {
	h, _ := ctf2meta.NewHeader(ctf2meta.LayoutPMETA, ctf2meta.LittleEndian, ctf2meta.UUID{1}, 4, 0)
	stream, _ := ctf2meta.AppendPacket(nil, h, []byte("\x1e{}\n"), 0)
	h.UUID[0] = 2
	stream, _ = ctf2meta.AppendPacket(stream, h, []byte("more"), 0)
	_, _, err := ctf2meta.Depacketize(nil, stream)
	fmt.Println(err)
	// Output:
	// ctf2meta: offset 48: packet 1: UUID 02000000-0000-0000-0000-000000000000 differs from packet 0's 01000000-0000-0000-0000-000000000000
}

// Build fragments as Go values and write a CTF 2 metadata stream.
func ExampleFragmentWriter() {
	var out strings.Builder
	fw, err := ctf2meta.NewFragmentWriter(&out, ctf2meta.WithLF(true))
	if err != nil {
		panic(err)
	}
	fw.WriteFragment(&ctf2meta.Preamble{Version: 2})
	fw.WriteFragment(&ctf2meta.ClockClass{ID: "mono", Frequency: 1e9, Origin: &ctf2meta.ClockOrigin{UnixEpoch: true}})
	fw.WriteFragment(&ctf2meta.DataStreamClass{DefaultClockClassID: "mono"})
	if err := fw.Close(); err != nil {
		panic(err)
	}
	fmt.Print(strings.ReplaceAll(out.String(), "\x1e", "<RS>"))
	// Output:
	// <RS>{"type":"preamble","version":2}
	// <RS>{"frequency":1000000000,"id":"mono","origin":"unix-epoch","type":"clock-class"}
	// <RS>{"default-clock-class-id":"mono","type":"data-stream-class"}
}

// Write packetized CTF 2 metadata (a FragmentWriter over a packet Writer),
// then decode it in one call, which reads packetized and plain metadata alike
// and says which it found.
func ExampleDecodeMetadata() {
	var packets bytes.Buffer
	pw, _ := ctf2meta.NewWriter(&packets, ctf2meta.WithPacketSize(64))
	fw, _ := ctf2meta.NewFragmentWriter(pw)
	fw.WriteFragment(&ctf2meta.Preamble{Version: 2})
	fw.WriteFragment(&ctf2meta.DataStreamClass{ID: 7})
	fw.WriteFragment(&ctf2meta.EventRecordClass{DataStreamClassID: 7, ID: 3, Name: "tick"})
	fw.Close()
	pw.Close() // writes the last packet

	md, err := ctf2meta.DecodeMetadata(&packets)
	if err != nil {
		panic(err)
	}
	fmt.Println(md.Source.Kind, "input,", md.Source.Stream.Packets, "packets of", md.Source.Stream.Layout.VersionString())
	fmt.Println(md.EventRecordClass(7, 3).Name)
	// Output:
	// packetized input, 8 packets of 2.0
	// tick
}

// Decode CTF 2 metadata straight from packetized input, fragment by
// fragment, without holding the depacketized text.
func ExampleFragmentReader() {
	var packets bytes.Buffer
	w, _ := ctf2meta.NewWriter(&packets, ctf2meta.WithPacketSize(64))
	w.Write([]byte("\x1e{\"type\":\"preamble\",\"version\":2}\x1e{\"type\":\"data-stream-class\",\"id\":7}" +
		"\x1e{\"type\":\"event-record-class\",\"data-stream-class-id\":7,\"id\":3,\"name\":\"tick\"}"))
	w.Close()

	d, _ := ctf2meta.NewFragmentReader(&packets)
	for f, err := range d.All() {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("#%d at %d: %s\n", d.Index(), d.Offset(), f.FragmentType())
	}
	fmt.Println(d.Metadata().EventRecordClass(7, 3).Name, "in", d.Source().Stream.Packets, "packets")
	// Output:
	// #1 at 0: preamble
	// #2 at 32: data-stream-class
	// #3 at 68: event-record-class
	// tick in 8 packets
}
