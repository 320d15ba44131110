package ctf2meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracecodec/tracecodec/internal/vectortest"
)

// sentinels are the errors a fragment's decoding may wrap.
var sentinels = []error{ErrBadMagic, ErrUnsupportedVersion, ErrUnsupported, ErrTruncated, ErrCorrupt, ErrFraming, ErrSchema, ErrLimit}

// samePaths decodes text by decodeFragment (the direct decoder first, the
// generic path for what it leaves) and by the generic path alone, with the
// same options and a budget of limit bytes of which used are spent, and
// fails tb when the fragments, the errors (text, offset, sentinels) or the
// budget spent differ. It reports whether the direct decoder gave the
// fragment itself.
func samePaths(tb testing.TB, text []byte, o *options, used, limit int64) (direct bool) {
	tb.Helper()
	const off, textOff, num = 1000, 1001, 7
	budNew, budOld := &memBudget{used: used, limit: limit}, &memBudget{used: used, limit: limit}
	js := new(jsonScratch)
	fNew, errNew := decodeFragment(text, o, off, textOff, num, budNew, js)
	fOld, errOld := decodeGeneric(text, o, off, textOff, num, budOld, new(jsonScratch))
	if (errNew == nil) != (errOld == nil) || errNew != nil && errNew.Error() != errOld.Error() {
		tb.Fatalf("%q:\ndirect: %v\ngeneric: %v", text, errNew, errOld)
	}
	if errNew != nil {
		var a, b *FormatError
		if !errors.As(errNew, &a) || !errors.As(errOld, &b) || a.Offset != b.Offset {
			tb.Fatalf("%q: offsets differ: %v / %v", text, errNew, errOld)
		}
		for _, s := range sentinels {
			if errors.Is(errNew, s) != errors.Is(errOld, s) {
				tb.Fatalf("%q: sentinel %v: %v / %v", text, s, errNew, errOld)
			}
		}
		return false
	}
	if !reflect.DeepEqual(fNew, fOld) {
		tb.Fatalf("%q:\ndirect  %#v\ngeneric %#v", text, fNew, fOld)
	}
	if budNew.used != budOld.used {
		tb.Fatalf("%q: budget spent %d by decodeFragment, %d by the generic path", text, budNew.used-used, budOld.used-used)
	}
	// Whether the direct decoder took it: a fresh run of it alone.
	_, direct = decodeDirect(text, o, &memBudget{used: used, limit: limit}, new(jsonScratch))
	// Decoding again with the kept state (interned strings, present lists)
	// gives the same fragment.
	again, err := decodeFragment(text, o, off, textOff, num, &memBudget{used: used, limit: limit}, js)
	if err != nil || !reflect.DeepEqual(again, fOld) {
		tb.Fatalf("%q: second decode with kept state: %v", text, err)
	}
	return direct
}

// samePathsEverywhere runs samePaths with default limits, unknown
// properties allowed, a small MaxDepth, and budgets just below and at what
// the text takes.
func samePathsEverywhere(tb testing.TB, text []byte) (direct bool) {
	tb.Helper()
	o, _ := buildOptions(nil)
	bud := newBudget(&o.limits, nil, int64(len(text)))
	direct = samePaths(tb, text, &o, 0, bud.limit)
	ou, _ := buildOptions([]ReaderOption{WithUnknownProperties(true)})
	samePaths(tb, text, &ou, 0, bud.limit)
	od, _ := buildOptions([]ReaderOption{WithLimits(Limits{MaxDepth: 3})})
	samePaths(tb, text, &od, 0, newBudget(&od.limits, nil, int64(len(text))).limit)
	// The budget the generic path spends on the text, then budgets of
	// exactly that and one byte less.
	probe := &memBudget{limit: 1 << 40}
	if _, err := decodeGeneric(text, &o, 0, 0, 1, probe, nil); err == nil {
		samePaths(tb, text, &o, 100, 100+probe.used)
		samePaths(tb, text, &o, 100, 100+probe.used-1)
	}
	return direct
}

