package main

import (
	"fmt"

	"github.com/tracecodec/tracecodec/cdt"
	"github.com/tracecodec/tracecodec/cdt/schema7"
)

// cmdBisect prints the reference's `dbg bisect` report of two CDT traces:
// exit 0 when they agree, 1 when they diverge.
func (c *cli) cmdBisect(args []string) int {
	fs := c.flags("bisect")
	before := fs.Int64("window-before", 12, "ticks before the first bad tick in the reported window (`N`)")
	after := fs.Int64("window-after", 6, "ticks after the first bad tick in the reported window (`N`)")
	start := fs.String("tick-start", "", "first `TICK` index to compare, inclusive (default: the first tick)")
	end := fs.String("tick-end", "", "last `TICK` index to compare, inclusive (default: the last tick)")
	pos, code, ok := c.parse(fs, args, 2, 2)
	if !ok {
		return code
	}
	var o diffOptions
	if !c.parseInts("bisect", intFlag{"tick-start", *start, &o.TickStart, &o.HasStart}, intFlag{"tick-end", *end, &o.TickEnd, &o.HasEnd}) {
		return exitUsage
	}
	if *before < 0 || *after < 0 {
		return c.usageError("bisect", "--window-before and --window-after must not be negative")
	}
	var readers [2]*cdt.File
	for i, p := range pos {
		r, done, err := c.openCDT(p)
		if err != nil {
			return c.fail(p, err)
		}
		defer done()
		readers[i] = r
	}
	opts := schema7.BisectOptions{WindowBefore: *before, WindowAfter: *after, Exact: true}
	if o.HasStart {
		opts.TickStart = &o.TickStart
	}
	if o.HasEnd {
		opts.TickEnd = &o.TickEnd
	}
	rep, err := schema7.Bisect(readers[0], readers[1], opts)
	if err != nil {
		return c.fail(pos[0]+" vs "+pos[1], err)
	}
	if _, err := fmt.Fprintf(c.stdout, "%s\n", rep.JSON()); err != nil {
		return c.fail("-", err)
	}
	if rep.Mismatch != nil {
		return exitInvalid
	}
	return exitOK
}

// openCDT opens path (or standard input) as a CDT trace for random access.
func (c *cli) openCDT(path string) (*cdt.File, func(), error) {
	in, f, err := c.open(path)
	if err != nil {
		return nil, nil, err
	}
	if f.name != "cdt" {
		return nil, nil, fmt.Errorf("is %s, not a CDT trace", f.name)
	}
	ra, size, closeFn, err := in.ReaderAt()
	if err != nil {
		return nil, nil, err
	}
	r, err := cdt.Open(ra, size)
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	return r, func() { r.Close(); closeFn() }, nil
}
