package cdt

import "sort"

// ratioBudget charges the zstd chunks of one pass over a file against the
// decompression ratio cumulatively: the bytes decompressed so far may exceed
// MaxDecompressionRatio times the bytes stored by at most MinRatioFloor. The
// per-chunk exemption of small chunks (checkHeader) therefore holds once per
// file, not once per chunk: 3 000 chunks of 940 bytes that inflate to 1 MiB
// each are refused after the first, where charging them one by one would
// let decompression time and memory grow a thousand times the input's size.
type ratioBudget struct {
	stored, inflated int64
}

// charge adds the zstd chunk h at off and returns an ErrLimit error when the
// file as a whole now expands beyond the ratio.
func (b *ratioBudget) charge(off int64, h *ChunkHeader, lim Limits) error {
	if h.Flags&FlagZstd == 0 {
		return nil
	}
	b.stored += int64(h.CompressedLen)
	b.inflated += int64(h.UncompressedLen)
	return b.check(off+20, lim)
}

func (b *ratioBudget) check(off int64, lim Limits) error {
	if b.inflated > lim.MaxDecompressionRatio*b.stored+MinRatioFloor {
		return newErr(off, ErrLimit, "the chunks so far expand %d bytes to %d, beyond the decompression ratio limit of %d:1 plus %d bytes for the whole file (Limits.MaxDecompressionRatio)",
			b.stored, b.inflated, lim.MaxDecompressionRatio, MinRatioFloor)
	}
	return nil
}

// checkBlockIndex checks the footer's block index of the footer chunk at off
// as a whole: every entry names its own chunk (the chunks listed, in file
// order, do not overlap — a footer listing one chunk 20 000 times would
// have every reader decode it 20 000 times and count its ticks as many),
// and the chunks together stay within the decompression ratio (ratioBudget).
// File checks each chunk's header against its entry when it reads it
// (File.checkEntry), so these lengths are the ones decoded.
func checkBlockIndex(off int64, blocks []BlockIndexEntry, lim Limits) error {
	var budget ratioBudget
	prev := -1
	for i := range blocks {
		e := &blocks[i]
		if prev >= 0 {
			p := &blocks[prev]
			if end := p.FileOffset + ChunkHeaderSize + p.CompressedLen; e.FileOffset < end {
				if e.FileOffset == p.FileOffset {
					return newErr(off, ErrFooter, "invalid trace footer block index: block %d lists the chunk at offset %d again (block %d); each chunk is listed once", i, e.FileOffset, prev)
				}
				return newErr(off, ErrFooter, "invalid trace footer block index: block %d at offset %d overlaps or precedes block %d (chunk at %d, %d bytes); blocks are listed in file order, each chunk once",
					i, e.FileOffset, prev, p.FileOffset, ChunkHeaderSize+p.CompressedLen)
			}
		}
		prev = i
		budget.stored += e.CompressedLen // raw chunks count at 1:1
		budget.inflated += max(e.UncompressedLen, e.CompressedLen)
	}
	return budget.check(off, lim)
}

// checkEntry compares the header h of the chunk read at off with the footer
// entry listing that offset, when there is one: a footer whose lengths are
// not the chunk's would let overlapping chunks through checkBlockIndex.
func (rd *File) checkEntry(off int64, h *ChunkHeader) error {
	bl := rd.footer.Blocks
	i := sort.Search(len(bl), func(i int) bool { return bl[i].FileOffset >= off })
	if i == len(bl) || bl[i].FileOffset != off {
		return nil
	}
	if e := &bl[i]; e.CompressedLen != int64(h.CompressedLen) || e.UncompressedLen != int64(h.UncompressedLen) {
		return newErr(off+16, ErrFooter, "invalid trace footer block index: block %d says %d/%d bytes, the chunk header at %d says %d/%d",
			i, e.CompressedLen, e.UncompressedLen, off, h.CompressedLen, h.UncompressedLen)
	}
	return nil
}
