package schema7

import (
	"io"

	"github.com/tracecodec/tracecodec/cdt"
)

// NewWriter starts a CDT file on w with meta as its META payload; add rows
// with Writer.Append(&rec) (rec a *TickRecord). The footer's channel_counts
// count the RequiredChannels, as the reference writer does, unless opts hold
// a cdt.WithFooterChannels.
func NewWriter(w io.Writer, meta *TraceMeta, opts ...cdt.WriterOption) (*cdt.Writer, error) {
	b, err := meta.MarshalMsg(nil)
	if err != nil {
		return nil, err
	}
	return cdt.NewWriter(w, b, withRequired(opts)...)
}

// withRequired puts the footer channel default first, so a caller's
// cdt.WithFooterChannels overrides it.
func withRequired(opts []cdt.WriterOption) []cdt.WriterOption {
	return append([]cdt.WriterOption{cdt.WithFooterChannels(requiredChannels[:]...)}, opts...)
}

// Create starts a CDT file named name through a temporary file renamed by
// a successful Close (see cdt.Create).
func Create(name string, meta *TraceMeta, opts ...cdt.WriterOption) (*cdt.Writer, error) {
	b, err := meta.MarshalMsg(nil)
	if err != nil {
		return nil, err
	}
	return cdt.Create(name, b, withRequired(opts)...)
}
