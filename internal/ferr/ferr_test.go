package ferr

import (
	"errors"
	"testing"
)

var (
	errLimit     = errors.New("over limit")
	errTruncated = errors.New("truncated input")
)

func TestErrorWrapsAndRenders(t *testing.T) {
	err := error(New("dial9", 42, errTruncated, "frame tag %#x cut short", 9))
	if !errors.Is(err, errTruncated) {
		t.Fatal("errors.Is failed")
	}
	var fe *Error
	if !errors.As(err, &fe) || fe.Offset != 42 {
		t.Fatal("errors.As failed")
	}
	if got, want := err.Error(), "dial9: offset 42: frame tag 0x9 cut short"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	if got := (&Error{Format: "atf", Offset: -1, Err: errLimit}).Error(); got != "atf: over limit" {
		t.Fatalf("got %q", got)
	}
}

func TestCheckerCount(t *testing.T) {
	c := Checker{Format: "x", Limit: errLimit, Truncated: errTruncated}
	if err := c.Count(0, "entries", 10, 100, 100, 8); err != nil {
		t.Fatal(err)
	}
	if err := c.Count(0, "entries", 101, 100, 1<<30, 1); !errors.Is(err, errLimit) {
		t.Fatalf("want limit, got %v", err)
	}
	if err := c.Count(5, "entries", 20, 100, 100, 8); !errors.Is(err, errTruncated) {
		t.Fatalf("want truncated, got %v", err)
	}
	if err := c.Count(5, "entries", 1<<62, ^uint64(0), 100, 1<<10); !errors.Is(err, errTruncated) {
		t.Fatalf("overflowing product: got %v", err)
	}
	if err := c.Count(5, "entries", 3, 100, -1, 0); err != nil {
		t.Fatalf("zero-size items: %v", err)
	}
}
