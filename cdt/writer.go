package cdt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/tinylib/msgp/msgp"
	"github.com/tracecodec/tracecodec/internal/checksum"
	"github.com/tracecodec/tracecodec/internal/hugebuf"
)

// WriterOption configures NewWriter and Create.
type WriterOption func(*writerOptions) error

type writerOptions struct {
	chunkTicks  int
	raw         bool
	level       CompressionLevel
	concurrency int
	channels    []string
	channelsSet bool
	batch       int
}

// WithChunkTicks sets the number of rows per TICK chunk (default 256, the
// reference's; chunking is by row count, not tick value). A chunk is cut
// early only if its rows pass 160 MiB, so that every chunk stays within the
// readers' default MaxChunkSize; a single row may not exceed 64 MiB. Chunks
// of more than 1 MiB (MinRatioFloor) that compress better than 100:1 — long
// stretches of large, nearly identical rows — are refused by readers with the
// default MaxDecompressionRatio, and so are files whose chunks together
// decompress to more than 100 times their stored size plus 1 MiB; have
// readers raise the limit for such traces.
func WithChunkTicks(n int) WriterOption {
	return func(o *writerOptions) error {
		if n < 1 {
			return errors.New("cdt: WithChunkTicks: n must be at least 1")
		}
		o.chunkTicks = n
		return nil
	}
}

// WithRawChunks stores payloads uncompressed with flags = 2, as the upstream
// Zig producer does. Default: zstd with flags = 3.
func WithRawChunks() WriterOption {
	return func(o *writerOptions) error {
		o.raw = true
		return nil
	}
}

// CompressionLevel selects how hard the writer compresses TICK chunks. The
// levels are those of the pure-Go zstd encoder the package uses; a file written
// at any level reads the same.
type CompressionLevel int

// Compression levels, fastest first.
const (
	// CompressionFastest is the fastest level. Beside the reference
	// (libzstd level 3, 256-tick chunks) it writes 2.3 % more bytes on
	// rows shaped like its h8 trace (≈2.5 kB; CompressionDefault 3.4 %
	// more) but 7.1 % more on rows shaped like h5 (≈4 kB, more entities;
	// CompressionDefault 2.7 %, CompressionBetter about 1 %), in 55–70 % of
	// CompressionDefault's CPU time for the whole write.
	CompressionFastest CompressionLevel = iota + 1
	// CompressionDefault is roughly zstd level 3.
	CompressionDefault
	// CompressionBetter is roughly zstd level 7 or 8.
	CompressionBetter
	// CompressionBest is the strongest level, roughly zstd level 11.
	CompressionBest
	// CompressionAuto, the default, compresses with CompressionFastest
	// unless CompressionDefault makes the trace's chunks at least 2 %
	// smaller: the first TICK chunk and every 64th after it are compressed
	// at both levels (the smaller output is written) and the chunks up to
	// the next such probe at the level it chose. The output depends only on
	// the rows and the options, not on timing or WithWriterConcurrency.
	// Beside the reference it stays within 3 % of its size on both row
	// shapes above (h8: CompressionFastest, +2.3 %; h5: CompressionDefault,
	// +2.7 %) at the speed of the level it picks (see docs/performance.md).
	CompressionAuto
)

// String returns the level's name.
func (l CompressionLevel) String() string {
	switch l {
	case CompressionFastest:
		return "fastest"
	case CompressionDefault:
		return "default"
	case CompressionBetter:
		return "better"
	case CompressionBest:
		return "best"
	case CompressionAuto:
		return "auto"
	}
	return "CompressionLevel(" + strconv.Itoa(int(l)) + ")"
}

// zstdLevel maps a level to the encoder's (CompressionAuto: its first
// choice, see autoAlt).
func (l CompressionLevel) zstdLevel() zstd.EncoderLevel {
	switch l {
	case CompressionDefault:
		return zstd.SpeedDefault
	case CompressionBetter:
		return zstd.SpeedBetterCompression
	case CompressionBest:
		return zstd.SpeedBestCompression
	}
	return zstd.SpeedFastest
}

// rawLarge reports whether the level stores the literals of payloads of
// rawLiteralsMin bytes and more raw.
func (l CompressionLevel) rawLarge() bool { return l <= CompressionDefault || l == CompressionAuto }

