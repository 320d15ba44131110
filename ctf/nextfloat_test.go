package ctf

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nxFloatsTSDL returns a trace with LTTng's compact header whose classes
// hold floating-point numbers of 32 and 64 bits (aligned to 8, 32 or 64
// bits) and big-endian integers of 8 to 64 bits (and 64-bit numbers),
// among little-endian integers, after strings and sequences and inside
// structures; and three classes the templates leave to the decoding
// program: a big-endian 32-bit floating-point number, a big-endian
// bit field, a 32-bit floating-point number aligned to a bit inside a
// byte.
func nxFloatsTSDL(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 23))
	var b strings.Builder
	b.WriteString(nxShapesTSDL(0, 0, false)) // (LTTng's compact header, a _vtid context, no class)
	member := func(m int) string {
		switch k := r.IntN(9); k {
		case 0, 1:
			return fmt.Sprintf("floating_point { exp_dig = 8; mant_dig = 24; align = %d; } f%d;", []int{8, 32}[r.IntN(2)], m)
		case 2, 3:
			return fmt.Sprintf("floating_point { exp_dig = 11; mant_dig = 53; align = %d;%s } d%d;", []int{8, 64}[r.IntN(2)], []string{"", " byte_order = be;"}[r.IntN(2)], m)
		case 4, 5:
			return fmt.Sprintf("integer { size = %d; align = %d; signed = %v; byte_order = be; } b%d;", []int{8, 16, 32, 64}[r.IntN(4)], []int{8, 16, 32}[r.IntN(3)], r.IntN(2) == 0, m)
		case 6:
			return fmt.Sprintf("integer { size = %d; align = 8; signed = %v; } i%d;", 1+r.IntN(64), r.IntN(2) == 0, m)
		case 7:
			return fmt.Sprintf("string s%d;", m)
		default:
			return fmt.Sprintf("uint8_t n%d; integer { size = 16; align = 8; signed = true; } q%d[n%d];", m, m, m)
		}
	}
	for c := 0; c < 12; c++ {
		id := c
		if c == 11 {
			id = 31 // the extended header
		}
		fmt.Fprintf(&b, "event { name = \"float_%d\"; id = %d; fields := struct {\n", c, id)
		for m := 0; m < 2+r.IntN(7); m++ {
			if r.IntN(5) == 0 {
				fmt.Fprintf(&b, "\tstruct { %s %s } st%d;\n", member(100+m), member(200+m), m)
				continue
			}
			fmt.Fprintf(&b, "\t%s\n", member(m))
		}
		b.WriteString("}; };\n")
	}
	b.WriteString(`event { name = "be_float32"; id = 12; fields := struct { floating_point { exp_dig = 8; mant_dig = 24; align = 32; byte_order = be; } f; }; };
event { name = "be_bits"; id = 13; fields := struct { integer { size = 3; align = 1; signed = false; byte_order = be; } x; integer { size = 5; align = 1; signed = false; byte_order = be; } y; }; };
event { name = "float_bits"; id = 14; fields := struct { integer { size = 3; align = 1; signed = false; } x; floating_point { exp_dig = 8; mant_dig = 24; align = 1; } f; }; };
`)
	return b.String()
}

// Next's fast path reads floating-point numbers (32 and 64 bits, aligned
// to bytes) and big-endian integers (8 to 64 bits, aligned to bytes) as
// the field walk does, intact, cut and damaged: the classes that hold
// them have templates (LTTng-UST's hello test's tptest has both), and
// most of their records come from the fast path; the three others the
// templates leave to the decoding program have none.
func TestNextFastFloatsBigEndian(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	all := &nextFastStats{classes: map[*EventClass]bool{}}
	var f32, be, f64 int // the templates' values of each kind
	for seed := uint64(0); seed < 8; seed++ {
		tr := traceFromTSDL(t, nxFloatsTSDL(seed))
		for _, ec := range tr.dscs[0].events {
			switch ec.Name {
			case "be_float32", "be_bits", "float_bits":
				if len(ec.nx) > 0 {
					t.Fatalf("seed %d: %s has a template", seed, ec.Name)
				}
				continue
			}
			if len(ec.nx) == 0 {
				t.Fatalf("seed %d: %s has no template", seed, ec.Name)
			}
			for _, g := range ec.nx[0].segs {
				for _, v := range g.vals {
					switch {
					case v.kind == valF32:
						f32++
					case v.kind == valBE:
						be++
					case v.mask == ^uint64(0) && v.sgn == 0:
						f64++ // (and 64-bit unsigned integers)
					}
				}
			}
		}
		data := everyStream(tr, seed, 1500, 0)
		compareNextFast(t, tr, fmt.Sprintf("floats-%d", seed), data, all)
		for k := 0; k < 12; k++ {
			compareNextFast(t, tr, fmt.Sprintf("floats-%d-damaged", seed), damaged(r, data, k), &nextFastStats{classes: map[*EventClass]bool{}})
		}
	}
	t.Logf("%d events, %d classes with a template, %d from the fast path; values: %d 32-bit floating-point, %d big-endian, %d of 64 bits", all.events, len(all.classes), all.fast, f32, be, f64)
	if f32 < 20 || be < 20 || f64 < 20 {
		t.Fatalf("values: %d 32-bit floating-point, %d big-endian, %d of 64 bits: each is to be compared", f32, be, f64)
	}
	if all.fast < all.templated*9/10 || len(all.classes) < 8*12 {
		t.Fatalf("%d of %d records of templated classes from the fast path, %d classes with a template", all.fast, all.templated, len(all.classes))
	}
}

// On Trace Compass's real traces (CTF_TC_TRACES: LTTng kernel and UST,
// ROS 2, Score-P, DPDK and others, 4.9 M records) Next's fast path builds
// exactly what the field walk builds, and takes most records: among them
// LTTng-UST's hello test (hello-lost: 32-bit and 64-bit floating-point
// numbers and big-endian integers in its one class), which it took none
// of before floating-point numbers and big-endian integers had templates.
func TestNextFastTraceCompass(t *testing.T) {
	root := os.Getenv("CTF_TC_TRACES")
	if root == "" {
		t.Skip("CTF_TC_TRACES not set")
	}
	all := &nextFastStats{classes: map[*EventClass]bool{}}
	var hello *nextFastStats
	eachStreamFile(t, traceDirs(root), func(dir string, tr *Trace, name string, b []byte) {
		st := all
		if filepath.Base(dir) == "hello-lost" {
			if hello == nil {
				hello = &nextFastStats{classes: map[*EventClass]bool{}}
			}
			st = hello
		}
		compareNextFast(t, tr, dir+"/"+name, b, st)
	})
	if hello == nil {
		t.Fatal("no hello-lost trace in CTF_TC_TRACES")
	}
	t.Logf("%d records, %d from the fast path; hello-lost: %d, %d", all.events+hello.events, all.fast+hello.fast, hello.events, hello.fast)
	if hello.fast < hello.events*9/10 || all.fast < all.events*9/10 {
		t.Fatalf("fast path: %d of %d records, of hello-lost %d of %d", all.fast, all.events, hello.fast, hello.events)
	}
}