// vectorFragments returns the JSON texts of the fragments of every CTF 2
// metadata vector.
func vectorFragments(tb testing.TB) [][]byte {
	var out [][]byte
	files := vectorMetadataFiles(tb)
	// And babeltrace's own CTF 2 test traces when CTF_BT_TRACES names
	// their folder (tests/data/ctf-traces of babeltrace v2.1.2).
	if root := os.Getenv("CTF_BT_TRACES"); root != "" {
		filepath.WalkDir(filepath.Join(root, "2"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == "metadata" {
				files = append(files, p)
			}
			return nil
		})
	}
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		if Detect(raw) == KindPacketized {
			if raw, _, err = Depacketize(nil, raw); err != nil {
				continue
			}
		}
		if len(bytes.TrimLeft(raw, " \t\r\n")) == 0 || bytes.TrimLeft(raw, " \t\r\n")[0] != RS {
			continue // TSDL
		}
		for _, f := range bytes.Split(raw, []byte{RS}) {
			if len(bytes.TrimSpace(f)) > 0 {
				out = append(out, f)
			}
		}
	}
	return out
}

// directSeeds are fragments with every field class and property the direct
// decoder reads.
var directSeeds = []string{
	`{"type":"field-class-alias","name":"u8","field-class":{"type":"fixed-length-unsigned-integer","length":8,"byte-order":"little-endian"}}`,
	`{"type":"data-stream-class","id":3,"namespace":"ns","name":"s","uid":"u","default-clock-class-id":"c","attributes":{"a":[1,{"b":null}]},"extensions":{},
	  "packet-context-field-class":{"type":"structure","member-classes":[{"name":"ts","field-class":"u8","attributes":{"x":true}}]},
	  "event-record-header-field-class":"u8","event-record-common-context-field-class":{"type":"structure"}}`,
	fc(`{"type":"structure","minimum-alignment":8,"member-classes":[
		{"name":"a","field-class":{"type":"fixed-length-bit-array","length":3,"byte-order":"big-endian","bit-order":"first-to-last"}},
		{"name":"b","field-class":{"type":"fixed-length-boolean","length":8,"byte-order":"little-endian","alignment":8}},
		{"name":"c","field-class":{"type":"fixed-length-bit-map","length":8,"byte-order":"little-endian","flags":{"x":[[0,0]],"y":[[1,7],[2,3]]}}},
		{"name":"d","field-class":{"type":"fixed-length-signed-integer","length":16,"byte-order":"big-endian","preferred-display-base":16,"mappings":{"neg":[[-5,-1]],"e":[[-9223372036854775808,9223372036854775807]]}}},
		{"name":"e","field-class":{"type":"fixed-length-floating-point-number","length":64,"byte-order":"little-endian"}},
		{"name":"f","field-class":{"type":"variable-length-unsigned-integer","mappings":{"big":[[0,18446744073709551615]]},"roles":["packet-magic-number"]}},
		{"name":"g","field-class":{"type":"variable-length-signed-integer","preferred-display-base":2}},
		{"name":"h","field-class":{"type":"null-terminated-string","encoding":"utf-16le"}},
		{"name":"i","field-class":{"type":"static-length-string","length":4}},
		{"name":"j","field-class":{"type":"dynamic-length-string","length-field-location":{"origin":"event-record-payload","path":["i"]},"encoding":"utf-8"}},
		{"name":"k","field-class":{"type":"static-length-blob","length":16,"media-type":"text/plain","roles":["metadata-stream-uuid"]}},
		{"name":"l","field-class":{"type":"dynamic-length-blob","length-field-location":{"path":[null,"i"]}}},
		{"name":"m","field-class":{"type":"static-length-array","length":2,"element-field-class":"u8","minimum-alignment":4}},
		{"name":"n","field-class":{"type":"dynamic-length-array","length-field-location":{"path":["i"]},"element-field-class":{"type":"structure","member-classes":[]}}},
		{"name":"o","field-class":{"type":"optional","selector-field-location":{"path":["b"]},"selector-field-ranges":[[1,1]],"field-class":"u8"}},
		{"name":"p","field-class":{"type":"variant","selector-field-location":{"path":["d"]},"options":[
			{"name":"x","selector-field-ranges":[[0,3]],"field-class":"u8"},
			{"selector-field-ranges":[[4,9],[-3,-1]],"field-class":{"type":"fixed-length-unsigned-integer","length":32,"byte-order":"big-endian","roles":[]}},
			{"name":"","selector-field-ranges":[[10,10]],"field-class":"u8","extensions":{"e":1}}]}},
		{"name":"q","field-class":{"type":"fixed-length-unsigned-integer","length":64,"byte-order":"little-endian","mappings":{},"preferred-display-base":10,"alignment":1}}
	]}`),
	`{"id":1,"data-stream-class-id":0,"name":"sorted keys","payload-field-class":{"byte-order":"little-endian","length":8,"type":"fixed-length-unsigned-integer"},"type":"event-record-class"}`,
	"{\"type\" : \"event-record-class\" ,\n \"name\":\"spaces \\u00e9\\n\" , \"namespace\" : \"a\\\"b\", \"uid\":\"\xff\" }",
	`{"type":"event-record-class","payload-field-class":{"type":"structure","member-classes":[` + strings.Repeat(`{"name":"m","field-class":"u8"},`, 40) + `{"name":"z","field-class":"u8"}]}}`,
}

