module github.com/tracecodec/tracecodec

go 1.26

require (
	github.com/cespare/xxhash/v2 v2.3.0
	golang.org/x/crypto v0.55.0
)

require golang.org/x/sys v0.47.0 // indirect
