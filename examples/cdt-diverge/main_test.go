package main

import (
	"bytes"
	"testing"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, t.TempDir(), 300, 237); err != nil {
		t.Fatal(err)
	}
	want := "compared 238 ticks: diverged\n" +
		"first divergent tick: 237 (look at ticks 225..243)\n" +
		"  checkpoint      checkpoint_field_mismatch [rng_state]\n" +
		"  rng_stream      rng_stream_mismatch []\n"
	if out.String() != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if err := run(&out, "", 50, -1); err != nil {
		t.Fatal(err)
	}
	if out.String() != "compared 50 ticks: ok\n" {
		t.Fatalf("identical runs: %q", out.String())
	}
}
