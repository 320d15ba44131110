package events

import (
	"errors"
	"io/fs"
	"path/filepath"
)

// maxSessionEntries bounds the folder entries CTFSession looks at: enough
// for an LTTng session folder, bounded on a home folder.
const maxSessionEntries = 10000

// CTFSession returns the CTF trace folders below folder path, relative to
// it in walk (lexical) order, when path is no trace folder itself
// (DetectDir) and the only traces below it are CTF trace folders — an
// LTTng session folder (kernel/ beside ust/uid/1000/64-bit/), which Open
// reads as one trace as babeltrace2 does. It returns nil when there is
// none, when a trace folder or file of another format is below path
// (files of no known format are left alone, and so are CTF metadata or
// data stream files outside trace folders), or when path holds more than
// 10 000 entries. Symbolic links are not followed.
func CTFSession(path string) []string {
	if DetectDir(path).Known() {
		return nil
	}
	var dirs []string
	seen := 0
	errStop := errors.New("stop")
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if seen++; seen > maxSessionEntries {
			return errStop
		}
		if err != nil {
			if d != nil && d.IsDir() && p != path {
				return fs.SkipDir
			}
			return nil
		}
		if p == path {
			return nil
		}
		if d.IsDir() {
			det := DetectDir(p)
			switch {
			case det.Format == FormatCTF:
				rel, _ := filepath.Rel(path, p)
				dirs = append(dirs, rel)
				return fs.SkipDir
			case det.Known():
				return errStop
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if det, err := DetectFile(p); err == nil && det.Known() && det.Format != FormatCTF {
			return errStop
		}
		return nil
	})
	if err != nil {
		return nil
	}
	return dirs
}
