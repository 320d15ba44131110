package dial9

// poolTable holds one pool of the current stream: id → content. Ids are
// usually dense from 0, so most live in a slice (24 bytes per id); ids far
// beyond it (a writer's explicit ids, or a hostile input's) go to a map. A
// nil content is an undefined id; a defined empty content is a non-nil
// empty slice.
type poolTable struct {
	dense  [][]byte
	n      int // defined ids in dense
	sparse map[uint32][]byte
}

// Approximate Go memory charged to the reader's budget.
const (
	sliceSlotBytes  = 24  // one [][]byte slot
	sparseSlotBytes = 192 // one map[uint32][]byte entry, growth included (measured ≈170)
	schemaBytes     = 192 // Schema + typeInfo + table slots, besides fields and names
	fieldBytes      = 32  // FieldDef + its FieldType
	annotationBytes = 96  // Annotation in a schema and in the frame's entries, growth included
)

// emptyContent is the stored form of a defined empty string or stack.
var emptyContent = []byte{}

func (t *poolTable) get(id uint32) ([]byte, bool) {
	if int64(id) < int64(len(t.dense)) {
		b := t.dense[id]
		return b, b != nil
	}
	b, ok := t.sparse[id]
	return b, ok
}

// fitsDense reports whether an id past the dense slice extends it: only
// while the slice stays at most twice as long as the ids it holds (plus
// 64), so that undefined slots cost at most what defined ones do.
func (t *poolTable) fitsDense(id uint32) bool {
	return int64(id) < 2*int64(t.n+1)+64
}

// cost is the memory set(id, …) may allocate (charged before it does).
func (t *poolTable) cost(id uint32) int64 {
	switch {
	case int64(id) < int64(len(t.dense)):
		return 0
	case t.fitsDense(id):
		if int64(id) < int64(cap(t.dense)) {
			return 0
		}
		return sliceSlotBytes * t.grownCap(id)
	}
	if _, ok := t.sparse[id]; ok {
		return 0
	}
	return sparseSlotBytes
}

// grownCap is the dense slice's capacity after growing to hold id.
func (t *poolTable) grownCap(id uint32) int64 {
	return max(2*int64(cap(t.dense)), int64(id)+1, 256)
}

func (t *poolTable) set(id uint32, b []byte) {
	if b == nil {
		b = emptyContent
	}
	switch {
	case int64(id) < int64(len(t.dense)):
		if t.dense[id] == nil {
			t.n++
		}
		t.dense[id] = b
	case t.fitsDense(id):
		if int64(id) >= int64(cap(t.dense)) {
			nd := make([][]byte, len(t.dense), t.grownCap(id))
			copy(nd, t.dense)
			t.dense = nd
		}
		t.dense = t.dense[:id+1]
		t.dense[id] = b
		t.n++
	default:
		if t.sparse == nil {
			t.sparse = map[uint32][]byte{}
		}
		t.sparse[id] = b
	}
}

// each calls fn for every defined id, in no particular order.
func (t *poolTable) each(fn func(id uint32, b []byte)) {
	for id, b := range t.dense {
		if b != nil {
			fn(uint32(id), b)
		}
	}
	for id, b := range t.sparse {
		fn(id, b)
	}
}

func (t *poolTable) len() int { return t.n + len(t.sparse) }

// reset empties the table for a new stream, keeping the dense slice's
// capacity; the contents it pointed to become garbage.
func (t *poolTable) reset() {
	clear(t.dense)
	t.dense = t.dense[:0]
	t.n = 0
	clear(t.sparse)
}

// inputSize is the size of the input the memory budget is proportional
// to: the caller's bytes (the compressed bytes for gzip), as far as read.
func (d *Reader) inputSize() int64 {
	switch {
	case d.zin != nil:
		return d.zin.N
	case d.owned:
		return d.base + int64(len(d.buf))
	}
	return int64(len(d.buf))
}

// budget is the memory the reader may allocate for what it retains.
func (d *Reader) budget() int64 {
	if d.lim.MaxMemory > 0 {
		return d.lim.MaxMemory
	}
	return memoryPerInputByte*d.inputSize() + memoryBase
}

const (
	memoryPerInputByte = 64
	memoryBase         = 15 << 20 // 1 MiB of the stated 16 is left for what is not charged (gzip state, the first buffer)
)

// charge counts n bytes the reader is about to allocate (pool contents
// copied from a stream, table and map growth, schemas, buffers) against its
// budget. The count only grows: it bounds everything the reader allocates
// for its state, garbage included, so the heap it causes stays within the
// budget too. at is the offset reported if the budget is exceeded.
func (d *Reader) charge(n int64, at int) error {
	if d.alloc+n > d.budget() {
		if d.lim.MaxMemory > 0 {
			return newErr(d.abs(at), ErrLimit, "decoding needs more than Limits.MaxMemory = %d bytes of memory (%d allocated, %d more asked)", d.lim.MaxMemory, d.alloc, n)
		}
		return newErr(d.abs(at), ErrLimit, "decoding needs more memory than the budget of %d bytes (64 × %d input bytes + 16 MiB; %d allocated, %d more asked; see Limits.MaxMemory)", d.budget(), d.inputSize(), d.alloc, n)
	}
	d.alloc += n
	return nil
}
