package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newTestProgress(total int64, out *strings.Builder) (*progress, *fakeClock) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := &progress{label: "reading", total: total, w: out, now: clock.now, start: clock.now()}
	return p, clock
}

func TestProgressRendering(t *testing.T) {
	var out strings.Builder
	p, clock := newTestProgress(1000<<20, &out)

	// Nothing during the first 100 ms: short operations show no line.
	clock.advance(50 * time.Millisecond)
	p.Add(50 << 20)
	if out.Len() != 0 {
		t.Fatalf("drawn too early: %q", out.String())
	}
	clock.advance(50 * time.Millisecond)
	p.Add(50 << 20)
	want := "\rreading: 100.0 MiB / 1000.0 MiB (10%), 1000.0 MiB/s, 1s left\x1b[K"
	if out.String() != want {
		t.Fatalf("got  %q\nwant %q", out.String(), want)
	}
	// Within 100 ms of the last redraw: nothing new.
	clock.advance(99 * time.Millisecond)
	p.Add(1)
	if out.String() != want {
		t.Fatalf("redrawn within 100 ms: %q", out.String())
	}

	// One Add per millisecond for 10 s: at most 10 redraws a second.
	out.Reset()
	for range 10_000 {
		clock.advance(time.Millisecond)
		p.Add(1 << 10)
	}
	if n := strings.Count(out.String(), "\r"); n < 95 || n > 100 {
		t.Errorf("%d redraws in 10 s", n)
	}
	last := out.String()[strings.LastIndex(out.String(), "\r"):]
	if want := "\rreading: 109.7 MiB / 1000.0 MiB (10%), 10.9 MiB/s, 1m22s left\x1b[K"; last != want {
		t.Errorf("last line %q\nwant      %q", last, want)
	}

	// Done erases the line and nothing is drawn after it.
	out.Reset()
	p.Done()
	if out.String() != "\r\x1b[K" {
		t.Errorf("erase: %q", out.String())
	}
	p.Done()
	if out.String() != "\r\x1b[K" {
		t.Errorf("second Done wrote %q", out.String())
	}
}

func TestProgressItemsAndUnknownTotal(t *testing.T) {
	var out strings.Builder
	p, clock := newTestProgress(0, &out)
	p.Units("events")
	clock.advance(2 * time.Second)
	p.Add(3_000_000)
	if want := "\rreading: 3.00 M events, 1.50 M events/s\x1b[K"; out.String() != want {
		t.Errorf("got %q want %q", out.String(), want)
	}
	// A command ending on an error path leaves the line to activeProgress.
	activeProgress.erase()
	if !strings.HasSuffix(out.String(), "\r\x1b[K") || p.visible {
		t.Errorf("activeProgress.erase: %q", out.String())
	}
}

func TestProgressOnlyOnATerminal(t *testing.T) {
	old := stderrIsTerminal
	defer func() { stderrIsTerminal = old }()
	stderrIsTerminal = func() bool { return false }
	if p := newProgress("x", 1<<40, true); p.w != nil {
		t.Error("progress drawn on a non-terminal")
	}
	stderrIsTerminal = func() bool { return true }
	if p := newProgress("x", 1<<40, false); p.w != os.Stderr {
		t.Error("no progress on a terminal for a large input")
	}
	if p := newProgress("x", 1<<20, false); p.w != nil {
		t.Error("progress for a small input")
	}
	if p := newProgress("x", 1<<20, true); p.w != os.Stderr {
		t.Error("forced progress not shown on a terminal")
	}
	// The real check is term.IsTerminal: a regular file is not a terminal.
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stderr
	os.Stderr = f
	isTerm := old()
	os.Stderr = saved
	if isTerm {
		t.Error("a regular file counted as a terminal")
	}
}

func TestFormatting(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 5 << 30: "5.0 GiB", 3 << 40: "3.0 TiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{0: "0s", 45 * time.Second: "45s", 185 * time.Second: "3m05s", 7620 * time.Second: "2h07m"} {
		if got := formatETA(d); got != want {
			t.Errorf("formatETA(%v) = %q want %q", d, got, want)
		}
	}
	for n, want := range map[int64]string{999: "999", 12_300: "12.3 k", 4_560_000: "4.56 M", 7_890_000_000: "7.89 G"} {
		if got := formatCount(n); got != want {
			t.Errorf("formatCount(%d) = %q want %q", n, got, want)
		}
	}
}
