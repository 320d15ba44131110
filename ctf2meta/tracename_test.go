package ctf2meta

import (
	"strings"
	"testing"
)

// A trace class fragment's name "" (LTTng 2.15 writes it beside its UID)
// is kept apart from an absent name: NameSet, and encoding writes it back,
// so that babeltrace2 still reads same-identity traces as one.
func TestTraceClassNameSet(t *testing.T) {
	for _, c := range []struct {
		frag     string
		set      bool
		wantName string // in the encoded fragment, "" when none
	}{
		{`{"type":"trace-class","name":"","uid":"u"}`, true, `"name":""`},
		{`{"type":"trace-class","name":"n","uid":"u"}`, true, `"name":"n"`},
		{`{"type":"trace-class","uid":"u"}`, false, ""},
	} {
		m, err := Decode([]byte("\x1e" + `{"type":"preamble","version":2}` + "\x1e" + c.frag + "\x1e" + `{"type":"data-stream-class"}`))
		if err != nil {
			t.Fatalf("%s: %v", c.frag, err)
		}
		tc := m.TraceClass
		if tc == nil || tc.NameSet != c.set {
			t.Fatalf("%s: trace class %+v, want NameSet %v", c.frag, tc, c.set)
		}
		out, err := MarshalFragment(tc)
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(out), `"name"`); has != (c.wantName != "") || c.wantName != "" && !strings.Contains(string(out), c.wantName) {
			t.Errorf("%s: encoded %s, want name %q", c.frag, out, c.wantName)
		}
	}
}
