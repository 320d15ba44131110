package main

import (
	"os"
	"strings"
	"testing"
)

// dump of a CTF trace with enumerations: the text form is babeltrace2's
// (labels in it), and dump --json carries each label as "<field>_label"
// after the integer.
func TestDumpCTFEnumLabels(t *testing.T) {
	const dir = "../../events/testdata/ctf-enum"
	code, out, errb := run(t, nil, "dump", dir+"/trace")
	want, err := os.ReadFile(dir + "/babeltrace2-2.1.2.txt")
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 || out != string(want) {
		t.Errorf("exit %d: %s\ngot\n%s\nwant (babeltrace2)\n%s", code, errb, out, want)
	}
	code, out, errb = run(t, nil, "dump", "--json", dir+"/trace")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 4 {
		t.Fatalf("exit %d: %s\n%s", code, errb, out)
	}
	for i, args := range []string{
		`"args":{"u":0,"u_label":"ZERO|LOW","s":-1,"s_label":"NEG|MINUS_ONE|SMALL","st":{"m":1,"m_label":"ON"},"bm":3,"bm_label":"A|B","arr":[0,1],"arr_label":[null,"ON"]}}`,
		`"args":{"u":3,"u_label":"LOW|THREE","s":0,"s_label":"ZERO|SMALL","st":{"m":0,"m_label":"OFF"},"bm":0,"bm_label":null,"arr":[1,7],"arr_label":["ON",null]}}`,
		`"args":{"u":7,"u_label":null,"s":-7,"s_label":null,"st":{"m":5,"m_label":null},"bm":4,"bm_label":"B","arr":[2,2],"arr_label":[null,null]}}`,
		`"args":{"u":15,"u_label":"HIGH","s":-3,"s_label":"NEG","st":{"m":1,"m_label":"ON"},"bm":1,"bm_label":"A","arr":[1,1],"arr_label":["ON","ON"]}}`,
	} {
		if !strings.HasSuffix(lines[i], args) {
			t.Errorf("line %d: %s\nwant it to end with %s", i, lines[i], args)
		}
	}
}