// CompressionAuto's alternative level, and how its probes choose it.
const (
	autoAlt = CompressionDefault
	// autoProbeEvery: the TICK chunks 0, autoProbeEvery, 2×autoProbeEvery…
	// are compressed at both levels.
	autoProbeEvery = 64
	// autoAltPermille: the alternative is chosen when its output is at
	// most this many thousandths of CompressionFastest's.
	autoAltPermille = 980
)

// WithCompressionLevel sets the compression level of TICK chunks. Default
// CompressionAuto. An unknown level is an error.
func WithCompressionLevel(l CompressionLevel) WriterOption {
	return func(o *writerOptions) error {
		if l < CompressionFastest || l > CompressionAuto {
			return fmt.Errorf("cdt: WithCompressionLevel: unknown level %d", int(l))
		}
		o.level = l
		return nil
	}
}

// WithWriterConcurrency lets the writer compress up to n chunks in parallel
// goroutines; chunks are still written in order. Default 1 (no goroutines).
func WithWriterConcurrency(n int) WriterOption {
	return func(o *writerOptions) error {
		if n < 1 {
			return errors.New("cdt: WithWriterConcurrency: n must be at least 1")
		}
		o.concurrency = n
		return nil
	}
}

// WithChunkBatch sets how many complete TICK chunks a writer without
// goroutines may hold before writing them: up to n chunks (while their
// payloads total less than 8 MiB; a larger chunk alone) have their
// checksums computed in one pass, then are compressed and written in
// order. Default 1: each chunk is hashed and written as soon as it is
// complete, so a killed writer loses only the rows of the chunk being
// filled, as the reference writer does. Up to 8: where the CPU has AVX-512
// (amd64), eight BLAKE2b-64 messages hash side by side at about 4.5 times
// the bytes per second of one (elsewhere nothing is held whatever n). The
// bytes written are the same for every n; what differs is how many
// complete chunks a killed writer had not yet written (see Recovery): up
// to n − 1 besides the open one. Flush and Close write every held chunk.
// WithWriterConcurrency(n ≥ 2) writes each chunk once compressed and
// ignores this option.
func WithChunkBatch(n int) WriterOption {
	return func(o *writerOptions) error {
		if n < 1 {
			return errors.New("cdt: WithChunkBatch: n must be at least 1")
		}
		o.batch = n
		return nil
	}
}

// WithFooterChannels sets the channels counted in the footer's channel_counts
// (written sorted by name, each with the row count). Default: the channels the
// META payload declares (its "channels" list), which for a schema-7 trace are
// the five required channels, as the reference writer counts them
// (schema7.NewWriter passes schema7.RequiredChannels explicitly).
func WithFooterChannels(ch ...string) WriterOption {
	return func(o *writerOptions) error {
		o.channels = slices.Clone(ch)
		o.channelsSet = true
		return nil
	}
}

// Marshaler is what Writer.Append encodes: msgp-generated types such as
// schema7.TickRecord implement it.
type Marshaler interface {
	MarshalMsg(b []byte) ([]byte, error)
}

// Writer streams a CDT v1 file: header and META, TICK chunks of N rows, then
// on Close the FOTR chunk with the block index and the trailer. Nothing is
// written until the first chunk is complete, so a writer closed without rows
// leaves the output empty. After warm-up, Append and WriteRow allocate nothing
// per row. A Writer is not safe for concurrent use.
type Writer struct {
	w io.Writer
	o writerOptions
	// encs holds the encoders by kind (encKind) for the writer's level
	// and, for CompressionAuto, its alternative (encs[1]); ownEnc: they
	// are the writer's own (takeEncoders).
	encs   [2][encKinds]*zstd.Encoder
	ownEnc bool
	// CompressionAuto: whether the last probe chose the alternative level,
	// and the TICK chunks submitted so far.
	useAlt     bool
	tickChunks int

	meta    []byte
	started bool
	off     int64

	cur     *job
	free    []*job
	pending []*job

	// Without goroutines (concurrency 1) the complete TICK chunks of
	// cur.buf not yet written, batch[:nbatch]: their checksums are
	// computed together in one Sums pass (see batchFull), then each is
	// compressed and written in order. sumIn and sums are Sums' arguments.
	batch  [checksum.MaxLanes]batchedChunk
	nbatch int
	sumIn  [checksum.MaxLanes][]byte
	sums   [checksum.MaxLanes]uint64
	// arena: cur.buf's memory once it holds batches of hugebuf.Min bytes
	// and more (see grow), outside the Go heap where it can be mapped.
	arena arena

	footer  Footer
	last    int64
	any     bool
	err     error
	closed  bool
	scratch []byte
	rowMax  int // the longest row added, for grow

	file      *os.File
	tmpName   string
	finalName string
}

