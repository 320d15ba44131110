package main

// convert --to chrome: Chrome trace-event JSON from the event layer, written
// by package chromeexport (see its doc for the document's shape).

import (
	"context"
	"io"

	"github.com/tracecodec/tracecodec/chromeexport"
	"github.com/tracecodec/tracecodec/events"
)

// writeChrome streams the input's events as Chrome trace-event JSON.
func writeChrome(in *input, out io.Writer, opts ...chromeexport.Option) error {
	_, err := writeChromeResult(in, out, opts...)
	return err
}

// writeChromeResult is writeChrome returning what was written.
func writeChromeResult(in *input, out io.Writer, opts ...chromeexport.Option) (chromeexport.Result, error) {
	// WTF: scope data for the slices; CTF: LTTng's function and system
	// calls as slices on their threads' tracks
	r, err := openEvents(in, events.WithScopeData(), events.WithCTFCallSlices())
	if err != nil {
		return chromeexport.Result{}, err
	}
	defer r.Close()
	ctx := in.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return chromeexport.Write(ctx, out, r, opts...)
}
