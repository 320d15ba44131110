package cdt

import (
	"errors"
	"slices"
)

// ReaderOption configures Open, OpenFile and NewReader.
type ReaderOption func(*readerOptions) error

type readerOptions struct {
	limits         Limits
	cacheBlocks    int
	schemaVersions []int64
	concurrency    int
	recovery       bool
}

func defaultReaderOptions() readerOptions {
	return readerOptions{
		limits:         DefaultLimits(),
		cacheBlocks:    8,
		schemaVersions: []int64{7, 8},
		concurrency:    1,
	}
}

// WithLimits sets the reader limits; zero fields keep their defaults
// (DefaultLimits).
func WithLimits(l Limits) ReaderOption {
	return func(o *readerOptions) error {
		o.limits = l.withDefaults()
		return nil
	}
}

// WithCacheBlocks sets how many decoded TICK blocks Tick and Block keep
// (least recently used first out). Default 8; 0 disables the cache.
func WithCacheBlocks(n int) ReaderOption {
	return func(o *readerOptions) error {
		if n < 0 {
			return errors.New("cdt: WithCacheBlocks: negative count")
		}
		o.cacheBlocks = n
		return nil
	}
}

// WithSchemaVersions sets the trace_schema_version values the reader accepts.
// Default 7 and 8, the schemas package schema7 decodes (the reference's v7
// reader accepts 7 only; its v8 reader 8 only; their containers are the same).
func WithSchemaVersions(v ...int64) ReaderOption {
	return func(o *readerOptions) error {
		if len(v) == 0 {
			return errors.New("cdt: WithSchemaVersions: no version")
		}
		o.schemaVersions = slices.Clone(v)
		return nil
	}
}

// WithConcurrency lets range iteration decompress up to n chunks ahead in
// parallel goroutines. Default 1 (no goroutines).
func WithConcurrency(n int) ReaderOption {
	return func(o *readerOptions) error {
		if n < 1 {
			return errors.New("cdt: WithConcurrency: n must be at least 1")
		}
		o.concurrency = n
		return nil
	}
}

// WithRecovery lets Open (OpenFile, OpenBytes) open a trace whose trailer or
// footer is missing or broken — a writer killed before Close — by scanning its
// chunks forward from META, as the stream Reader does, and rebuilding the
// block index from every complete, intact TICK chunk. File.Recovery then
// reports what was read and what was lost. A file whose header or META is
// bad is refused as without the option. Default off: Open performs the
// reference reader's checks and fails. NewReader always recovers.
func WithRecovery() ReaderOption {
	return func(o *readerOptions) error {
		o.recovery = true
		return nil
	}
}