// fragmentMutations returns variants of text: unknown, duplicate and
// escaped keys, wrong values, and a few truncations.
func fragmentMutations(text []byte) [][]byte {
	s := string(text)
	var out [][]byte
	add := func(v string) {
		if v != s {
			out = append(out, []byte(v))
		}
	}
	for _, r := range [][2]string{
		{`"length":`, `"zz":1,"length":`}, {`"length":`, `"length":1,"length":`}, {`"type":`, `"\u0074ype":`},
		{`"name":`, `"name":"dup","name":`}, {`"name":`, `"name":5,"x":`}, {`"length": 8`, `"length": 0`},
		{`"length":8`, `"length":-8`}, {`"length": 32`, `"length": 3.2e1`}, {`"length":32`, `"length":"32"`},
		{`little-endian`, `middle-endian`}, {`"structure"`, `"structur"`}, {`"member-classes": [`, `"member-classes": [{"name":"x","field-class":{"type":"structure"}},`},
		{`"path": [`, `"path": [null,`}, {`"path":[`, `"path":[null`}, {`"roles": [`, `"roles": ["nope",`}, {`[0,`, `[-1,`},
		{`"mappings": {`, `"mappings": {"m":[[5,1]],`}, {`"origin":`, `"origin":"event-record-header","x":`}, {`{`, `{"length":"x",`},
		{`"field-class":`, `"field-class":"",  "xx":`}, {`"id":`, `"id":18446744073709551616,"q":`}, {`"alignment": 8`, `"alignment": 6`},
		{`"type": "fixed-length-unsigned-integer"`, `"type": "fixed-length-signed-integer"`}, {`"type":"fixed-length-unsigned-integer"`, `"type":"variable-length-signed-integer"`},
		{`"preferred-display-base": 16`, `"preferred-display-base": 7`}, {`"encoding"`, `"media-type"`}, {`"options":[`, `"options":[{"name":"x","selector-field-ranges":[[0,100]],"field-class":"u8"},`},
		{`}`, `}}`}, {`]`, `]]`}, {`"`, `'`}, {`,`, ``}, {`:`, ` `},
	} {
		add(strings.Replace(s, r[0], r[1], 1))
		add(strings.Replace(s, r[0], r[1], -1))
	}
	for _, n := range []int{1, len(s) / 3, len(s) / 2, len(s) - 1} {
		if n > 0 && n < len(s) {
			add(s[:n])
		}
	}
	return out
}

