package ctf

import (
	"path"
	"strconv"
	"strings"
)

// maxGroupNames is how many names a grouped note lists before "and N more".
const maxGroupNames = 3

// groupNotes merges recovery notes "NAME: TEXT" that say the same of
// several streams — the same TEXT once a stream's own index file name in
// it reads index/*.idx — into one "NAME1, NAME2, …: TEXT" note, listing at
// most maxGroupNames names and then how many more, at the place of the
// first. A trace whose every stream has an index of an older layout (LTTng
// 2.3's "CTFIDX") gets one note, not one per stream (a session of 236 such
// traces made a 190 kB recovery line).
func groupNotes(notes []string) []string {
	if len(notes) < 2 {
		return notes
	}
	type group struct {
		text  string
		names []string
		first string // the note as it was, for a group of one
	}
	var groups []*group
	byText := map[string]*group{}
	for _, n := range notes {
		name, text, ok := strings.Cut(n, ": ")
		if !ok {
			groups = append(groups, &group{first: n})
			continue
		}
		text = strings.Replace(text, "index/"+path.Base(name)+".idx", "index/*.idx", 1)
		g := byText[text]
		if g == nil {
			g = &group{text: text, first: n}
			byText[text] = g
			groups = append(groups, g)
		}
		g.names = append(g.names, name)
	}
	if len(groups) == len(notes) {
		return notes
	}
	out := make([]string, 0, len(groups))
	for _, g := range groups {
		if len(g.names) < 2 {
			out = append(out, g.first)
			continue
		}
		shown := len(g.names)
		if shown > maxGroupNames+1 { // "and 1 more" would be no shorter
			shown = maxGroupNames
		}
		list := strings.Join(g.names[:shown], ", ")
		if shown < len(g.names) {
			list += " and " + strconv.Itoa(len(g.names)-shown) + " more"
		}
		out = append(out, list+": "+g.text)
	}
	return out
}
