package atf

import (
	"errors"
	"runtime"
)

// Option configures a writer or a reader. Writer options are ignored by
// readers and the other way round.
type Option func(*options) error

type options struct {
	arch     Arch
	os       OS
	clock    ClockType
	checksum bool
	bufSize  int
	limits   Limits
}

func defaultOptions() options {
	return options{
		arch:     hostArch(),
		os:       hostOS(),
		clock:    ClockMachContinuous,
		checksum: true,
		bufSize:  64 << 10,
		limits:   DefaultLimits(),
	}
}

func buildOptions(opts []Option) (options, error) {
	o := defaultOptions()
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	o.limits = o.limits.withDefaults()
	return o, nil
}

// WithArch sets the header's arch byte (writers). Default: the host's, as the
// reference writer does (amd64 → 1, arm64 → 2, anything else → 1).
func WithArch(a Arch) Option { return func(o *options) error { o.arch = a; return nil } }

// WithOS sets the header's os byte (writers). Default: the host's (linux → 4,
// darwin → 3, windows → 5, android → 2, ios → 1, anything else → 4).
func WithOS(v OS) Option { return func(o *options) error { o.os = v; return nil } }

// WithClock sets the index header's clock_type (writers) and the session
// manifest's clock_type. Default ClockMachContinuous (1), the value the
// reference tracer always writes; pass the clock your timestamps come from.
func WithClock(c ClockType) Option { return func(o *options) error { o.clock = c; return nil } }

// WithChecksum chooses whether writers store the CRC-32 (IEEE) of the events
// section in the footers (default true). With false they store 0, as the
// reference writer does, and the output is byte-identical to the reference's.
func WithChecksum(on bool) Option { return func(o *options) error { o.checksum = on; return nil } }

// WithBufferSize sets the writers' buffer in bytes (default 64 KiB, at least
// 64). Events reach the underlying writer when the buffer fills, on Flush, on
// Sync and on Close.
func WithBufferSize(n int) Option {
	return func(o *options) error {
		if n < 64 {
			return errors.New("atf: buffer size must be at least 64 bytes")
		}
		o.bufSize = n
		return nil
	}
}

// WithLimits sets the readers' limits; zero fields keep their defaults.
func WithLimits(l Limits) Option { return func(o *options) error { o.limits = l; return nil } }

func hostArch() Arch {
	if runtime.GOARCH == "arm64" {
		return ArchARM64
	}
	return ArchX86_64
}

func hostOS() OS {
	switch runtime.GOOS {
	case "darwin":
		return OSmacOS
	case "windows":
		return OSWindows
	case "android":
		return OSAndroid
	case "ios":
		return OSiOS
	}
	return OSLinux
}
