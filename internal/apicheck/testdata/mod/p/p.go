// Package p is a fixture for apicheck.
package p

// T is documented.
type T struct{}

// Documented is documented.
func Documented() {}

func Bare() {}

func (T) Method() {}

func (t *unexported) Method() {}

var Loose = 1

// Group is documented as a group.
const (
	A = 1
	B = 2
)

type unexported struct{}
