package ctfgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// traceSum is the SHA-256 of the files Write writes, in a fixed order.
func traceSum(t *testing.T, dir string, cpus int) string {
	t.Helper()
	names := []string{"metadata"}
	for _, c := range []string{"0", "1", "2", "3"}[:cpus] {
		names = append(names, "channel0_"+c, filepath.Join("index", "channel0_"+c+".idx"))
	}
	h := sha256.New()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// The generator's output is pinned: the benchmark trace of tools/ctfbench
// and the tests of package ctf rely on the same parameters giving the same
// bytes. The sums were taken from the generator as it was in package ctf's
// tests before it moved here.
func TestOutputPinned(t *testing.T) {
	for _, c := range []struct {
		n, cpus, classes, pkt int
		sum                   string
	}{
		{300000, 4, 40, 1 << 20, "50309622a0ccf8edf66068da63c3ee74572a48b87a39839e5ce60f1ed307fb1b"},
	} {
		dir := t.TempDir()
		if err := Write(dir, c.n, c.cpus, c.classes, c.pkt); err != nil {
			t.Fatal(err)
		}
		if got := traceSum(t, dir, c.cpus); got != c.sum {
			t.Errorf("Write(%d, %d, %d, %d): sha256 %s, want %s", c.n, c.cpus, c.classes, c.pkt, got, c.sum)
		}
	}
}

// Two calls with the same parameters give the same bytes; the metadata
// carries the signature babeltrace2 requires of plain TSDL and one event
// record class per id.
func TestDeterministicAndShaped(t *testing.T) {
	d1, i1 := Stream(1, 5000, 7, 4096)
	d2, i2 := Stream(1, 5000, 7, 4096)
	if !bytes.Equal(d1, d2) || !bytes.Equal(i1, i2) {
		t.Fatal("Stream differs between two calls")
	}
	if len(d1)%4096 != 0 || len(d1) < 3*4096 {
		t.Fatalf("stream of %d bytes: want whole packets of 4096, several", len(d1))
	}
	if want := 16 + len(d1)/4096*72; len(i1) != want {
		t.Fatalf("index of %d bytes, want %d", len(i1), want)
	}
	m := Metadata(7)
	if !strings.HasPrefix(m, "/* CTF 1.8 */\n") || strings.Count(m, "\nevent {") != 7 || !strings.Contains(m, `uuid = "`+UUID+`"`) {
		t.Fatalf("metadata:\n%s", m)
	}
	b := BareMetadata(2)
	if strings.Contains(b, "event.header") || strings.Count(b, "\nevent {") != 1 || !strings.Contains(b, `name = "gen:seq_2";`) || !strings.Contains(b, "id = 0;") {
		t.Fatalf("bare metadata:\n%s", b)
	}
	if s := BareStream(2, 100, 1024, 60); !bytes.Equal(s, BareStream(2, 100, 1024, 60)) || bytes.Equal(s, BareStream(2, 100, 1024, 0)) {
		t.Fatal("BareStream: not deterministic or seqMod ignored")
	}
}
