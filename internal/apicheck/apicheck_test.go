package apicheck

import (
	"path/filepath"
	"strings"
	"testing"
)

// pending lists packages whose exported identifiers are still being
// documented. It must shrink to nothing; an entry whose package has no
// undocumented identifier left is itself an error, so it gets removed.
var pending = map[string]bool{}

func TestEveryExportedIdentifierIsDocumented(t *testing.T) {
	list, err := Undocumented("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range list {
		pkg := filepath.ToSlash(filepath.Dir(s[:strings.IndexByte(s, ':')]))
		seen[pkg] = true
		if !pending[pkg] {
			t.Errorf("undocumented exported identifier: %s", s)
		}
	}
	for pkg := range pending {
		if !seen[pkg] {
			t.Errorf("package %s is fully documented: remove it from pending", pkg)
		}
	}
}

func TestUndocumentedFindsAMissingComment(t *testing.T) {
	list, err := Undocumented("testdata/mod")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"p/p.go:10: Bare",
		"p/p.go:12: T.Method",
		"p/p.go:16: Loose",
	}
	if strings.Join(list, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(list, "\n"), strings.Join(want, "\n"))
	}
}