// TestDirectDecoderMatchesGeneric: on every fragment of the vectors and the
// seeds, and on mutations of them (errors of every kind), decodeFragment
// gives what the generic path gives, with the same error texts, offsets and
// sentinels and the same budget spent; and the direct decoder itself takes
// every data stream class, event record class and alias of the vectors.
func TestDirectDecoderMatchesGeneric(t *testing.T) {
	frags := vectorFragments(t)
	for _, s := range directSeeds {
		frags = append(frags, []byte(s))
	}
	took, kinds := 0, 0
	seen := map[string]bool{}
	for _, f := range frags {
		if seen[string(f)] {
			continue
		}
		seen[string(f)] = true
		direct := samePathsEverywhere(t, f)
		fr, err := DecodeFragment(f)
		if err == nil {
			switch fr.FragmentType() {
			case TypeDataStreamClass, TypeEventRecordClass, TypeFieldClassAlias:
				kinds++
				if direct {
					took++
				} else if !bytes.Contains(f, []byte(`\u`)) { // escaped keys are left to the generic path
					t.Errorf("the direct decoder left %.200s", f)
				}
			}
		}
		if len(f) < 20000 {
			for _, m := range fragmentMutations(f) {
				samePathsEverywhere(t, m)
			}
		}
	}
	if took < 100 {
		t.Fatalf("the direct decoder took only %d of %d fragments of its kinds", took, kinds)
	}
	t.Logf("%d fragments, %d of the direct decoder's kinds, %d taken by it", len(seen), kinds, took)
}

// TestDirectDecoderBigMetadata: the metadata BenchmarkFragmentReaderBig
// reads (keys sorted, "type" last) decodes the same by both paths, stream
// rules included.
func TestDirectDecoderBigMetadata(t *testing.T) {
	raw := bigLTTngMetadata(t, 300_000)
	for _, f := range bytes.Split(raw, []byte{RS})[1:] {
		samePaths(t, f, &options{limits: DefaultLimits()}, 0, 1<<40)
	}
	m, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range m.Fragments {
		text := bytes.Split(raw, []byte{RS})[i+1]
		o, _ := buildOptions(nil)
		g, err := decodeGeneric(text, &o, 0, 0, 1, nil, nil)
		if err != nil || !reflect.DeepEqual(f, g) {
			t.Fatalf("fragment %d differs from the generic path's (%v)", i, err)
		}
	}
}

// FuzzDirectDecoder: whatever the text, decodeFragment and the generic path
// agree (value, error text, offset, sentinels, budget), with default
// limits, unknown properties allowed, a small MaxDepth and tight budgets.
func FuzzDirectDecoder(f *testing.F) {
	for _, s := range directSeeds {
		f.Add([]byte(s))
	}
	if _, err := vectortest.Root(); err == nil { // the seeds above suffice without them
		for _, fr := range vectorFragments(f) {
			if len(fr) < 4096 {
				f.Add(fr)
			}
		}
	}
	// Unknown keys at several levels, the same names in each, then one
	// repeated (the direct decoder's unknown key sets).
	unknown := `{"type":"event-record-class","u0":0,"u1":[1],"payload-field-class":{"type":"structure","u0":{},"member-classes":[{"name":"a","u0":1,"u1":2,"u2":3,"u3":4,"u4":5,"u5":6,"u6":7,"u7":8,"field-class":"u8","\u0075":9}]},"u2":"x"}`
	f.Add([]byte(unknown))
	f.Add([]byte(strings.Replace(unknown, `"u2":"x"`, `"u1":"x"`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		samePathsEverywhere(t, data)
	})
}

// TestWordAtATimeScans: strings and whitespace runs of every length up to
// 40 with a special byte (quote, backslash escape, control character,
// non-ASCII, invalid UTF-8) at every position parse as encoding/json parses
// them: the eight-bytes-at-a-time loops of plainString and space stop at
// the right byte.
func TestWordAtATimeScans(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for pos := 0; pos <= n; pos++ {
			for _, special := range []string{`\"`, `\\`, `\n`, "\x01", "é", "\xff", " ", "\t"} {
				s := strings.Repeat("a", pos) + special + strings.Repeat("b", n-pos)
				for _, text := range []string{
					`{"k":"` + s + `"}`,
					`[` + strings.Repeat(" ", pos) + `"` + s + `"` + strings.Repeat(" ", n-pos) + "\n" + strings.Repeat(" ", n) + `]`,
				} {
					var want any
					dec := json.NewDecoder(strings.NewReader(text))
					dec.UseNumber()
					werr := dec.Decode(&want)
					got, gerr := parseJSON([]byte(text), 100, nil, nil)
					if (werr == nil) != (gerr == nil) || werr == nil && !reflect.DeepEqual(got, want) {
						t.Fatalf("%q: parseJSON %#v (%v), encoding/json %#v (%v)", text, got, gerr, want, werr)
					}
				}
			}
		}
	}
}