// batchedChunk is a complete TICK chunk waiting in a writer's batch:
// its payload is cur.buf[from:to].
type batchedChunk struct {
	from, to   int
	start, end int64
	probe      bool
}

// Batches of chunks hashed together (writers without goroutines): a batch
// is written once it holds batchMax chunks or writeBatchBytes bytes of
// payload, and by Flush and Close. One BLAKE2b message is a serial chain
// of steps; where the CPU has AVX-512, Sums hashes eight at once at about
// 4.5 times the bytes per second, and the checksum of every payload byte
// was a third of a typed write's CPU time.
const writeBatchBytes = 8 << 20

// job is one chunk being assembled, compressed and written.
type job struct {
	// buf: blockPrefixMax reserved bytes at at, then the current chunk's
	// rows (before at: complete chunks of the writer's batch).
	buf     []byte
	at      int
	summed  bool // sum64 is the payload's checksum (computed in a batch)
	sum64   uint64
	rows    int
	start   int64
	end     int64
	kind    ChunkKind
	payload []byte
	out     []byte // chunk header + stored bytes
	hdr     ChunkHeader
	sum     *checksum.Blake2b64
	done    chan struct{}
	// CompressionAuto: compress at the alternative level; compress at both
	// (a probe) and choose, choseAlt being the choice.
	alt, probe, choseAlt bool
}

// NewWriter returns a writer of a CDT file to w whose META payload is meta, a
// msgpack TraceMeta (see schema7.TraceMeta.MarshalMsg). meta is copied.
func NewWriter(w io.Writer, meta []byte, opts ...WriterOption) (*Writer, error) {
	o := writerOptions{chunkTicks: DefaultChunkTicks, level: CompressionAuto, concurrency: 1, batch: 1}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if len(meta) > maxRowSize {
		return nil, newErr(-1, ErrLimit, "meta payload of %d bytes exceeds %d", len(meta), maxRowSize)
	}
	m, err := parseMeta(0, meta)
	if err != nil {
		return nil, err
	}
	if !o.channelsSet {
		o.channels = m.Channels
	}
	if rest, err := msgp.Skip(meta); err != nil || len(rest) != 0 {
		return nil, newErr(0, ErrCorrupt, "meta is not exactly one msgpack map")
	}
	wr := &Writer{w: w, o: o, meta: slices.Clone(meta)}
	if !o.raw {
		if err := wr.takeEncoders(); err != nil {
			return nil, err
		}
	}
	wr.footer.FormatVersion = FormatVersion
	wr.cur = wr.newJob()
	return wr, nil
}

// takeEncoders fills encs: the shared encoders for a writer with
// goroutines of its own, encoders of its own otherwise (see takeEncoder),
// given back by Close. Encoders allocate their memory when first used.
func (w *Writer) takeEncoders() error {
	levels := []CompressionLevel{w.o.level}
	if w.o.level == CompressionAuto {
		levels = append(levels, autoAlt)
	}
	w.ownEnc = w.o.concurrency <= 1
	for i, l := range levels {
		for k := range encKinds {
			key := encKeyFor(l, k)
			if k > 0 && key == encKeyFor(l, k-1) {
				w.encs[i][k] = w.encs[i][k-1]
				continue
			}
			var e *zstd.Encoder
			var err error
			if w.ownEnc {
				e, err = takeEncoder(key)
			} else {
				e, err = encoderFor(key)
			}
			if err != nil {
				w.giveEncoders()
				return err
			}
			w.encs[i][k] = e
		}
	}
	return nil
}

// encKeyFor is the encoder for payloads of kind k at level l (CompressionAuto:
// its first choice).
func encKeyFor(l CompressionLevel, k int) encKey {
	key := encKey{level: l.zstdLevel(), raw: k != encSmall && l.rawLarge(), window: smallWindow}
	if k == encHuge {
		key.window = 8 << 20
	}
	return key
}

