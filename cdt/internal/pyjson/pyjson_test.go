package pyjson

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

func nils(n int) []byte {
	return append(msgp.AppendArrayHeader(nil, uint32(n)), bytes.Repeat([]byte{0xc0}, n)...)
}

// Every element is charged before it is allocated: a value that needs more
// than its budget fails with ErrBudget having allocated about the budget.
func TestFromMsgpackBudget(t *testing.T) {
	v, rest, err := FromMsgpack(nils(1000))
	if err != nil || len(rest) != 0 || len(v.Items) != 1000 {
		t.Fatalf("1000 nils: %v", err)
	}
	// 1 Mi nils (150 MiB of Values) against a 4 MiB budget; wrapped in a
	// list of one so that the wide array is not the first allocation.
	big := append(msgp.AppendArrayHeader(nil, 1), nils(1<<20)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, _, err := FromMsgpack(big); !errors.Is(err, ErrBudget) {
		t.Fatalf("1 Mi nils: %v", err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("a value over budget allocated %d bytes", n)
	}
	// A budget shared by several values runs out for all that follow.
	budget := int64(100 * valueSize)
	if _, _, err := FromMsgpackBudget(nils(60), &budget); err != nil {
		t.Fatal(err)
	}
	if _, _, err := FromMsgpackBudget(nils(60), &budget); !errors.Is(err, ErrBudget) {
		t.Fatalf("second value: %v", err)
	}
	if _, _, err := FromMsgpackBudget(nils(0), &budget); !errors.Is(err, ErrBudget) {
		t.Fatalf("after exhaustion: %v", err)
	}
	// Strings and map keys are charged by their length.
	s := msgp.AppendString(nil, string(bytes.Repeat([]byte{'x'}, 4096)))
	budget = 4096
	if _, _, err := FromMsgpackBudget(s, &budget); !errors.Is(err, ErrBudget) {
		t.Fatalf("string over budget: %v", err)
	}
	m := msgp.AppendMapHeader(nil, 1)
	m = msgp.AppendString(m, string(bytes.Repeat([]byte{'k'}, 4096)))
	m = append(m, 0xc0)
	budget = 2*valueSize + 16 + 4000
	if _, _, err := FromMsgpackBudget(m, &budget); !errors.Is(err, ErrBudget) {
		t.Fatalf("key over budget: %v", err)
	}
	if Budget(0) != 256<<10 || Budget(1<<30) != MaxBudget {
		t.Fatal("Budget bounds")
	}
}
