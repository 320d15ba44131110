module github.com/tracecodec/tracecodec

go 1.26

require golang.org/x/crypto v0.55.0

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