// giveEncoders hands the writer's own encoders back (after its last
// chunk, or when takeEncoders failed).
func (w *Writer) giveEncoders() {
	if w.ownEnc {
		for i, l := range []CompressionLevel{w.o.level, autoAlt} {
			for k, e := range w.encs[i] {
				if e != nil && (k == 0 || e != w.encs[i][k-1]) {
					giveEncoder(encKeyFor(l, k), e)
				}
			}
		}
	}
	w.ownEnc = false
	w.encs = [2][encKinds]*zstd.Encoder{}
}

// Create writes a CDT file named name through a temporary file in the same
// directory, renamed to name by a successful Close; a failed Close (or a crash)
// never leaves a partial trace under name.
func Create(name string, meta []byte, opts ...WriterOption) (*Writer, error) {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return nil, err
	}
	w, err := NewWriter(f, meta, opts...)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	w.file, w.tmpName, w.finalName = f, f.Name(), name
	return w, nil
}

func (w *Writer) newJob() *job {
	var j *job
	if n := len(w.free); n > 0 {
		j = w.free[n-1]
		w.free = w.free[:n-1]
	} else if pj, ok := jobPool.Get().(*job); ok {
		j = pj
	} else {
		return &job{buf: make([]byte, blockPrefixMax, 64<<10), sum: checksum.NewBlake2b64(), done: make(chan struct{}, 1)}
	}
	j.buf, j.at, j.rows = j.buf[:blockPrefixMax], 0, 0
	j.alt, j.probe, j.choseAlt = false, false, false
	return j
}

// jobPool keeps chunk buffers between writers: a trace's buffers grow to the
// size of its largest chunk, and the next writer starts from there.
var jobPool sync.Pool

func (w *Writer) releaseJobs() {
	for _, j := range w.free {
		j.payload = nil
		jobPool.Put(j)
	}
	w.free = nil
	if w.cur != nil && w.arena.b == nil {
		w.cur.payload = nil
		jobPool.Put(w.cur)
	}
	w.cur = nil
	w.arena.release()
}

// checkTick validates the next row's tick against the previous one.
func (w *Writer) checkTick(t int64) error {
	if t < 0 || t > math.MaxInt32 {
		return newErr(-1, ErrTickOrder, "tick_index %d is outside 0..%d", t, math.MaxInt32)
	}
	if w.any && t < w.last {
		return newErr(-1, ErrTickOrder, "tick rows must be in non-decreasing order, got %d after %d", t, w.last)
	}
	return nil
}

// WriteRow adds one row given as a raw msgpack TickRecord map; its
// tick_index must not be lower than the previous row's. row is copied.
func (w *Writer) WriteRow(row []byte) error {
	if err := w.usable(); err != nil {
		return err
	}
	if len(row) > maxRowSize {
		return newErr(-1, ErrLimit, "row of %d bytes exceeds %d", len(row), maxRowSize)
	}
	t, err := RowTick(row)
	if err != nil {
		return err
	}
	if err := w.checkTick(t); err != nil {
		return err
	}
	w.rowMax = max(w.rowMax, len(row))
	if j := w.cur; cap(j.buf)-len(j.buf) < len(row) {
		w.grow(len(row))
	}
	w.cur.buf = append(w.cur.buf, row...)
	return w.added(t)
}

// Append encodes m (a TickRecord) straight into the chunk buffer and adds it
// as WriteRow does. The encoding is trusted to be one msgpack map: only the
// keys up to tick_index are read back.
func (w *Writer) Append(m Marshaler) error {
	if err := w.usable(); err != nil {
		return err
	}
	if j := w.cur; cap(j.buf)-len(j.buf) < w.rowMax {
		w.grow(w.rowMax)
	}
	n := len(w.cur.buf)
	b, err := m.MarshalMsg(w.cur.buf)
	if err != nil {
		w.cur.buf = w.cur.buf[:n]
		return err
	}
	t, err := leadingTick(b[n:])
	if err == nil {
		err = w.checkTick(t)
	}
	if err == nil && len(b)-n > maxRowSize {
		err = newErr(-1, ErrLimit, "row of %d bytes exceeds %d", len(b)-n, maxRowSize)
	}
	if err != nil {
		w.cur.buf = b[:n]
		return err
	}
	w.cur.buf = b
	w.rowMax = max(w.rowMax, len(b)-n)
	return w.added(t)
}

