package schema7

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

var traceVectors = []string{
	"v7_tiny_3ticks_chunk2",
	"v7_tiny_3ticks_chunk2_uncompressed_flags2",
	"v7_small_300ticks",
	"v7_diverge_A",
	"v7_diverge_B",
}

func openVector(t testing.TB, name string) (*cdt.File, []byte) {
	t.Helper()
	data := vectortest.Read(t, "cdt", name+".cdt")
	r, err := cdt.Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, data
}

// decodedJSON renders a trace the way the reference's decoded.json files are
// written: {"meta","footer","ticks"} via msgspec.to_builtins, compact.
func decodedJSON(t testing.TB, r *cdt.File) []byte {
	t.Helper()
	meta, err := ReadMeta(r)
	if err != nil {
		t.Fatal(err)
	}
	out := []byte(`{"meta":`)
	out = AppendJSON(out, meta)
	out = append(out, `,"footer":`...)
	out = AppendJSON(out, FooterOf(r.Footer()))
	out = append(out, `,"ticks":[`...)
	var rec TickRecord
	n := 0
	for row, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Decode(row.Raw); err != nil {
			t.Fatalf("tick %d: %v", row.Tick, err)
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = AppendJSON(out, &rec)
	}
	return append(out, "]}"...)
}

func TestDecodedJSON(t *testing.T) {
	for _, name := range traceVectors {
		t.Run(name, func(t *testing.T) {
			r, _ := openVector(t, name)
			got := decodedJSON(t, r)
			want := vectortest.Read(t, "cdt", name+".decoded.json")
			if err := jsonValuesEqual(got, want); err != nil {
				t.Fatalf("decoded JSON differs from %s.decoded.json: %v", name, err)
			}
			if !bytes.Equal(got, bytes.TrimRight(want, "\n")) {
				t.Errorf("values equal, bytes differ (len %d vs %d)", len(got), len(want))
			}
		})
	}
}

// TestReencodePayloads checks that every META, TICK row and FOTR payload
// re-encodes from the typed values to the exact bytes msgspec wrote.
func TestReencodePayloads(t *testing.T) {
	for _, name := range traceVectors {
		t.Run(name, func(t *testing.T) {
			r, _ := openVector(t, name)
			meta, err := ReadMeta(r)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := meta.MarshalMsg(nil)
			if !bytes.Equal(b, r.MetaPayload()) {
				t.Fatalf("meta re-encodes differently:\n got %x\nwant %x", b, r.MetaPayload())
			}
			var rec TickRecord
			for row, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				if err := rec.Decode(row.Raw); err != nil {
					t.Fatal(err)
				}
				b, _ = rec.MarshalMsg(b[:0])
				if !bytes.Equal(b, row.Raw) {
					t.Fatalf("tick %d re-encodes differently:\n got %x\nwant %x", row.Tick, b, row.Raw)
				}
			}
		})
	}
}

// TestLayoutPayloadHex compares our encoding of the decoded payloads with the
// msgpack_payload_hex of each chunk in the layout files.
func TestLayoutPayloadHex(t *testing.T) {
	for _, name := range traceVectors[:2] {
		t.Run(name, func(t *testing.T) {
			var lay struct {
				Chunks []struct {
					Kind string `json:"kind"`
					Hex  string `json:"msgpack_payload_hex"`
				} `json:"chunks"`
			}
			if err := json.Unmarshal(vectortest.Read(t, "cdt", name+".layout.json"), &lay); err != nil {
				t.Fatal(err)
			}
			for i, c := range lay.Chunks {
				want, _ := hex.DecodeString(c.Hex)
				var got []byte
				switch c.Kind {
				case "META":
					var m TraceMeta
					if err := m.Decode(want); err != nil {
						t.Fatal(err)
					}
					got, _ = m.MarshalMsg(nil)
				case "TICK":
					var b TickBlock
					if err := b.Decode(want); err != nil {
						t.Fatal(err)
					}
					got, _ = b.MarshalMsg(nil)
				case "FOTR":
					var f TraceFooter
					if err := f.Decode(want); err != nil {
						t.Fatal(err)
					}
					got, _ = f.MarshalMsg(nil)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("chunk %d (%s): encoding differs\n got %x\nwant %x", i, c.Kind, got, want)
				}
			}
		})
	}
}

// jsonValuesEqual compares two JSON texts as values: objects as key sets,
// numbers exactly (integers as big integers, other numbers as float64).
func jsonValuesEqual(a, b []byte) error {
	var va, vb any
	da := json.NewDecoder(bytes.NewReader(a))
	da.UseNumber()
	if err := da.Decode(&va); err != nil {
		return fmt.Errorf("ours: %w", err)
	}
	db := json.NewDecoder(bytes.NewReader(b))
	db.UseNumber()
	if err := db.Decode(&vb); err != nil {
		return fmt.Errorf("theirs: %w", err)
	}
	return valuesEqual("$", va, vb)
}

func valuesEqual(path string, a, b any) error {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return fmt.Errorf("%s: %v vs %v", path, short(a), short(b))
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok {
				return fmt.Errorf("%s: key %q missing", path, k)
			}
			if err := valuesEqual(path+"."+k, v, w); err != nil {
				return err
			}
		}
		return nil
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Errorf("%s: %v vs %v", path, short(a), short(b))
		}
		for i := range x {
			if err := valuesEqual(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); err != nil {
				return err
			}
		}
		return nil
	case json.Number:
		y, ok := b.(json.Number)
		if !ok || !numbersEqual(x, y) {
			return fmt.Errorf("%s: %v vs %v", path, a, b)
		}
		return nil
	}
	if a != b {
		return fmt.Errorf("%s: %v vs %v", path, short(a), short(b))
	}
	return nil
}

func numbersEqual(a, b json.Number) bool {
	isInt := func(s string) bool { return !strings.ContainsAny(s, ".eE") }
	if isInt(string(a)) && isInt(string(b)) {
		x, _ := new(big.Int).SetString(string(a), 10)
		y, _ := new(big.Int).SetString(string(b), 10)
		return x != nil && y != nil && x.Cmp(y) == 0
	}
	x, err1 := strconv.ParseFloat(string(a), 64)
	y, err2 := strconv.ParseFloat(string(b), 64)
	return err1 == nil && err2 == nil && x == y
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// TestRecordsMatchesRows checks the one-pass typed iteration against the
// container's split rows, sequential and parallel, over a sub-range.
func TestRecordsMatchesRows(t *testing.T) {
	for _, conc := range []int{1, 3} {
		data := vectortest.Read(t, "cdt", "v7_diverge_A.cdt")
		r, err := cdt.Open(bytes.NewReader(data), int64(len(data)), cdt.WithConcurrency(conc))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var want [][]byte
		for row, err := range r.Range(100, 300) {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, bytes.Clone(row.Raw))
		}
		i := 0
		var buf []byte
		for rec, err := range Records(r, 100, 300) {
			if err != nil {
				t.Fatal(err)
			}
			buf, _ = rec.MarshalMsg(buf[:0])
			if !bytes.Equal(buf, want[i]) {
				t.Fatalf("record %d differs", i)
			}
			i++
		}
		if i != len(want) || i != 201 {
			t.Fatalf("%d records, want %d", i, len(want))
		}
	}
}
