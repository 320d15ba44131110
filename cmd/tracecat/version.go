package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

func (c *cli) cmdVersion(args []string) int {
	if _, code, ok := c.parse(c.flags("version"), args, 0, 0); !ok {
		return code
	}
	bi, ok := debug.ReadBuildInfo()
	fmt.Fprint(c.stdout, versionText(bi, ok))
	return exitOK
}

// versionText renders what `tracecat version` prints from the build
// information: the module and its version ("(devel)" when the build has none,
// as for go run and go build in a checkout), the VCS revision with its time
// and a "modified" mark when the tree had local changes, and the Go version.
func versionText(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "tracecat (devel)\nrevision unknown: this binary carries no build information\n"
	}
	path, version := bi.Main.Path, bi.Main.Version
	if path == "" {
		path = "github.com/tracecodec/tracecodec"
	}
	if version == "" {
		version = "(devel)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tracecat %s %s\n", path, version)
	var rev, when, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		b.WriteString("revision unknown (not built from a VCS checkout)\n")
	} else {
		var notes []string
		if when != "" {
			notes = append(notes, when)
		}
		if modified == "true" {
			notes = append(notes, "modified")
		}
		fmt.Fprintf(&b, "revision %s", rev)
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
		}
		b.WriteByte('\n')
	}
	if bi.GoVersion != "" {
		fmt.Fprintf(&b, "built with %s\n", bi.GoVersion)
	}
	return b.String()
}
