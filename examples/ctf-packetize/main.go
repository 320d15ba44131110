// Command ctf-packetize wraps a CTF 2 metadata stream (a JSON text sequence,
// as LTTng 2.15 and babeltrace 2.1 write it, or metadata already packetized)
// into packets (CTF2-PMETA-1.0 by default), then reads the result back to
// check it.
//
//	go run ./examples/ctf-packetize [-be] [-layout pmeta|1.8|2.0-37] [-size 4096] [IN [OUT]]
//
// Without IN it packetizes a small built-in metadata stream; without OUT it
// only prints what it would write. The packet UUID is the preamble's uuid.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tracecodec/tracecodec/ctf2meta"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// builtin is a minimal CTF 2 metadata stream.
const builtin = "\x1e{\"type\":\"preamble\",\"version\":2,\"uuid\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}\n" +
	"\x1e{\"type\":\"clock-class\",\"id\":\"mono\",\"frequency\":1000000000,\"origin\":\"unix-epoch\"}\n" +
	"\x1e{\"type\":\"data-stream-class\",\"default-clock-class-id\":\"mono\"}\n" +
	"\x1e{\"type\":\"event-record-class\",\"name\":\"example:hello\",\"payload-field-class\":{\"type\":\"structure\"," +
	"\"member-classes\":[{\"name\":\"msg\",\"field-class\":{\"type\":\"null-terminated-string\"}}]}}\n"

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ctf-packetize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	be := fs.Bool("be", false, "big-endian packet headers")
	layoutName := fs.String("layout", "pmeta", "header layout: pmeta (44 bytes, 2.0), 1.8 (37 bytes) or 2.0-37")
	size := fs.Int("size", 4096, "total packet size in bytes")
	if err := fs.Parse(args); err != nil || fs.NArg() > 2 {
		fmt.Fprintln(stderr, "usage: ctf-packetize [-be] [-layout pmeta|1.8|2.0-37] [-size N] [IN [OUT]]")
		return 2
	}
	if err := packetize(fs.Args(), *be, *layoutName, *size, stdout); err != nil {
		fmt.Fprintln(stderr, "ctf-packetize:", err)
		return 1
	}
	return 0
}

func packetize(paths []string, be bool, layoutName string, size int, stdout io.Writer) error {
	raw := []byte(builtin)
	if len(paths) > 0 {
		var err error
		if raw, err = os.ReadFile(paths[0]); err != nil {
			return err
		}
	}
	// Decoding first checks the metadata, packetized or plain, and gives the
	// UUID.
	md, err := ctf2meta.Decode(raw)
	if err != nil {
		return err
	}
	if md.Source.LeadingWhitespace > 0 {
		return errors.New("whitespace before the first RS: babeltrace would read the packets as TSDL")
	}
	var uuid ctf2meta.UUID
	if md.Preamble.UUID != nil {
		uuid = *md.Preamble.UUID
	}
	layout := map[string]ctf2meta.Layout{"pmeta": ctf2meta.LayoutPMETA, "1.8": ctf2meta.LayoutCTF18, "2.0-37": ctf2meta.LayoutV20Short}[layoutName]
	if layout == 0 {
		return fmt.Errorf("unknown layout %q", layoutName)
	}
	bo := ctf2meta.LittleEndian
	if be {
		bo = ctf2meta.BigEndian
	}

	var packets bytes.Buffer
	w, err := ctf2meta.NewWriter(&packets, ctf2meta.WithLayout(layout), ctf2meta.WithByteOrder(bo), ctf2meta.WithUUID(uuid), ctf2meta.WithPacketSize(size))
	if err != nil {
		return err
	}
	// Plain input is packetized, packetized input repacketized.
	if _, err := ctf2meta.ToPacketized(w, bytes.NewReader(raw)); err != nil {
		return err
	}

	// Read the packets back, strictly, and compare with the input's text.
	back, info, err := ctf2meta.Depacketize(nil, packets.Bytes(), ctf2meta.WithStrict(true))
	if err != nil {
		return fmt.Errorf("reading our own packets: %w", err)
	}
	var plain bytes.Buffer
	if _, err := ctf2meta.ToPlain(&plain, bytes.NewReader(raw)); err != nil {
		return err
	}
	if !bytes.Equal(back, plain.Bytes()) {
		return errors.New("depacketized metadata differs from the input")
	}
	out := "(not written)"
	if len(paths) == 2 {
		out = paths[1]
		if err := os.WriteFile(out, packets.Bytes(), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "%s: %s input, %d fragments in %d packets (%s, %s, UUID %s), %d bytes\n",
		out, md.Source.Kind, len(md.Fragments), info.Packets, info.Layout, info.ByteOrder, info.UUID, packets.Len())
	return nil
}
