// Command ctf-packetize wraps a CTF 2 metadata stream (a JSON text sequence,
// as LTTng 2.15 and babeltrace 2.1 write it) into CTF2-PMETA-1.0 packets,
// then reads the result back to check it.
//
//	go run ./examples/ctf-packetize [-be] [-layout pmeta|1.8|2.0-37] [-size 4096] [[IN] OUT]
//
// Without IN it packetizes a small built-in metadata stream. Without OUT it
// writes into a temporary folder, lists the packets and removes the folder.
// The packet UUID is the preamble's uuid.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
		fmt.Fprintln(stderr, "usage: ctf-packetize [-be] [-layout pmeta|1.8|2.0-37] [-size N] [[IN] OUT]")
		return 2
	}
	if err := packetize(fs.Args(), *be, *layoutName, *size, stdout); err != nil {
		fmt.Fprintln(stderr, "ctf-packetize:", err)
		return 1
	}
	return 0
}

func packetize(paths []string, be bool, layoutName string, size int, stdout io.Writer) error {
	plain := []byte(builtin)
	if len(paths) == 0 {
		dir, err := os.MkdirTemp("", "ctf-packetize-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		paths = []string{filepath.Join(dir, "metadata")}
		defer listPackets(paths[0], stdout)
	}
	out := paths[0]
	if len(paths) == 2 {
		var err error
		if plain, err = os.ReadFile(paths[0]); err != nil {
			return err
		}
		out = paths[1]
	}
	if ctf2meta.Detect(plain) != ctf2meta.KindCTF2 {
		return errors.New("input is not a plain CTF 2 metadata stream (first byte must be RS, 0x1E)")
	}
	// Decoding first checks the metadata and gives the UUID.
	md, err := ctf2meta.Decode(plain)
	if err != nil {
		return err
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
	if _, err := w.Write(plain); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}

	// Read the packets back, strictly, and compare.
	back, info, err := ctf2meta.Depacketize(nil, packets.Bytes(), ctf2meta.WithStrict(true))
	if err != nil {
		return fmt.Errorf("reading our own packets: %w", err)
	}
	if !bytes.Equal(back, plain) {
		return errors.New("depacketized metadata differs from the input")
	}
	if err := os.WriteFile(out, packets.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d fragments in %d packets (%s, %s, UUID %s), %d bytes\n",
		out, len(md.Fragments), info.Packets, info.Layout, info.ByteOrder, info.UUID, packets.Len())
	return nil
}

// listPackets prints where each packet of the file at path starts and how
// much metadata it carries.
func listPackets(path string, stdout io.Writer) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return
	}
	r, err := ctf2meta.NewReader(bytes.NewReader(raw))
	if err != nil {
		return
	}
	for r.Next() {
		p := r.Packet()
		fmt.Fprintf(stdout, "  packet %d at offset %d: %d bytes of metadata\n", p.Index, p.Offset, len(p.Content))
	}
	fmt.Fprintln(stdout, "(written to a temporary folder, now removed: pass OUT to keep the packets)")
}
