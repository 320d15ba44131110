package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// progress reports a long operation on standard error when it is a terminal:
// done and total, rate and time left, on one line redrawn at most 10 times a
// second and erased when the operation ends. It stays silent when standard
// error is not a terminal (pipes, files, CI, tests).
type progress struct {
	label string
	unit  string // "" for bytes, else the name of the counted items ("events")
	total int64  // 0 when unknown
	done  int64

	w       io.Writer        // nil: silent
	now     func() time.Time // the clock, replaced in tests
	start   time.Time
	last    time.Time // of the last redraw
	visible bool      // a line is on the screen
}

// progressThreshold is the input size above which progress is shown (a
// variable for tests).
var progressThreshold int64 = 64 << 20

// progressShown, when set (by tests), is called with every reporter that
// will draw.
var progressShown func(p *progress)

// progressInterval is the least time between two redraws.
const progressInterval = 100 * time.Millisecond

// stderrIsTerminal reports whether standard error is a terminal; tests
// replace it.
var stderrIsTerminal = func() bool { return term.IsTerminal(int(os.Stderr.Fd())) }

// newProgress returns a reporter for an operation over total bytes; it is a
// no-op unless standard error is a terminal and force is set or total is at
// least progressThreshold. Count items other than bytes with Units.
func newProgress(label string, total int64, force bool) *progress {
	p := &progress{label: label, total: total, now: time.Now}
	if (force || total >= progressThreshold) && !progressMuted.Load() && stderrIsTerminal() {
		p.w = os.Stderr
		if progressShown != nil {
			progressShown(p)
		}
	}
	p.start = p.now()
	return p
}

// Units makes p count items named unit ("events") instead of bytes.
func (p *progress) Units(unit string) *progress {
	p.unit = unit
	return p
}

// Add records n more units done and redraws the line when the last redraw is
// at least progressInterval old.
func (p *progress) Add(n int64) {
	p.done += n
	if p.w == nil {
		return
	}
	now := p.now()
	if p.visible && now.Sub(p.last) < progressInterval {
		return
	}
	if !p.visible && now.Sub(p.start) < progressInterval {
		return // a short operation shows nothing at all
	}
	p.last = now
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(now))
	if !p.visible {
		p.visible = true
		activeProgress.set(p)
	}
}

// progressWriter counts the bytes written through it on a progress line:
// the hook for commands whose work is best measured by what they write
// (convert; export can use it or count its own).
type progressWriter struct {
	w io.Writer
	p *progress
}

func (pw progressWriter) Write(b []byte) (int, error) {
	n, err := pw.w.Write(b)
	pw.p.Add(int64(n))
	return n, err
}

// Done erases the progress line. It may be called more than once.
func (p *progress) Done() {
	if p.visible {
		io.WriteString(p.w, "\r\x1b[K")
		p.visible = false
		activeProgress.clear(p)
	}
}

// line renders "label: 1.5 GiB / 4.0 GiB (37%), 210 MiB/s, 12s left".
func (p *progress) line(now time.Time) string {
	var b strings.Builder
	b.WriteString(p.label)
	b.WriteString(": ")
	b.WriteString(p.amount(p.done))
	if p.total > 0 {
		b.WriteString(" / ")
		b.WriteString(p.amount(p.total))
		fmt.Fprintf(&b, " (%d%%)", min(100, p.done*100/p.total))
	}
	elapsed := now.Sub(p.start).Seconds()
	if elapsed <= 0 || p.done <= 0 {
		return b.String()
	}
	rate := float64(p.done) / elapsed
	b.WriteString(", ")
	b.WriteString(p.amount(int64(rate)))
	b.WriteString("/s")
	if p.total > p.done {
		left := time.Duration(float64(p.total-p.done) / rate * float64(time.Second))
		b.WriteString(", ")
		b.WriteString(formatETA(left))
		b.WriteString(" left")
	}
	return b.String()
}

func (p *progress) amount(n int64) string {
	if p.unit == "" {
		return formatBytes(n)
	}
	return formatCount(n) + " " + p.unit
}

// formatBytes renders n with a binary unit: "512 B", "1.5 KiB", "12.0 GiB".
func formatBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB", "PiB"} {
		v /= 1024
		if v < 1024 || u == "PiB" {
			return fmt.Sprintf("%.1f %s", v, u)
		}
	}
	panic("unreachable")
}

// formatCount renders n as "950", "12.3 k", "4.56 M", "7.89 G".
func formatCount(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1f k", float64(n)/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.2f M", float64(n)/1e6)
	default:
		return fmt.Sprintf("%.2f G", float64(n)/1e9)
	}
}

// formatETA renders a time left as "45s", "3m05s" or "2h07m".
func formatETA(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	}
}

// progressMuted silences progress while many inputs are processed in
// parallel (their lines would overwrite each other).
var progressMuted atomic.Bool

// activeProgress is the line on the screen, if any, so that a command ending
// on an error path (or an interrupt) still erases it.
var activeProgress progressSlot

type progressSlot struct {
	mu sync.Mutex
	p  *progress
}

func (s *progressSlot) set(p *progress) {
	s.mu.Lock()
	s.p = p
	s.mu.Unlock()
}

func (s *progressSlot) clear(p *progress) {
	s.mu.Lock()
	if s.p == p {
		s.p = nil
	}
	s.mu.Unlock()
}

// erase erases the line left on the screen, if any.
func (s *progressSlot) erase() {
	s.mu.Lock()
	p := s.p
	s.p = nil
	s.mu.Unlock()
	if p != nil && p.visible {
		io.WriteString(p.w, "\r\x1b[K")
		p.visible = false
	}
}
