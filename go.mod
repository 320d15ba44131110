module github.com/tracecodec/tracecodec

go 1.26

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/klauspost/compress v1.20.3
	github.com/tinylib/msgp v1.6.5
	golang.org/x/crypto v0.55.0
	golang.org/x/term v0.45.0
)

require (
	github.com/philhofer/fwd v1.2.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
