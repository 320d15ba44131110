// Package fuzz holds the robustness helpers every format package's tests use:
// a truncation sweep (decode every prefix of an input), a corruption sweep (flip
// each byte, plus seeded random multi-byte edits) and corpus seeding of a
// testing.F from the reference vectors.
//
// Each case runs with a time bound and an allocation bound: it fails the test if
// the decoder panics, does not return within Options.Timeout, or allocates more
// than AllocFactor×len(input) + AllocConst bytes. The decoder's result is not
// judged: a clean error and a valid decode are both fine.
//
// Allocation is measured with runtime/metrics (the heap's cumulative allocated
// bytes, read without stopping the world as runtime.ReadMemStats does: that
// cost a fuzz execution of a small input several times its decode) around
// each case, so sweeps
// must not run in parallel with other allocating tests of the same binary (do not
// call t.Parallel in a test that sweeps).
package fuzz

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"testing"
	"time"
)

// Decoder decodes one whole input; it must not keep data after returning.
type Decoder func(data []byte) error

// Options bounds each case of a sweep. Zero fields take the defaults.
type Options struct {
	Timeout     time.Duration // per case; default 5s
	AllocFactor int64         // default 64 (bytes allocated per input byte)
	AllocConst  int64         // default 16 MiB
	MaxCases    int           // per sweep kind; default 2048 (larger inputs are sampled)
	RandomEdits int           // random multi-byte edits in a corruption sweep; default 64
	Seed        uint64        // seed for the random edits; default 1
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.AllocFactor <= 0 {
		o.AllocFactor = 64
	}
	if o.AllocConst <= 0 {
		o.AllocConst = 16 << 20
	}
	if o.MaxCases <= 0 {
		o.MaxCases = 2048
	}
	if o.RandomEdits <= 0 {
		o.RandomEdits = 64
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

func pickOptions(opts []Options) Options {
	if len(opts) > 0 {
		return opts[0].withDefaults()
	}
	return Options{}.withDefaults()
}

// Truncations decodes data[:n] for every n in [0, len(data)) (sampled evenly,
// always including the shortest and longest prefixes, when there are more than
// MaxCases).
func Truncations(t testing.TB, data []byte, decode Decoder, opts ...Options) {
	t.Helper()
	o := pickOptions(opts)
	r := newRunner(t, o)
	r.start(decode)
	defer r.stop()
	for _, n := range positions(len(data), o.MaxCases) {
		if !r.run(data[:n:n], fmt.Sprintf("prefix of %d/%d bytes", n, len(data))) {
			return
		}
	}
}

// Corruptions decodes data with each byte inverted in turn (sampled when there
// are more than MaxCases positions), then with RandomEdits seeded edits of 2 to
// 8 bytes each.
func Corruptions(t testing.TB, data []byte, decode Decoder, opts ...Options) {
	t.Helper()
	o := pickOptions(opts)
	r := newRunner(t, o)
	r.start(decode)
	defer r.stop()
	buf := make([]byte, len(data))
	for _, i := range positions(len(data), o.MaxCases) {
		copy(buf, data)
		buf[i] ^= 0xFF
		if !r.run(buf, fmt.Sprintf("byte %d inverted (%#02x -> %#02x)", i, data[i], buf[i])) {
			return
		}
	}
	if len(data) == 0 {
		return
	}
	rng := rand.New(rand.NewPCG(o.Seed, uint64(len(data))))
	for e := 0; e < o.RandomEdits; e++ {
		copy(buf, data)
		k := 2 + rng.IntN(7)
		var at []int
		for range k {
			i := rng.IntN(len(buf))
			buf[i] = byte(rng.Uint32())
			at = append(at, i)
		}
		if !r.run(buf, fmt.Sprintf("random edit %d (seed %d) at offsets %v", e, o.Seed, at)) {
			return
		}
	}
}

// Sweep runs both Truncations and Corruptions.
func Sweep(t testing.TB, data []byte, decode Decoder, opts ...Options) {
	t.Helper()
	Truncations(t, data, decode, opts...)
	Corruptions(t, data, decode, opts...)
}

// Check runs decode once on data under the same bounds as a sweep.
func Check(t testing.TB, data []byte, decode Decoder, opts ...Options) {
	t.Helper()
	r := newRunner(t, pickOptions(opts))
	r.start(decode)
	defer r.stop()
	r.run(data, "input")
}

// positions returns the indexes in [0,n) to try: all of them, or at most max,
// the first half of the budget dense at the start (headers live there) and the
// rest spread evenly, always including n-1.
func positions(n, max int) []int {
	if n <= max {
		p := make([]int, n)
		for i := range p {
			p[i] = i
		}
		return p
	}
	set := make(map[int]struct{}, max)
	dense := max / 2
	for i := 0; i < dense; i++ {
		set[i] = struct{}{}
	}
	rest := max - dense
	for k := 0; k < rest; k++ {
		set[dense+int(int64(n-1-dense)*int64(k+1)/int64(rest))] = struct{}{}
	}
	p := make([]int, 0, len(set))
	for i := range set {
		p = append(p, i)
	}
	sort.Ints(p)
	return p
}

type result struct {
	alloc int64
	panic any
	stack []byte
}

type runner struct {
	t      testing.TB
	o      Options
	decode Decoder
	in     chan []byte
	out    chan result
}

func newRunner(t testing.TB, o Options) *runner { return &runner{t: t, o: o} }

func (r *runner) start(decode Decoder) {
	r.decode = decode
	r.in = make(chan []byte)
	r.out = make(chan result)
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
		allocated := func() uint64 {
			metrics.Read(sample)
			return sample[0].Value.Uint64()
		}
		for data := range r.in {
			res := result{}
			func() {
				defer func() {
					if p := recover(); p != nil {
						res.panic = p
						res.stack = debug.Stack()
					}
				}()
				before := allocated()
				_ = r.decode(data)
				res.alloc = int64(allocated() - before)
			}()
			r.out <- res
		}
	}()
}

func (r *runner) stop() {
	if r.in != nil {
		close(r.in)
	}
}

// run executes one case and reports whether the sweep may go on.
func (r *runner) run(data []byte, what string) bool {
	r.t.Helper()
	if r.in == nil {
		panic("fuzz: runner not started")
	}
	timer := time.NewTimer(r.o.Timeout)
	defer timer.Stop()
	select {
	case r.in <- data:
	case <-timer.C:
		r.t.Fatalf("%s: decoder still busy with the previous case after %v", what, r.o.Timeout)
		return false
	}
	select {
	case res := <-r.out:
		if res.panic != nil {
			r.t.Fatalf("%s: decoder panicked: %v\n%s\ninput (first 64 bytes): %x", what, res.panic, res.stack, head(data))
			return false
		}
		if bound := r.o.AllocFactor*int64(len(data)) + r.o.AllocConst; res.alloc > bound {
			r.t.Fatalf("%s: decoder allocated %d bytes for a %d-byte input (bound %d)", what, res.alloc, len(data), bound)
			return false
		}
		return true
	case <-timer.C:
		r.in = nil // the worker is stuck; abandon it
		r.t.Fatalf("%s: decoder did not return within %v (hang?); input (first 64 bytes): %x", what, r.o.Timeout, head(data))
		return false
	}
}

func head(b []byte) []byte { return b[:min(len(b), 64)] }

// MaxSeed is the largest seed SeedFiles adds (64 KiB): every execution of
// a fuzz target mutates and runs a whole input, so a large seed makes each
// one slow and the fuzzer explores little in its time.
const MaxSeed = 64 << 10

// Fuzzing reports whether go test runs f's target under the fuzzer (its
// -fuzz pattern matches the target's name), not only its seed corpus.
func Fuzzing(f *testing.F) bool {
	fl := flag.Lookup("test.fuzz")
	if fl == nil || fl.Value.String() == "" {
		return false
	}
	ok, err := regexp.MatchString(fl.Value.String(), f.Name())
	return err == nil && ok
}

// NeedSeeds fails f when the fuzzer runs it with no seed from the reference
// vectors (n is how many were added; why, when not empty, says why there are
// none). A target seeded from the vectors explores almost nothing without
// them, and a fuzz run that passes anyway says nothing; as a plain test
// (seed corpus only) the target still runs and passes.
func NeedSeeds(f *testing.F, n int, why string) {
	f.Helper()
	if n > 0 || !Fuzzing(f) {
		return
	}
	if why == "" {
		why = "no vector file fit"
	}
	f.Fatalf("fuzzing %s without its reference-vector seeds: %s (check out shared/vectors beside the module or set TRACECODEC_VECTORS)", f.Name(), why)
}

// SeedFiles adds the contents of each file to f's corpus. Missing files are
// skipped, and so are files larger than MaxSeed (seeds should be small).
func SeedFiles(f *testing.F, paths ...string) {
	f.Helper()
	seedFiles(f, paths)
}

// seedFiles is SeedFiles returning how many files it added.
func seedFiles(f *testing.F, paths []string) int {
	n := 0
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Size() > MaxSeed {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f.Add(b)
		n++
	}
	return n
}

// SeedDir adds every regular file under dir for which keep returns true (keep may
// be nil to take every file) to f's corpus, as SeedFiles does, and fails f
// under the fuzzer when it added none (NeedSeeds). A missing dir adds nothing.
func SeedDir(f *testing.F, dir string, keep func(path string) bool) {
	f.Helper()
	var paths []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && (keep == nil || keep(p)) {
			paths = append(paths, p)
		}
		return nil
	})
	NeedSeeds(f, seedFiles(f, paths), "no seed file of at most MaxSeed bytes under "+dir)
}
