//go:build !linux

package hugebuf

func available() bool { return false }

func makeHuge(n, c int) []byte { return make([]byte, n, c) }
