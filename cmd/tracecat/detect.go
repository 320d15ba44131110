package main

import "github.com/tracecodec/tracecodec/events"

// Detection lives in package events (its table of magic bytes, folder
// layouts and extension fallbacks); tracecat names it through these.

// detection is what `detect` prints after "PATH: ".
type detection = events.Detection

func detectFile(path string) (detection, error) { return events.DetectFile(path) }

// detectBytes recognises a format by its leading bytes.
func detectBytes(b []byte) detection { return events.DetectBytes(b) }

// detectDir recognises ATF sessions and threads and CTF trace folders.
func detectDir(path string) detection { return events.DetectDir(path) }
