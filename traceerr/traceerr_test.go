package traceerr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tracecodec/tracecodec/traceerr"
)

var errTruncated = errors.New("demo: truncated")

func TestFormatErrorWrapsAndRenders(t *testing.T) {
	err := error(traceerr.New("demo", 42, errTruncated, "frame tag %#x cut short", 9))
	if !errors.Is(err, errTruncated) {
		t.Fatal("errors.Is failed")
	}
	var fe *traceerr.FormatError
	if !errors.As(fmt.Errorf("wrapped: %w", err), &fe) || fe.Offset != 42 || fe.Format != "demo" {
		t.Fatalf("errors.As failed: %+v", fe)
	}
	if got, want := err.Error(), "demo: offset 42: frame tag 0x9 cut short"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	// An empty Msg uses the sentinel's text without repeating the prefix.
	if got, want := (&traceerr.FormatError{Format: "demo", Offset: -1, Err: errTruncated}).Error(), "demo: truncated"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	if got, want := (&traceerr.FormatError{Format: "demo", Offset: 7, Err: errTruncated}).Detail(), "offset 7: truncated"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

func ExampleFormatError() {
	errBadMagic := errors.New("demo: bad magic")
	var err error = traceerr.New("demo", 0, errBadMagic, "want \"TRC\\x00\", got %q", "GIF8")

	var fe *traceerr.FormatError
	if errors.As(err, &fe) {
		fmt.Println(fe.Offset, errors.Is(err, errBadMagic))
		fmt.Println(fe.Detail())
	}
	// Output:
	// 0 true
	// offset 0: want "TRC\x00", got "GIF8"
}
