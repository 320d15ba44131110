package dial9

// Limits bounds what a Reader accepts. A zero field means the default named
// in its comment. Every count and length is checked against its limit and
// against the bytes the input still holds before anything is allocated.
type Limits struct {
	MaxStringLen   int64 // String, Bytes, StringMap key/value, pool string: default 64 MiB
	MaxStackFrames int64 // addresses in one StackFrames value or stack-pool entry: default 1 Mi
	MaxMapEntries  int64 // StringMap pairs, DynamicList/DynamicMap elements: default 1 Mi
	MaxPoolEntries int64 // entries in one pool or annotations frame: default 16 Mi
	MaxDepth       int   // nesting of DynamicList/DynamicMap: default 32
	MaxFrameSize   int64 // largest frame a streaming Reader buffers: default 256 MiB
	MaxPoolBytes   int64 // pool bytes a streaming Reader copies per stream: default 1 GiB

	// MaxDecompressionRatio bounds a gzip input: more than this many
	// decompressed bytes per compressed byte read (plus 1 MiB) is ErrLimit.
	// Default 100.
	MaxDecompressionRatio int
	// MaxMemory, when set, is a fixed cap on the memory a Reader allocates
	// for what it keeps (pools, schemas, buffers), replacing the default
	// budget of 64 bytes per input byte read plus 16 MiB (the input being
	// the compressed bytes of a gzip stream). Exceeding it is ErrLimit.
	MaxMemory int64
}

// DefaultLimits returns the defaults.
func DefaultLimits() Limits {
	return Limits{
		MaxStringLen:   64 << 20,
		MaxStackFrames: 1 << 20,
		MaxMapEntries:  1 << 20,
		MaxPoolEntries: 16 << 20,
		MaxDepth:       32,
		MaxFrameSize:   256 << 20,
		MaxPoolBytes:   1 << 30,

		MaxDecompressionRatio: 100,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxStringLen <= 0 {
		l.MaxStringLen = d.MaxStringLen
	}
	if l.MaxStackFrames <= 0 {
		l.MaxStackFrames = d.MaxStackFrames
	}
	if l.MaxMapEntries <= 0 {
		l.MaxMapEntries = d.MaxMapEntries
	}
	if l.MaxPoolEntries <= 0 {
		l.MaxPoolEntries = d.MaxPoolEntries
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxFrameSize <= 0 {
		l.MaxFrameSize = d.MaxFrameSize
	}
	if l.MaxPoolBytes <= 0 {
		l.MaxPoolBytes = d.MaxPoolBytes
	}
	if l.MaxDecompressionRatio <= 0 {
		l.MaxDecompressionRatio = d.MaxDecompressionRatio
	}
	return l
}
