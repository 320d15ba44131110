package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/wtfcff"
)

func TestSampleToJSON(t *testing.T) {
	var out bytes.Buffer
	if err := run(nil, false, &out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		WTFVersion    int64             `json:"wtfVersion"`
		FormatVersion int               `json:"formatVersion"`
		Chunks        []json.RawMessage `json:"chunks"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.WTFVersion != wtfcff.JSWTFVersion || doc.FormatVersion != 10 || len(doc.Chunks) != 2 {
		t.Fatalf("%+v", doc)
	}
	// The JSON converts back to the binary trace the example wrote.
	var bin bytes.Buffer
	if err := wtfcff.JSONToBinary(&bin, bytes.NewReader(out.Bytes())); err != nil {
		t.Fatal(err)
	}
	orig, _ := sampleTrace()
	if !bytes.Equal(bin.Bytes(), orig) {
		t.Errorf("JSON does not convert back to the same binary trace")
	}
}

func TestEventsToFile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wtf-trace")
	outPath := filepath.Join(dir, "out.wtf-json")
	data, _ := sampleTrace()
	os.WriteFile(in, data, 0o644)
	if err := run([]string{in, outPath}, true, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(outPath)
	for _, want := range []string{
		`{"name":"demo#frame","time":1000,"args":{"number":1,"label":"first frame","times":[0.5,1.25]}}`,
		`{"name":"wtf.scope#enter","time":1100,"args":{"name":"layout"}}`,
		`{"name":"wtf.trace#mark","time":2600,"args":{"name":"done","value":{"frames":1}}}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("missing %s in\n%s", want, b)
		}
	}
}
