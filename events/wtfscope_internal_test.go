package events

import "testing"

func TestUnescapeJSON(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:        "plain",
		`a\"b\\c\/d`:   `a"b\c/d`,
		`\b\f\n\r\t`:   "\b\f\n\r\t",
		`\u00e9\u4e2d`: "é中",
		`\ud83d\ude00`: "😀",
		`\u12`:         `\u12`,
		`\uzzzz`:       `\uzzzz`,
		`\ud83d alone`: "\uFFFD alone",
	} {
		if got := string(unescapeJSON(nil, []byte(in))); got != want {
			t.Errorf("unescape %q = %q, want %q", in, got, want)
		}
	}
}

func TestScanValue(t *testing.T) {
	for in, want := range map[string]int{
		`"a\"b",`:            6,
		`[1,"]",{"x":[2]}],`: 17,
		`-12.5e3}`:           7,
		`true `:              4,
		`{"a":"}"}`:          9,
	} {
		if end, ok := scanValue([]byte(in), 0); !ok || end != want {
			t.Errorf("scanValue(%q) = %d, %v; want %d", in, end, ok, want)
		}
	}
	for _, in := range []string{`"open`, `[1,2`, ``, `,`} {
		if _, ok := scanValue([]byte(in), 0); ok {
			t.Errorf("scanValue(%q) ok", in)
		}
	}
}
