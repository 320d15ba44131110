package ctf2meta

import (
	"slices"
	"testing"
)

// TestTSDLLocationThroughVariantOption: a variant inside an option of
// another variant, tagged by a member of that option (LTTng's net_if_rx:
// the IPv4 header's transport variant tagged by its protocol), has the
// location payload: network_header/protocol — a location names structure
// members, and goes through a variant into its selected option, whose
// name is no path element (babeltrace2 2.1 reads such a trace; the
// location payload: ipv4/protocol was refused: no member "ipv4"). Inside
// an array of such options, and an option of an option, the same.
func TestTSDLLocationThroughVariantOption(t *testing.T) {
	const head = `/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
trace { major = 1; minor = 8; byte_order = le; };
stream { };
event { name = "e"; fields := struct {
	enum : uint8_t { "_unknown" = 0, "_ipv4" = 1 } _type;
`
	cases := []struct {
		name, body string
		want       []string // the inner variant's selector path
	}{
		{"option", `	variant <_type> {
		struct { } _unknown;
		struct {
			enum : uint8_t { "_udp" = 17, "_tcp" = 6 } _protocol;
			variant <_protocol> { struct { uint8_t _p; } _udp; struct { uint8_t _q; } _tcp; } _transport;
		} _ipv4;
	} _network_header;
}; };
`, []string{"network_header", "protocol"}},
		{"option-of-option", `	variant <_type> {
		struct { } _unknown;
		variant <_type> {
			struct { } _unknown;
			struct {
				enum : uint8_t { "_udp" = 17, "_tcp" = 6 } _protocol;
				variant <_protocol> { struct { uint8_t _p; } _udp; struct { uint8_t _q; } _tcp; } _transport;
			} _ipv4;
		} _ipv4;
	} _outer;
}; };
`, []string{"outer", "protocol"}},
		{"array-option", `	variant <_type> {
		struct { } _unknown;
		struct {
			enum : uint8_t { "_udp" = 17, "_tcp" = 6 } _protocol;
			variant <_protocol> { struct { uint8_t _p; } _udp; struct { uint8_t _q; } _tcp; } _transport;
		} _ipv4[2];
	} _headers;
}; };
`, []string{"headers", "protocol"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := ParseTSDL([]byte(head + c.body))
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			var walk func(fc FieldClass)
			walk = func(fc FieldClass) {
				switch x := fc.(type) {
				case *Structure:
					for _, mc := range x.MemberClasses {
						walk(mc.FieldClass)
					}
				case *StaticLengthArray:
					walk(x.ElementFieldClass)
				case *Variant:
					if len(x.SelectorFieldLocation.Path) == 2 {
						for _, e := range x.SelectorFieldLocation.Path {
							found = append(found, e.Name)
						}
					}
					for _, o := range x.Options {
						walk(o.FieldClass)
					}
				}
			}
			walk(m.EventRecordClasses[0].PayloadFieldClass)
			if !slices.Equal(found, c.want) {
				t.Errorf("inner selector path %q, want %q", found, c.want)
			}
		})
	}
}
