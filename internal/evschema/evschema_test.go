package evschema

import (
	"strings"
	"testing"
)

const good = `{"format":"atf","record":{"thread":1,"seq":0,"kind":"CALL","thread_id":1,"detail_seq":null},"kind":"begin","name":"main","ts_ns":5,"dur_ns":null,"track_kind":"thread","track":1,"track_name":"thread_1","args":{"function_id":7,"depth":1}}`

func TestCheck(t *testing.T) {
	if _, err := Check([]byte(good)); err != nil {
		t.Fatalf("good line: %v", err)
	}
	for _, args := range []string{`"depth":1,"detail_type":"FUNCTION_CALL","detail":"00ff"}`, `"depth":1,"detail_type":null,"detail":null}`} {
		if _, err := Check([]byte(strings.Replace(good, `"depth":1}`, args, 1))); err != nil {
			t.Errorf("good line with detail: %v", err)
		}
	}
	bad := map[string]string{
		"not JSON":            good[:len(good)-1],
		"keys out of order":   strings.Replace(good, `"kind":"begin","name":"main"`, `"name":"main","kind":"begin"`, 1),
		"a key missing":       strings.Replace(good, `"dur_ns":null,`, ``, 1),
		"an extra key":        strings.Replace(good, `"args":`, `"extra":1,"args":`, 1),
		"unknown kind":        strings.Replace(good, `"kind":"begin"`, `"kind":"start"`, 1),
		"unknown format":      strings.Replace(good, `"format":"atf"`, `"format":"xyz"`, 1),
		"unknown track kind":  strings.Replace(good, `"track_kind":"thread"`, `"track_kind":"cpu"`, 1),
		"ts as a string":      strings.Replace(good, `"ts_ns":5`, `"ts_ns":"5"`, 1),
		"dur_ns on a begin":   strings.Replace(good, `"dur_ns":null`, `"dur_ns":3`, 1),
		"complete without":    strings.Replace(good, `"kind":"begin"`, `"kind":"complete"`, 1),
		"args not an object":  strings.Replace(good, `"args":{"function_id":7,"depth":1}`, `"args":[1]`, 1),
		"atf args missing":    strings.Replace(good, `"function_id":7,`, ``, 1),
		"atf args extra":      strings.Replace(good, `"depth":1}`, `"depth":1,"x":2}`, 1),
		"atf detail alone":    strings.Replace(good, `"depth":1}`, `"depth":1,"detail":"00","x":2}`, 1),
		"atf detail not hex":  strings.Replace(good, `"depth":1}`, `"depth":1,"detail_type":"FUNCTION_CALL","detail":"0xZZ"}`, 1),
		"atf detail type num": strings.Replace(good, `"depth":1}`, `"depth":1,"detail_type":3,"detail":"00"}`, 1),
		"record key missing":  strings.Replace(good, `"seq":0,`, ``, 1),
		"record of a format":  strings.Replace(good, `{"thread":1,"seq":0,"kind":"CALL","thread_id":1,"detail_seq":null}`, `{"tick_index":1}`, 1),
		"track not a number":  strings.Replace(good, `"track":1,`, `"track":"1",`, 1),
		"trailing characters": good + "x",
	}
	for name, line := range bad {
		if _, err := Check([]byte(line)); err == nil {
			t.Errorf("%s: accepted %s", name, line)
		}
	}
}
