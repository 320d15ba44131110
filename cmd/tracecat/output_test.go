package main

import (
	"bytes"
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

func TestDumpRange(t *testing.T) {
	o := dumpOptions{From: 10, HasFrom: true, To: 20, HasTo: true}
	for v, want := range map[int64]bool{9: false, 10: true, 20: true, 21: false} {
		if o.inRange(v) != want {
			t.Errorf("inRange(%d)", v)
		}
	}
	if !(dumpOptions{}).inRange(-5) {
		t.Error("no filter must pass everything")
	}
}
