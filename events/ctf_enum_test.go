package events_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/ctf"
	"github.com/tracecodec/tracecodec/events"
	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// ctfEnumTrace is the hand-made CTF 2 trace with enumerations and a bit map
// (testdata/ctf-enum/README.md).
const ctfEnumTrace = "testdata/ctf-enum/trace"

// TestCTFEnumLabels: an enumeration's integer argument is followed by its
// labels as "<field>_label" — one label, several joined by "|" in
// babeltrace2's order, null when none matches, signed ranges compared as
// signed (a range across zero too) — and so is a bit map's by its active flags; a structure member
// gets its label member in the composite value, an array of enumerations
// its labels as an array (TestCTFEnumLabelsNested: variants, optionals,
// nested arrays). The labels are babeltrace2 2.1.2's (babeltrace2-2.1.2.txt
// beside the trace).
func TestCTFEnumLabels(t *testing.T) {
	want := []string{
		`u=0 u_label="ZERO|LOW" s=-1 s_label="NEG|MINUS_ONE|SMALL" st={"m":1,"m_label":"ON"} bm=3 bm_label="A|B" arr=[0,1] arr_label=[null,"ON"]`,
		`u=3 u_label="LOW|THREE" s=0 s_label="ZERO|SMALL" st={"m":0,"m_label":"OFF"} bm=0 bm_label=null arr=[1,7] arr_label=["ON",null]`,
		`u=7 u_label=null s=-7 s_label=null st={"m":5,"m_label":null} bm=4 bm_label="B" arr=[2,2] arr_label=[null,null]`,
		`u=15 u_label="HIGH" s=-3 s_label="NEG" st={"m":1,"m_label":"ON"} bm=1 bm_label="A" arr=[1,1] arr_label=["ON","ON"]`,
	}
	r, err := events.Open(ctfEnumTrace)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for r.Next() {
		e := r.Event()
		got = append(got, argsJSON(e))
		if v, ok := e.ArgByName("u_label"); ok && v.Kind() != events.ValueString && v.Kind() != events.ValueNull {
			t.Errorf("u_label is a %v", v.Kind())
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := checkCTFLabels(t, ctfEnumTrace, filepath.Join(ctfEnumTrace, "..", "babeltrace2-2.1.2.txt")); n != 12 {
		t.Errorf("%d label arguments checked, want 12 (u, s and bm of 4 events)", n)
	}
}

// TestCTFEnumLabelsRealTraces: on LTTng traces (the interop vector, and
// babeltrace's test traces when CTF_BT_TRACES names tests/data/ctf-traces:
// an LTTng kernel trace, variant selectors) every label argument is the
// label babeltrace2's text form prints for the field.
func TestCTFEnumLabelsRealTraces(t *testing.T) {
	dir := vectortest.Path(t, "ctf", "lttng-2.15.1-ust-ctf1.8-plaintext", "trace")
	if n := checkCTFLabels(t, dir, filepath.Join(dir, "..", "babeltrace2-2.1.2.txt")); n != 80 {
		t.Errorf("lttng vector: %d label arguments checked, want 80", n)
	}
	root := os.Getenv("CTF_BT_TRACES")
	if root == "" {
		t.Skip("CTF_BT_TRACES not set")
	}
	for tr, want := range map[string]int{
		"2/succeed/multi-domains/kernel":           1632, // 272 events, 6 enumerations each
		"1/succeed/multi-domains/kernel":           1632,
		"2/succeed/meta-variant-one-underscore":    1,
		"1/succeed/meta-variant-reserved-keywords": 1,
	} {
		if n := checkCTFLabels(t, filepath.Join(root, tr), ""); n != want {
			t.Errorf("%s: %d label arguments checked, want %d", tr, n, want)
		}
	}
}

// checkCTFLabels reads the CTF trace dir through the event layer and checks
// each "<field>_label" argument against the field as ctf.Pretty prints it
// (babeltrace2's text form), and, when bt is not "", that text against
// babeltrace2's own lines in file bt (without their time columns). It
// returns the number of label arguments checked.
// TestCTFEnumLabelsNested: an array of enumerations has its labels as an
// array argument (null where none matches), nested arrays as nested arrays,
// in a structure as a member too; a variant or an optional whose selected
// option is an enumeration, or an array of them, has that option's labels
// (null when the option has none, or the optional is absent). They are
// babeltrace2 2.1.2's (testdata/ctf-enum-nested/babeltrace2-2.1.2.txt);
// these fields had no label.
func TestCTFEnumLabelsNested(t *testing.T) {
	const dir = "testdata/ctf-enum-nested/trace"
	want := []string{
		`sel=0 v=1 v_label="ON" o=9 o_label="Y" st={"arr":[5,6],"arr_label":["Z",null]} mat=[[1],[0]] mat_label=[["W"],[null]]`,
		`sel=1 v=7 v_label=null o=null o_label=null st={"arr":[6,5],"arr_label":[null,"Z"]} mat=[[0],[1]] mat_label=[[null],["W"]]`,
		`sel=2 v=[2,3] v_label=["X|TWO","TWO"] o=null o_label=null st={"arr":[5,5],"arr_label":["Z","Z"]} mat=[[1],[1]] mat_label=[["W"],["W"]]`,
	}
	r, err := events.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for r.Next() {
		got = append(got, argsJSON(r.Event()))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The trace is the one babeltrace2 printed the labels above for.
	bt, err := os.ReadFile(filepath.Join(dir, "..", "babeltrace2-2.1.2.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ctf.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var p ctf.Pretty
	var text []byte
	for rd := tr.NewReader(); rd.Next(); {
		text = p.Append(text, rd.Event())
	}
	if string(text) != string(bt) {
		t.Errorf("text\n%s\nbabeltrace2\n%s", text, bt)
	}
}

// argsJSON is e's arguments as "name=JSON" joined by spaces.
func argsJSON(e *events.Event) string {
	var b strings.Builder
	for name, v := range e.Args {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(name + "=" + string(v.AppendJSON(nil)))
	}
	return b.String()
}

func checkCTFLabels(t *testing.T, dir, bt string) int {
	t.Helper()
	var btLines []string
	if bt != "" {
		b, err := os.ReadFile(bt)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if !strings.HasPrefix(l, "rc=") { // the vectors' exit status line
				btLines = append(btLines, l)
			}
		}
	}
	r, err := events.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cr := r.Underlying().(*ctf.Reader)
	var p ctf.Pretty
	var line []byte
	n, checked := 0, 0
	for r.Next() {
		e := r.Event()
		line = p.Append(line[:0], cr.Event())
		text := strings.TrimSuffix(string(line), "\n")
		if btLines != nil {
			if n >= len(btLines) || !strings.HasSuffix(btLines[n], text[strings.Index(text, "] ")+1:]) {
				t.Fatalf("%s: event %d: %q, babeltrace2 %q", dir, n, text, btLines[min(n, len(btLines)-1)])
			}
		}
		for i := 1; i < e.NumArgs(); i++ {
			name, v := e.Arg(i)
			field, ok := strings.CutSuffix(name, "_label")
			if prev, _ := e.Arg(i - 1); !ok || prev != field {
				continue
			}
			checked++
			var labels []string
			if v.Kind() == events.ValueComposite {
				checked-- // an array's or a variant's: TestCTFEnumLabelsNested
				continue
			}
			if v.Kind() == events.ValueString {
				labels = strings.Split(v.String(), "|")
			} else if v.Kind() != events.ValueNull {
				t.Fatalf("%s: event %d: %s is a %v", dir, n, name, v.Kind())
			}
			q := make([]string, len(labels))
			for k, l := range labels {
				q[k] = `"` + l + `"`
			}
			var forms []string
			switch len(labels) {
			case 0:
				forms = []string{field + " = ( <unknown> : container = ", field + " = 0x"}
			case 1:
				forms = []string{field + " = ( " + q[0] + " : container = ", " { " + q[0] + " }"}
			default:
				all := strings.Join(q, ", ")
				forms = []string{field + " = ( { " + all + " } : container = ", " { " + all + " }"}
			}
			if !strings.Contains(text, forms[0]) && (!strings.Contains(text, field+" = 0x") || !strings.Contains(text, forms[1]) && len(labels) > 0) {
				t.Errorf("%s: event %d: %s=%s, text %s", dir, n, name, v.AppendJSON(nil), text)
			}
		}
		n++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if btLines != nil && n != len(btLines) {
		t.Errorf("%s: %d events, babeltrace2 %d", dir, n, len(btLines))
	}
	return checked
}

// TestCTFEnumLabelsZeroAllocs: label arguments, several labels joined
// included, allocate nothing per event after warm-up — on the flat trace and
// on the nested one (labels of array elements, arrays of arrays, a variant's
// selected option and an optional).
func TestCTFEnumLabelsZeroAllocs(t *testing.T) {
	for _, src := range []string{ctfEnumTrace, "testdata/ctf-enum-nested/trace"} {
		t.Run(filepath.Base(filepath.Dir(src)), func(t *testing.T) {
			dir, _ := repeatCTFTrace(t, src, 2000)
			zeroAllocsCTFLabels(t, dir)
		})
	}
}

func zeroAllocsCTFLabels(t *testing.T, dir string) {
	r, err := events.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; i < 100 && r.Next(); i++ {
		touch(r.Event())
	}
	json := r.Event().AppendJSON(make([]byte, 0, 1<<12))
	allocs := testing.AllocsPerRun(100, func() {
		for range 16 {
			if !r.Next() {
				t.Fatalf("ran out of events: %v", r.Err())
			}
			touch(r.Event())
			json = r.Event().AppendJSON(json[:0])
		}
	})
	if allocs != 0 {
		t.Errorf("%.2f allocations per 16 events", allocs)
	}
}

// BenchmarkCTFEnumEvents reads a CTF trace of 100 000 events with
// enumerations, a bit map and a structure through the event layer, every
// argument touched (readCTFEnum is the part instr.sh counts).
func BenchmarkCTFEnumEvents(b *testing.B) { benchCTFEnum(b, readCTFEnum) }

// benchCTFEnum reads the enumeration trace repeated to 100 000 events with
// read.
func benchCTFEnum(b *testing.B, read func(*events.Reader) int) {
	const n = 25000 // ×4 events
	dir, size := repeatCTFTrace(b, ctfEnumTrace, n)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		r, err := events.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if got := read(r); got != 4*n {
			b.Fatalf("%d events", got)
		}
		r.Close()
	}
}

func readCTFEnum(r *events.Reader) int {
	n := 0
	for r.Next() {
		touch(r.Event())
		n++
	}
	return n
}

// repeatCTFTrace writes the trace folder src (metadata and one data stream
// file "stream" without packet headers) with its stream repeated n times into
// a temporary folder and returns it and its stream's size.
func repeatCTFTrace(tb testing.TB, src string, n int) (string, int64) {
	tb.Helper()
	meta, err := os.ReadFile(filepath.Join(src, "metadata"))
	if err != nil {
		tb.Fatal(err)
	}
	stream, err := os.ReadFile(filepath.Join(src, "stream"))
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "metadata"), meta, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stream"), []byte(strings.Repeat(string(stream), n)), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir, int64(n * len(stream))
}

// TestCTFEnumLabelNameCollision: a label argument never takes the name of
// a field of its scope or of an earlier label — "_label" is appended again
// until the name is free — so a payload field literally named x_label
// beside an enumeration x keeps its name and value (x's labels are
// x_label_label), an enumeration y_label beside an enumeration y has its
// own labels (y's are y_label_label, y_label's y_label_label_label), and
// the same holds for a structure's members. They shared the name x_label
// (two arguments of one name: JSON objects with duplicate keys, one
// Parquet column for both).
func TestCTFEnumLabelNameCollision(t *testing.T) {
	u8 := func(mappings string) string {
		if mappings != "" {
			mappings = `,"mappings":` + mappings
		}
		return `{"type":"fixed-length-unsigned-integer","length":8,"byte-order":"little-endian"` + mappings + `}`
	}
	member := func(name, fc string) string { return `{"name":"` + name + `","field-class":` + fc + `}` }
	payload := `{"type":"structure","member-classes":[` +
		member("x", u8(`{"A":[[1,1]]}`)) + "," + member("x_label", u8("")) + "," +
		member("y", u8(`{"B":[[2,2]]}`)) + "," + member("y_label", u8(`{"C":[[3,3]]}`)) + "," +
		member("st", `{"type":"structure","member-classes":[`+member("m", u8(`{"D":[[4,4]]}`))+","+member("m_label", u8(""))+`]}`) + `]}`
	meta := "\x1e" + `{"type":"preamble","version":2}` + "\n\x1e" + `{"type":"data-stream-class"}` + "\n\x1e" +
		`{"type":"event-record-class","name":"ev","payload-field-class":` + payload + "}\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "metadata"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stream"), []byte{1, 7, 2, 3, 4, 8}, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := events.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Next() {
		t.Fatal(r.Err())
	}
	const want = `x=1 x_label_label="A" x_label=7 y=2 y_label_label="B" y_label=3 y_label_label_label="C" st={"m":4,"m_label_label":"D","m_label":8}`
	if got := argsJSON(r.Event()); got != want {
		t.Errorf("args\n%s\nwant\n%s", got, want)
	}
	if v, ok := r.Event().ArgByName("x_label"); !ok || v.Kind() != events.ValueUint || v.Uint() != 7 {
		t.Errorf("x_label: %v %v", v, ok)
	}
}
