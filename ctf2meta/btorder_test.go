package ctf2meta

import (
	"bytes"
	"strings"
	"testing"
)

// Mappings keep their metadata order (MappingOrder) through both JSON
// decoding paths (the direct one: an event record class; the generic one:
// a trace class's packet header) and TSDL, and MarshalFragment writes them
// in it; BabeltraceMappingOrder gives babeltrace2 2.1.2's label order for
// twenty labels A … T in text order (the lists babeltrace2 printed for the
// same metadata: CTF 2 through two unordered_maps, TSDL through one).
func TestMappingOrder(t *testing.T) {
	enum := `{"type":"fixed-length-unsigned-integer","length":8,"byte-order":"little-endian","mappings":{"b":[[0,0]],"a":[[1,1]],"c":[[2,2]]}}`
	for _, text := range []string{
		`{"type":"event-record-class","payload-field-class":{"type":"structure","member-classes":[{"name":"x","field-class":` + enum + `}]}}`,
		`{"type":"trace-class","packet-header-field-class":{"type":"structure","member-classes":[{"name":"x","field-class":` + enum + `}]}}`,
	} {
		f, err := DecodeFragment([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		var s *Structure
		switch f := f.(type) {
		case *EventRecordClass:
			s = f.PayloadFieldClass.(*Structure)
		case *TraceClass:
			s = f.PacketHeaderFieldClass.(*Structure)
		}
		p := s.MemberClasses[0].FieldClass.(*FixedLengthUnsignedInteger).IntegerProps
		if strings.Join(p.MappingOrder, ",") != "b,a,c" {
			t.Errorf("%s: MappingOrder %q", f.FragmentType(), p.MappingOrder)
		}
		out, err := MarshalFragment(f)
		if err != nil || !bytes.Contains(out, []byte(`"mappings":{"b":[[0,0]],"a":[[1,1]],"c":[[2,2]]}`)) {
			t.Errorf("%s: %v %s", f.FragmentType(), err, out)
		}
	}
	m, err := ParseTSDL([]byte(`trace { major = 1; minor = 8; byte_order = le; }; event { name = "e"; fields := struct { enum : integer { size = 8; } { b, a, c, b = 7 } x; }; };`))
	if err != nil {
		t.Fatal(err)
	}
	p := m.EventRecordClasses[0].PayloadFieldClass.(*Structure).MemberClasses[0].FieldClass.(*FixedLengthUnsignedInteger).IntegerProps
	if strings.Join(p.MappingOrder, ",") != "b,a,c" {
		t.Errorf("TSDL: MappingOrder %q", p.MappingOrder)
	}

	var letters []string
	p = IntegerProps{Mappings: map[string]RangeSet{}}
	for c := 'A'; c <= 'T'; c++ {
		letters = append(letters, string(c))
		p.Mappings[string(c)] = RangeSet{{Int(0), Int(0)}}
	}
	p.MappingOrder = letters
	if got := strings.Join(BabeltraceMappingOrder(&p, false), ""); got != "MRLPJKGTBHQFNOACDISE" {
		t.Errorf("CTF 2 order %s", got)
	}
	if got := strings.Join(BabeltraceMappingOrder(&p, true), ""); got != "TQONACDIBHSEFGKJPLRM" {
		t.Errorf("TSDL order %s", got)
	}
	p.MappingOrder = []string{"A", "A"} // invalid: name order is used
	if got := strings.Join(BabeltraceMappingOrder(&p, true), ""); got != "TQONACDIBHSEFGKJPLRM" {
		t.Errorf("TSDL order from name order %s", got)
	}
}

// libstdc++'s std::hash<std::string> of a few strings (values printed by
// a C++ program built with g++ 12: std::hash<std::string>{}(s)).
func TestStdHash(t *testing.T) {
	for s, want := range map[string]uint64{
		"":                        0x553e93901e462a6e,
		"a":                       0x454ddee488c1ed6b,
		"compact":                 0xe279f3ef5040c68d,
		"12345678":                0x8c5b90a33a04dca5,
		"L43_x_x_x_x_x_x_x_x_x_x": 0x0e6a337b56c7499b,
		"\xff\x80 bytes":          0x409a80be87c9cd53,
	} {
		if got := stdHash(s); got != want {
			t.Errorf("%q: %#x, want %#x", s, got, want)
		}
	}
}
