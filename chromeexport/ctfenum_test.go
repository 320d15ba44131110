package chromeexport

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestCTFEnumLabels: a CTF event's instant carries each enumeration's
// integer and, right after it, its labels as "<field>_label" (several
// joined by "|", null when none matches; a structure member's inside the
// structure).
func TestCTFEnumLabels(t *testing.T) {
	var buf bytes.Buffer
	if _, err := Convert(context.Background(), &buf, "../events/testdata/ctf-enum/trace"); err != nil {
		t.Fatal(err)
	}
	d := parseDoc(t, buf.Bytes())
	var got []string
	for _, e := range d.TraceEvents {
		if e.Name == "ev" {
			got = append(got, string(e.Args))
		}
	}
	want := []string{
		`{"u":0,"u_label":"ZERO|LOW","s":-1,"s_label":"NEG|MINUS_ONE|SMALL","st":{"m":1,"m_label":"ON"},"bm":3,"bm_label":"A|B","arr":[0,1],"arr_label":[null,"ON"]}`,
		`{"u":3,"u_label":"LOW|THREE","s":0,"s_label":"ZERO|SMALL","st":{"m":0,"m_label":"OFF"},"bm":0,"bm_label":null,"arr":[1,7],"arr_label":["ON",null]}`,
		`{"u":7,"u_label":null,"s":-7,"s_label":null,"st":{"m":5,"m_label":null},"bm":4,"bm_label":"B","arr":[2,2],"arr_label":[null,null]}`,
		`{"u":15,"u_label":"HIGH","s":-3,"s_label":"NEG","st":{"m":1,"m_label":"ON"},"bm":1,"bm_label":"A","arr":[1,1],"arr_label":["ON","ON"]}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestResultSlicesInstants: Result counts the slice events (B, X: what
// speedscope draws) and the instants (i) written — a CTF trace without
// LTTng calls is instants only, a dial9 trace's polls slices beside
// instants.
func TestResultSlicesInstants(t *testing.T) {
	count := func(b []byte) (slices, instants int64) {
		for _, e := range parseDoc(t, b).TraceEvents {
			switch e.Ph {
			case "B", "X":
				slices++
			case "i":
				instants++
			}
		}
		return slices, instants
	}
	var buf bytes.Buffer
	res, err := Convert(context.Background(), &buf, "../events/testdata/ctf-enum/trace")
	if err != nil {
		t.Fatal(err)
	}
	if s, i := count(buf.Bytes()); res.Slices != s || res.Instants != i || s != 0 || i == 0 {
		t.Errorf("CTF: Result %d slices, %d instants; the document %d, %d", res.Slices, res.Instants, s, i)
	}
	b, res := convertBytes(t, dial9Trace(t, 20))
	if s, i := count(b); res.Slices != s || res.Instants != i || s == 0 || i == 0 {
		t.Errorf("dial9: Result %d slices, %d instants; the document %d, %d", res.Slices, res.Instants, s, i)
	}
}