// grow gives w.cur.buf room for at least two rows of n bytes more, its
// capacity at least doubled. MarshalMsg would grow it by append's quarter
// steps for large slices instead: ≈17 copies of a 4 MB chunk on its way
// up, each into new memory. A writer without goroutines keeps a batch of
// chunks in the buffer (see writeBatch): it grows at once to a batch of
// chunks of rows as long as the longest so far (at most 2×writeBatchBytes),
// not by doubling, which would copy the buffer into new memory — for a
// fresh process, new pages to fault in — at every step.
func (w *Writer) grow(n int) {
	j := w.cur
	c := max(2*cap(j.buf), len(j.buf)+2*n)
	if n := w.batchMax(); w.o.concurrency <= 1 && n > 1 {
		chunk := min(int64(w.rowMax)*int64(min(w.o.chunkTicks, maxChunkPayload)), maxChunkPayload) + blockPrefixMax
		batch := min(int64(n)*chunk, writeBatchBytes+chunk, 2*writeBatchBytes)
		c = max(c, int(batch))
	}
	if w.o.concurrency <= 1 && c >= hugebuf.Min {
		// Outside the Go heap where it can be mapped (see arena): in a
		// fresh process the batch's 8–12 MiB of new heap started a
		// collection in the middle of a write of ≈4 kB rows. The
		// buffer goes back to the arenas' pool at Close, or when the
		// writer is dropped.
		a := newArena(c)
		nb := a.b[:len(j.buf)]
		copy(nb, j.buf)
		w.arena.release()
		w.arena = a
		guardArena(&w.arena, w)
		j.buf = nb
		return
	}
	nb := hugebuf.Make(len(j.buf), c)
	copy(nb, j.buf)
	j.buf = nb
}

func (w *Writer) usable() error {
	if w.closed {
		return ErrClosed
	}
	return w.err
}

func (w *Writer) added(t int64) error {
	j := w.cur
	if j.rows == 0 {
		j.start = t
	}
	j.end = t
	j.rows++
	if !w.any {
		w.footer.FirstTick = t
		w.any = true
	}
	w.last = t
	w.footer.LastTick = t
	w.footer.TickCount++
	if j.rows >= w.o.chunkTicks || len(j.buf)-j.at >= maxChunkPayload {
		return w.flushBlock()
	}
	return nil
}

// Size bounds that keep every chunk inside the reader's default
// MaxChunkSize (256 MiB): a chunk is cut early once its rows pass
// maxChunkPayload, and a single row may not exceed maxRowSize.
const (
	maxRowSize      = 64 << 20
	maxChunkPayload = 160 << 20
)

// Flush writes the buffered rows as a (possibly short) TICK chunk. Chunk
// boundaries then differ from the reference's pure row-count chunking; Close
// does not need it.
func (w *Writer) Flush() error {
	if err := w.usable(); err != nil {
		return err
	}
	if w.cur.rows > 0 {
		if err := w.flushBlock(); err != nil {
			return err
		}
	}
	if err := w.writeBatch(); err != nil {
		return err
	}
	return w.drain(0)
}

func (w *Writer) flushBlock() error {
	j := w.cur
	j.kind = KindTick
	prefix := appendBlockPrefix(w.scratch[:0], j.start, j.end, j.rows)
	w.scratch = prefix
	at := j.at + blockPrefixMax - len(prefix)
	copy(j.buf[at:], prefix)
	probe := false
	if w.o.level == CompressionAuto {
		probe = w.tickChunks%autoProbeEvery == 0
		w.tickChunks++
	}
	if w.o.concurrency <= 1 {
		// Batched in j.buf, then compressed and written in order: the
		// next batch reuses j's buffers (in a fresh process, new buffers
		// are new pages to fault in).
		w.batch[w.nbatch] = batchedChunk{from: at, to: len(j.buf), start: j.start, end: j.end, probe: probe}
		w.nbatch++
		if w.nbatch >= w.batchMax() || len(j.buf) >= writeBatchBytes {
			return w.writeBatch()
		}
		if cap(j.buf)-len(j.buf) < blockPrefixMax {
			w.grow(blockPrefixMax)
		}
		j.at, j.rows = len(j.buf), 0
		j.buf = j.buf[:j.at+blockPrefixMax]
		return nil
	}
	j.payload = j.buf[at:]
	j.probe, j.alt = probe, w.useAlt
	w.cur = w.newJob()
	return w.submit(j)
}

