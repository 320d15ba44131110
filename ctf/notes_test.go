package ctf

import (
	"slices"
	"testing"
)

// groupNotes: notes saying the same of several streams (their own index
// file named in them) become one, listing up to four names, else three
// and how many more, at the first one's place; different notes and notes
// of one stream stay as they were.
func TestGroupNotes(t *testing.T) {
	idx := func(dir, name string) string {
		return dir + name + ": index/" + name + ".idx cannot be used (bad magic): the stream is read without it"
	}
	in := []string{idx("", "c0"), "c0: 2 damaged packets", idx("", "c1"), idx("", "c2"), idx("", "c3"), "c2: 2 damaged packets", idx("k/", "c9"), "lone"}
	want := []string{
		"c0, c1, c2 and 2 more: index/*.idx cannot be used (bad magic): the stream is read without it",
		"c0, c2: 2 damaged packets",
		"lone",
	}
	if got := groupNotes(in); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	want[0] = "c0, c1, c2, c3: index/*.idx cannot be used (bad magic): the stream is read without it"
	in = slices.Delete(in, 6, 7)
	if got := groupNotes(in); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	one := []string{idx("", "c0"), "c1: other"}
	if got := groupNotes(one); !slices.Equal(got, one) {
		t.Errorf("got %q, want them as they were", got)
	}
}