// A key given twice in any JSON object of a fragment is refused, as
// babeltrace2 2.1.2 refuses it ("Duplicate JSON object key"), by both the
// direct and the generic path, at the second key: in "mappings" (where
// babeltrace2 was once thought to keep the first value and we kept the
// last), in a field class, a fragment, attributes and an environment.
func TestDuplicateKeysRefused(t *testing.T) {
	u8 := func(extra string) string {
		return `{"type":"fixed-length-unsigned-integer","length":8,"byte-order":"little-endian"` + extra + `}`
	}
	erc := func(fc string) string {
		return `{"type":"event-record-class","name":"ev","payload-field-class":{"type":"structure","member-classes":[{"name":"a","field-class":` + fc + `}]}}`
	}
	for _, c := range []struct{ text, key string }{
		{erc(u8(`,"mappings":{"X":[[1,1]],"Y":[[3,3]],"X":[[2,2]]}`)), `"X":[[2`},
		{erc(`{"type":"fixed-length-signed-integer","length":8,"byte-order":"little-endian","mappings":{"X":[[1,1]],"X":[[1,1]]}}`), `"X":[[1,1]]}`},
		{erc(`{"type":"variable-length-unsigned-integer","mappings":{"X":[[1,1]],"X":[[2,2]]}}`), `"X":[[2`},
		{erc(u8(`,"length":8`)), `"length":8}`},
		{erc(u8(`,"attributes":{"a":1,"a":1}`)), `"a":1}`},
		{`{"type":"field-class-alias","name":"x","name":"y","field-class":` + u8("") + `}`, `"name":"y"`},
		{`{"type":"data-stream-class","id":1,"id":1}`, `"id":1}`},
		{`{"type":"trace-class","environment":{"k":"v","k":"w"}}`, `"k":"w"`},
		{`{"type":"clock-class","id":"c","frequency":1000,"frequency":1000}`, `"frequency":1000}`},
	} {
		text := []byte(c.text)
		samePathsEverywhere(t, text)
		_, err := DecodeFragment(text)
		var fe *FormatError
		if !errors.Is(err, ErrFraming) || !errors.As(err, &fe) || !strings.Contains(err.Error(), "duplicate object key") {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if want := int64(bytes.LastIndex(text, []byte(c.key))); fe.Offset != want {
			t.Errorf("%s: error at %d, want %d: %v", text, fe.Offset, want, err)
		}
	}
	// Keys that differ only in escapes are the same key.
	if _, err := DecodeFragment([]byte(erc(u8(`,"mappings":{"X":[[1,1]],"\u0058":[[2,2]]}`)))); !errors.Is(err, ErrFraming) {
		t.Errorf("escaped duplicate key: %v", err)
	}
}

// TestDirectDecoderUnknownKeys: objects with unknown keys at every level the
// direct decoder reads (the fragment, a structure, a member, a variant, an
// option, an integer), the same key names in the objects around them, and
// a key repeated in the object at various places: within the keys before
// its known ones, across its nested objects, spelled with an escape,
// invalid UTF-8 spelled two ways, the empty key; few keys and enough to
// grow the direct decoder's set many times. decodeFragment and the generic
// path agree on each (samePaths: value, error, offset, sentinel), with and
// without unknown properties allowed. With them allowed the direct decoder
// reads every object of distinct keys itself, and a repeated key is
// ErrFraming "duplicate object key" at the repeat.
func TestDirectDecoderUnknownKeys(t *testing.T) {
	const tmpl = `{"type":"event-record-class",<P0>"name":"ev","payload-field-class":{"type":"structure",<P1>"member-classes":[` +
		`{"name":"a",<P2>"field-class":{"type":"variant",<P3>"selector-field-location":{"path":["a"]},"options":[` +
		`{"name":"o",<P4>"selector-field-ranges":[[0,1]],"field-class":{"type":"fixed-length-unsigned-integer",<P5>"length":8,"byte-order":"little-endian"<S5>}<S4>},` +
		`{"name":"p","u0":0,"u1":1,"selector-field-ranges":[[2,3]],"field-class":"u8"}]<S3>}<S2>}]<S1>}<S0>}`
	values := []string{`0`, `[1]`, `{"u0":null,"x":"y"}`, `"s"`, `true`}
	member := func(key string, i int) string { return `"` + key + `":` + values[i%len(values)] }
	plain := func(i int) string { return "u" + strconv.Itoa(i) }
	// fill builds the text with the unknown keys pre and post at level's
	// markers (before its known keys and after them), the markers of the
	// other levels two unknown keys of the same names, and returns where
	// in it key rep of pre (or of post when inPost) begins (-1 for none).
	fill := func(level int, pre, post []string, rep int, inPost bool) (string, int) {
		var b strings.Builder
		off := -1
		rest := tmpl
		for {
			at := strings.IndexByte(rest, '<')
			if at < 0 {
				b.WriteString(rest)
				return b.String(), off
			}
			b.WriteString(rest[:at])
			side, l := rest[at+1], int(rest[at+2]-'0')
			rest = rest[at+4:]
			switch {
			case l != level && side == 'P':
				b.WriteString(member("u0", 0) + "," + member("u1", 2) + ",")
			case l == level && side == 'P':
				for i, k := range pre {
					if i == rep && !inPost {
						off = b.Len()
					}
					b.WriteString(member(k, i) + ",")
				}
			case l == level && side == 'S':
				for i, k := range post {
					b.WriteByte(',')
					if i == rep && inPost {
						off = b.Len()
					}
					b.WriteString(member(k, i))
				}
			}
		}
	}
	oDefault, _ := buildOptions(nil)
	oUnknown, _ := buildOptions([]ReaderOption{WithUnknownProperties(true)})
	check := func(name, text string, rep int) {
		t.Helper()
		for _, o := range []*options{&oDefault, &oUnknown} {
			samePaths(t, []byte(text), o, 0, newBudget(&o.limits, nil, int64(len(text))).limit)
		}
		_, err := DecodeFragment([]byte(text), WithUnknownProperties(true))
		if rep < 0 {
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, text)
			}
			if _, direct := decodeDirect([]byte(text), &oUnknown, nil, new(jsonScratch)); !direct {
				t.Fatalf("%s: the direct decoder left it to the generic path\n%s", name, text)
			}
			return
		}
		var fe *FormatError
		if !errors.Is(err, ErrFraming) || !errors.As(err, &fe) || !strings.Contains(err.Error(), "duplicate object key") || fe.Offset != int64(rep) {
			t.Fatalf("%s: %v, want a duplicate key at %d\n%s", name, err, rep, text)
		}
	}
	cases := 0
	for l := 0; l <= 5; l++ {
		for _, n := range []int{1, 2, 5, 6, 7, 8, 13, 100, 1000} {
			keys := make([]string, n)
			for i := range keys {
				keys[i] = plain(i)
			}
			// Distinct keys, before the known ones, after them, both.
			for _, c := range [][2][]string{{keys, nil}, {nil, keys}, {keys[:n/2], keys[n/2:]}} {
				text, _ := fill(l, c[0], c[1], -1, false)
				check(fmt.Sprintf("level %d, %d+%d keys", l, len(c[0]), len(c[1])), text, -1)
				cases++
			}
			// A key again: the first, a middle one, the last; plainly
			// and escaped; in the same run of keys (before the known
			// ones or after them) and across the object's known keys
			// and nested objects.
			for _, j := range []int{0, n / 2, n - 1} {
				for _, again := range []string{plain(j), `\u0075` + strconv.Itoa(j)} {
					more := append(slices.Clone(keys), again)
					text, off := fill(l, more, nil, n, false)
					check(fmt.Sprintf("level %d, %d keys before, key %d again as %q", l, n, j, again), text, off)
					text, off = fill(l, nil, more, n, true)
					check(fmt.Sprintf("level %d, %d keys after, key %d again as %q", l, n, j, again), text, off)
					text, off = fill(l, keys, []string{again}, 0, true)
					check(fmt.Sprintf("level %d, %d keys before, key %d again after as %q", l, n, j, again), text, off)
					cases += 3
				}
			}
		}
		// Keys the same once decoded: invalid UTF-8 (U+FFFD) spelled
		// differently, the replacement character escaped, the empty
		// key, an escaped null.
		for _, pair := range [][2]string{{"\xff", "\xfe"}, {"\xff", `\uFFFD`}, {"", ""}, {"a\xffb", "a\xc0b"}, {`\u0000`, `\u0000`}} {
			text, off := fill(l, []string{"u0", pair[0], "u1", pair[1]}, nil, 3, false)
			check(fmt.Sprintf("level %d: %q then %q", l, pair[0], pair[1]), text, off)
			text, off = fill(l, []string{"u0", pair[0]}, []string{"u1", pair[1]}, 1, true)
			check(fmt.Sprintf("level %d: %q, then %q after the known keys", l, pair[0], pair[1]), text, off)
			cases += 2
		}
		// Distinct keys that differ only after a long common prefix, or
		// only in length, or only in escapes of distinct characters.
		long := strings.Repeat("k", 300)
		text, _ := fill(l, []string{long, long + "x", long[:299], "", "\xff", `\u00e9`, "e" + long, `\u0000`, "u"}, []string{"é" + long, "x"}, -1, false)
		check(fmt.Sprintf("level %d, long keys", l), text, -1)
		cases++
	}
	// An unknown key right after the type of every field class and
	// fragment the direct decoder reads (directSeeds has them all) keeps
	// the fragment on the direct decoder.
	typeKey := regexp.MustCompile(`"type":\s*"[a-z-]+"`)
	for _, seed := range directSeeds {
		if _, direct := decodeDirect([]byte(seed), &oUnknown, nil, new(jsonScratch)); !direct {
			continue
		}
		text := typeKey.ReplaceAllString(seed, `$0,"zz":1`)
		samePaths(t, []byte(text), &oUnknown, 0, 1<<40)
		if _, direct := decodeDirect([]byte(text), &oUnknown, nil, new(jsonScratch)); !direct {
			t.Errorf("the direct decoder left %.300s", text)
		}
		cases++
	}
	t.Logf("%d objects", cases)
}

// TestSpaceRun: the scanner stops at the first byte that is not JSON white
// space, from every start, in runs of newlines, indentation of every length
// across the eight-byte steps, tabs, carriage returns and the end of the
// text.
func TestSpaceRun(t *testing.T) {
	texts := []string{"", "x", "\n", "\n\n", "\n\t x", "\r\n  x", "\n \n  \n}", " \t"}
	for n := range 40 {
		sp := strings.Repeat(" ", n)
		texts = append(texts, "\n"+sp+"x", "\n"+sp, "\n"+sp+"\n"+sp+"\"k\"", "\n"+sp+"\t\"k\"", "\n"+sp+"\r\n{", sp+"]", ":"+sp+"1")
	}
	for _, s := range texts {
		for start := range len(s) + 1 {
			want := start
			for want < len(s) && strings.IndexByte(" \t\r\n", s[want]) >= 0 {
				want++
			}
			p := jsonParser{b: []byte(s), i: start}
			p.space()
			if p.i != want {
				t.Errorf("%q from %d: stopped at %d, want %d", s, start, p.i, want)
			}
		}
	}
}