// batchMax is the number of chunks a batch holds: WithChunkBatch's, at
// most checksum.Lanes (hashed together).
func (w *Writer) batchMax() int { return min(w.o.batch, checksum.Lanes) }

// writeBatch computes the checksums of the batched chunks in one pass,
// then compresses and writes each in order (a CompressionAuto probe
// choosing the level of the chunks after it, as without batching), and
// empties the batch and w.cur.
func (w *Writer) writeBatch() error {
	n := w.nbatch
	if n == 0 {
		return nil
	}
	j := w.cur
	for i, b := range w.batch[:n] {
		w.sumIn[i] = j.buf[b.from:b.to]
	}
	j.sum.Sums(w.sumIn[:n], w.sums[:n])
	var err error
	for i, b := range w.batch[:n] {
		if err != nil {
			break
		}
		j.payload, j.start, j.end = w.sumIn[i], b.start, b.end
		j.probe, j.alt, j.choseAlt = b.probe, w.useAlt, false
		j.summed, j.sum64 = true, w.sums[i]
		w.encode(j)
		if j.probe {
			w.useAlt = j.choseAlt
		}
		err = w.writeJob(j)
	}
	clear(w.sumIn[:n])
	w.nbatch = 0
	j.payload, j.summed, j.probe, j.alt = nil, false, false, false
	j.buf, j.at, j.rows = j.buf[:blockPrefixMax], 0, 0
	return err
}

// submit compresses j (in a goroutine when concurrency allows) and writes
// finished chunks in order. The chunks after a CompressionAuto probe wait
// for its choice: with goroutines, the probe is written before the next
// chunk is submitted.
func (w *Writer) submit(j *job) error {
	if err := w.drain(w.o.concurrency - 1); err != nil {
		return err
	}
	w.pending = append(w.pending, j)
	go func() {
		w.encode(j)
		j.done <- struct{}{}
	}()
	if j.probe {
		return w.drain(0)
	}
	return nil
}

// drain writes pending chunks until at most keep remain in flight.
func (w *Writer) drain(keep int) error {
	for len(w.pending) > keep {
		j := w.pending[0]
		<-j.done
		if j.probe {
			w.useAlt = j.choseAlt
		}
		w.pending = w.pending[1:]
		err := w.writeJob(j)
		w.free = append(w.free, j)
		if err != nil {
			return err
		}
	}
	return nil
}

// encode fills j.out with the chunk header and stored bytes.
func (w *Writer) encode(j *job) {
	h := ChunkHeader{Kind: j.kind, StartTick: -1, EndTick: -1, UncompressedLen: uint32(len(j.payload))}
	if j.kind == KindTick {
		h.StartTick, h.EndTick = int32(j.start), int32(j.end)
	}
	if j.summed {
		h.Checksum = j.sum64
	} else {
		h.Checksum = j.sum.Sum(j.payload)
	}
	out := j.out[:0]
	if w.o.raw {
		h.Flags = FlagMsgpack
		h.CompressedLen = h.UncompressedLen
		out = AppendChunkHeader(out, h)
	} else {
		h.Flags = DefaultFlags
		if need := ChunkHeaderSize + len(j.payload)/4; cap(out) < need {
			// Room for a chunk that compresses 4:1 (two at a probe, or
			// 8:1), kept for the next chunk: growing by append from
			// nothing copied each step into new memory. Not more: Go
			// clears a large allocation whole, and every page it touches
			// is a page fault in a fresh process.
			out = make([]byte, 0, need)
		}
		out = AppendChunkHeader(out, h)
		out = w.encoder(j.alt, len(j.payload)).EncodeAll(j.payload, out)
		if j.probe {
			out = w.probe(j, out)
		}
		h.CompressedLen = uint32(len(out) - ChunkHeaderSize)
		binary.LittleEndian.PutUint32(out[16:], h.CompressedLen)
	}
	j.hdr, j.out = h, out
}

// encoder returns the encoder for a payload of n bytes at the writer's
// level, or at CompressionAuto's alternative.
func (w *Writer) encoder(alt bool, n int) *zstd.Encoder {
	i := 0
	if alt {
		i = 1
	}
	return w.encs[i][encKind(n)]
}

