package main

import (
	"bytes"
	"github.com/tracecodec/tracecodec/events/inspect"
	"testing"
)

func TestStatListKeepsOrder(t *testing.T) {
	st := statList{{"format", "x"}, {"zeta", 1}, {"alpha", map[string]int{"b": 2, "a": 1}}, {"none", nil}}
	b, err := st.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"format":"x","zeta":1,"alpha":{"a":1,"b":2},"none":null}`; string(b) != want {
		t.Fatalf("got %s", b)
	}
	var text bytes.Buffer
	st.writeText(&text)
	if want := "format: x\nzeta: 1\nalpha: {\"a\":1,\"b\":2}\nnone: -\n"; text.String() != want {
		t.Fatalf("got %q", text.String())
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
		delete(formats, "test-dup")
	}()
	register(&format{name: "test-dup"})
	register(&format{name: "test-dup"})
}

func TestDumpIndexRange(t *testing.T) {
	o := dumpOptions{From: &inspect.Time{Value: 10, Unit: inspect.Index}, To: &inspect.Time{Value: 20, Unit: inspect.Index}}
	if _, _, err := o.bounds("x", inspect.Index, false); err != nil {
		t.Fatal(err)
	}
	for v, want := range map[int64]bool{9: false, 10: true, 20: true, 21: false} {
		if o.inIndex(v) != want {
			t.Errorf("inIndex(%d)", v)
		}
	}
	if !(dumpOptions{}).inIndex(-5) {
		t.Error("no filter must pass everything")
	}
	if _, _, err := o.bounds("x", inspect.NS, true); !isUsage(err) {
		t.Errorf("index bounds where ns are wanted: %v, want a usage error", err)
	}
	if _, _, err := (dumpOptions{Thread: "1"}).bounds("x", inspect.NS, false); !isUsage(err) {
		t.Errorf("--thread without threads: %v, want a usage error", err)
	}
}

func TestJSONOutputsDoNotEscapeHTML(t *testing.T) {
	b, err := statList{{"events_by_name", map[string]int{"<init>&co": 1}}, {"nested", statList{{"a", "<b>"}}}}.MarshalJSON()
	if err != nil || string(b) != `{"events_by_name":{"<init>&co":1},"nested":{"a":"<b>"}}` {
		t.Errorf("%s %v", b, err)
	}
}