// probe compresses j's payload again, after out, at the level out was not
// compressed at, sets j.choseAlt (see autoAltPermille) and returns out
// holding the smaller of the two.
func (w *Writer) probe(j *job, out []byte) []byte {
	at := len(out)
	out = w.encoder(!j.alt, len(j.payload)).EncodeAll(j.payload, out)
	n, m := at-ChunkHeaderSize, len(out)-at // j.alt's size, the other's
	fast, def := n, m
	if j.alt {
		fast, def = m, n
	}
	j.choseAlt = def*1000 <= fast*autoAltPermille
	if m < n {
		copy(out[ChunkHeaderSize:], out[at:])
		return out[:ChunkHeaderSize+m]
	}
	return out[:at]
}

func (w *Writer) writeJob(j *job) error {
	if w.err != nil {
		return w.err
	}
	if err := w.start(); err != nil {
		return err
	}
	off := w.off
	if err := w.write(j.out); err != nil {
		return err
	}
	if w.o.raw {
		if err := w.write(j.payload); err != nil {
			return err
		}
	}
	if j.kind == KindTick {
		w.footer.Blocks = append(w.footer.Blocks, BlockIndexEntry{
			StartTick: j.start, EndTick: j.end, FileOffset: off,
			CompressedLen: int64(j.hdr.CompressedLen), UncompressedLen: int64(j.hdr.UncompressedLen),
			Checksum: j.hdr.Checksum,
		})
	}
	return nil
}

// start writes the file header and META chunk before the first chunk.
func (w *Writer) start() error {
	if w.started {
		return nil
	}
	w.started = true
	head := make([]byte, 0, HeaderSize)
	head = append(head, Magic...)
	head = binary.LittleEndian.AppendUint32(head, FormatVersion)
	if err := w.write(head); err != nil {
		return err
	}
	j := w.newJob()
	j.kind, j.payload = KindMeta, w.meta
	w.encode(j)
	err := w.write(j.out)
	if err == nil && w.o.raw {
		err = w.write(j.payload)
	}
	w.free = append(w.free, j)
	return err
}

func (w *Writer) write(p []byte) error {
	n, err := w.w.Write(p)
	w.off += int64(n)
	if err == nil && n != len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = err
	}
	return err
}

// Close writes the remaining rows, the footer and the trailer. It fails with
// ErrNoTicks, writing nothing, when no row was added. For Create it then
// syncs, closes and renames the file (removing it on failure).
func (w *Writer) Close() error {
	if w.closed {
		return ErrClosed
	}
	err := w.finish()
	w.closed = true
	for _, j := range w.pending {
		<-j.done
		w.free = append(w.free, j)
	}
	w.pending = nil
	w.giveEncoders()
	w.releaseJobs()
	if w.file != nil {
		if err == nil {
			err = w.file.Sync()
		}
		if cerr := w.file.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(w.tmpName, w.finalName)
		}
		if err != nil {
			os.Remove(w.tmpName)
		}
	}
	return err
}

func (w *Writer) finish() error {
	if w.err != nil {
		return w.err
	}
	if !w.any {
		w.err = ErrNoTicks
		return w.err
	}
	if w.cur.rows > 0 {
		if err := w.flushBlock(); err != nil {
			return err
		}
	}
	if err := w.writeBatch(); err != nil {
		return err
	}
	if err := w.drain(0); err != nil {
		return err
	}
	names := slices.Clone(w.o.channels)
	slices.Sort(names)
	w.footer.ChannelCounts = w.footer.ChannelCounts[:0]
	for _, ch := range names {
		w.footer.ChannelCounts = append(w.footer.ChannelCounts, ChannelCount{ch, w.footer.TickCount})
	}
	j := w.newJob()
	j.kind = KindFooter
	j.payload = appendFooter(j.buf[:0], &w.footer)
	j.buf = j.payload
	w.encode(j)
	footerOff := w.off
	err := w.writeJob(j)
	w.free = append(w.free, j)
	if err != nil {
		return err
	}
	tr := make([]byte, 0, TrailerSize)
	tr = append(tr, TrailerMagic...)
	tr = binary.LittleEndian.AppendUint64(tr, uint64(footerOff))
	return w.write(tr)
}

// Footer returns the footer written by Close (or accumulated so far).
func (w *Writer) Footer() *Footer { return &w.footer }
