package wtfcff

import (
	"strings"
)

// ArgType is the wire type of one event argument (wtf.trace.EventTypeBuilder).
type ArgType uint8

// Argument types. Scalars take one 4-byte slot (the value in the low bytes);
// arrays take a u32 count slot (0xFFFFFFFF = null) then the packed elements,
// padded to 4 bytes.
const (
	ArgUnsupported ArgType = iota // parsed but without a wire encoding
	ArgBool
	ArgInt8
	ArgUint8
	ArgInt16
	ArgUint16
	ArgInt32
	ArgUint32
	ArgFloat32
	ArgASCII // string-table ordinal
	ArgUTF8  // string-table ordinal
	ArgChar  // one Latin-1 character
	ArgWChar // one UTF-16 code unit
	ArgAny   // string-table ordinal of JSON text
	ArgFlowID
	ArgTime32 // µs (the JS API takes ms)
	ArgInt8Array
	ArgUint8Array
	ArgInt16Array
	ArgUint16Array
	ArgInt32Array
	ArgUint32Array
	ArgFloat32Array
	ArgCharArray  // Latin-1 bytes
	ArgWCharArray // UTF-16 code units
)

var argTypeNames = [...]string{
	ArgUnsupported: "", ArgBool: "bool", ArgInt8: "int8", ArgUint8: "uint8", ArgInt16: "int16",
	ArgUint16: "uint16", ArgInt32: "int32", ArgUint32: "uint32", ArgFloat32: "float32",
	ArgASCII: "ascii", ArgUTF8: "utf8", ArgChar: "char", ArgWChar: "wchar", ArgAny: "any",
	ArgFlowID: "flowId", ArgTime32: "time32", ArgInt8Array: "int8[]", ArgUint8Array: "uint8[]",
	ArgInt16Array: "int16[]", ArgUint16Array: "uint16[]", ArgInt32Array: "int32[]",
	ArgUint32Array: "uint32[]", ArgFloat32Array: "float32[]", ArgCharArray: "char[]", ArgWCharArray: "wchar[]",
}

// String returns the canonical signature name of the type ("uint8[]", …).
func (t ArgType) String() string {
	if int(t) < len(argTypeNames) && t != ArgUnsupported {
		return argTypeNames[t]
	}
	return "unsupported"
}

// IsArray reports whether the type is one of the array types.
func (t ArgType) IsArray() bool { return t >= ArgInt8Array && t <= ArgWCharArray }

// IsString reports whether the type is a string-table reference.
func (t ArgType) IsString() bool {
	return t < 64 && (1<<ArgASCII|1<<ArgUTF8|1<<ArgAny)>>t&1 != 0
}

// elemSize is the byte size of one element of an array type.
func (t ArgType) elemSize() int {
	switch t {
	case ArgInt8Array, ArgUint8Array, ArgCharArray:
		return 1
	case ArgInt16Array, ArgUint16Array, ArgWCharArray:
		return 2
	case ArgInt32Array, ArgUint32Array, ArgFloat32Array:
		return 4
	}
	return 0
}

// typeAliases maps the signature parser's aliases (WebIDL names) to the
// canonical names.
var typeAliases = map[string]string{
	"byte": "int8", "octet": "uint8", "short": "int16", "unsigned short": "uint16",
	"long": "int32", "unsigned long": "uint32", "float": "float32", "DOMString": "utf8",
}

func argTypeByName(name string) ArgType {
	for t, n := range argTypeNames {
		if n == name && t != int(ArgUnsupported) {
			return ArgType(t)
		}
	}
	return ArgUnsupported
}

// ArgDef is one argument of an event type.
type ArgDef struct {
	Name string
	Type ArgType
	// TypeName is the canonical type name as written in the definition
	// ("uint8[]"); for ArgUnsupported it is the name that was not understood.
	TypeName string
}

// ParseArgs parses an argument list such as "uint32 x, sequence<octet> data@2"
// into argument definitions, mapping aliases to canonical types. Unknown type
// names give ArgUnsupported (the event can be defined but not decoded). An
// empty list gives no arguments.
func ParseArgs(s string) ([]ArgDef, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var defs []ArgDef
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if at := strings.IndexByte(part, '@'); at >= 0 {
			if !allDigits(part[at+1:]) {
				return nil, errSignature("bad ordinal in argument " + part)
			}
			part = strings.TrimSpace(part[:at])
		}
		sp := strings.LastIndexByte(part, ' ')
		if sp <= 0 {
			return nil, errSignature("argument " + part + " needs a type and a name")
		}
		typ, name := strings.TrimSpace(part[:sp]), part[sp+1:]
		if !validArgName(name) || !validTypeName(typ) {
			return nil, errSignature("bad argument " + part)
		}
		canon := canonicalType(typ)
		defs = append(defs, ArgDef{Name: name, Type: argTypeByName(canon), TypeName: canon})
	}
	return defs, nil
}

func canonicalType(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	array := false
	if strings.HasPrefix(t, "sequence<") && strings.HasSuffix(t, ">") {
		t, array = strings.TrimSpace(t[len("sequence<"):len(t)-1]), true
	} else if strings.HasSuffix(t, "[]") {
		t, array = strings.TrimSpace(t[:len(t)-2]), true
	}
	if a, ok := typeAliases[t]; ok {
		t = a
	}
	if array {
		t += "[]"
	}
	return t
}

// ParseSignature parses a full event signature "name(type a, type b)" (the
// form given to wtf.trace.events.createInstance/createScope) into its name and
// arguments. A signature without parentheses is a name without arguments.
func ParseSignature(sig string) (name string, args []ArgDef, err error) {
	open := strings.IndexByte(sig, '(')
	if open < 0 {
		name = strings.TrimSpace(sig)
		if !validEventName(name) {
			return "", nil, errSignature("bad event name " + name)
		}
		return name, nil, nil
	}
	if !strings.HasSuffix(strings.TrimSpace(sig), ")") {
		return "", nil, errSignature("signature " + sig + " does not end with )")
	}
	name = strings.TrimSpace(sig[:open])
	if !validEventName(name) {
		return "", nil, errSignature("bad event name " + name)
	}
	inner := strings.TrimSpace(sig)
	args, err = ParseArgs(inner[open+1 : len(inner)-1])
	return name, args, err
}

// CanonicalArgs renders argument definitions the way the JS writer stores
// them in wtf.event#define: "type name" joined by ", ".
func CanonicalArgs(args []ArgDef) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.TypeName)
		b.WriteByte(' ')
		b.WriteString(a.Name)
	}
	return b.String()
}

type errSignature string

func (e errSignature) Error() string { return "wtfcff: signature: " + string(e) }

// Unwrap makes signature errors match ErrArgument.
func (e errSignature) Unwrap() error { return ErrArgument }

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func validArgName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}

func validTypeName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && !strings.ContainsRune(" []<>", rune(c)) {
			return false
		}
	}
	return true
}

func validEventName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && !strings.ContainsRune("_.#:$[]\"'-", rune(c)) {
			return false
		}
	}
	return true
}

// EventType is an event type as defined in the stream by wtf.event#define.
type EventType struct {
	// WireID is the wire id of the type's first definition.
	WireID uint16
	Class  uint16 // ClassInstance or ClassScope
	Flags  uint32
	Name   string
	// Signature is the argument list as stored in the define record ("" for
	// none).
	Signature string
	Args      []ArgDef
	// unsupported names the first argument type without a wire encoding.
	unsupported string
	builtin     builtinKind
	// scalarOnly: every argument takes one slot, so records have a fixed
	// size and argument offsets need no per-record table.
	scalarOnly bool
	// layout is where each argument sits in a binary record; fixedArgs
	// the number of leading arguments at fixed offsets (all of them when
	// scalarOnly). internal: a definition or zone record.
	layout    []argLayout
	direct    []directArg
	fixedArgs int
	internal  bool
	// scopeRole is whether ScopeTracker.Add works on the type's events
	// (roleNone: it only counts them), set by the constructors from Class,
	// Flags, Args and builtin; 0 for a type built elsewhere, which Add then
	// classifies itself.
	scopeRole uint8
	// strArgs are the string-table arguments, index and layout offset
	// (Decoder charges the strings they name, see Decoder.chargeStrings).
	strArgs []strArg
	// owner is the Writer that defined the type (nil for decoded types).
	owner *Writer
}

// IsScope reports whether events of this type open a scope (class 1).
func (t *EventType) IsScope() bool { return t.Class == ClassScope }

// ArgIndex returns the index of the argument called name, or -1.
func (t *EventType) ArgIndex(name string) int {
	for i, a := range t.Args {
		if a.Name == name {
			return i
		}
	}
	return -1
}

type builtinKind uint8

const (
	builtinNone builtinKind = iota
	builtinDefine
	builtinZoneCreate
	builtinZoneDelete
	builtinZoneSet
	builtinScopeLeave
	builtinScopeEnter
	builtinAppendData
)

var builtinNames = map[string]builtinKind{
	"wtf.event#define":     builtinDefine,
	"wtf.zone#create":      builtinZoneCreate,
	"wtf.zone#delete":      builtinZoneDelete,
	"wtf.zone#set":         builtinZoneSet,
	"wtf.scope#leave":      builtinScopeLeave,
	"wtf.scope#enter":      builtinScopeEnter,
	"wtf.scope#appendData": builtinAppendData,
}

// newEventType builds a type from a definition's parts.
func newEventType(wire uint16, class uint16, flags uint32, name, signature string) (*EventType, error) {
	args, err := ParseArgs(signature)
	if err != nil {
		return nil, err
	}
	t := &EventType{WireID: wire, Class: class, Flags: flags, Name: name, Signature: signature, Args: args}
	for _, a := range args {
		if a.Type == ArgUnsupported && t.unsupported == "" {
			t.unsupported = a.TypeName
		}
	}
	t.builtin = builtinNames[name]
	t.scalarOnly = true
	for _, a := range args {
		if a.Type.IsArray() {
			t.scalarOnly = false
		}
	}
	// Built-ins are recognised by name only when their signature is the
	// expected one, so a stream cannot make the decoder misread them.
	if t.builtin != builtinNone && !builtinShapeOK(t) {
		t.builtin = builtinNone
	}
	t.setLayout()
	t.scopeRole = scopeRoleOf(t)
	return t, nil
}

// withName is a type with t's signature and arguments (shared, not copied)
// under a name, wire id, class and flags.
func (t *EventType) withName(wire uint16, class uint16, flags uint32, name string) *EventType {
	n := &EventType{WireID: wire, Class: class, Flags: flags, Name: name, Signature: t.Signature, Args: t.Args,
		unsupported: t.unsupported, scalarOnly: t.scalarOnly}
	n.builtin = builtinNames[name]
	if n.builtin != builtinNone && !builtinShapeOK(n) {
		n.builtin = builtinNone
	}
	n.layout, n.direct, n.fixedArgs, n.strArgs = t.layout, t.direct, t.fixedArgs, t.strArgs
	switch n.builtin {
	case builtinDefine, builtinZoneCreate, builtinZoneDelete, builtinZoneSet:
		n.internal = true
	}
	n.scopeRole = scopeRoleOf(n)
	return n
}

func builtinShapeOK(t *EventType) bool {
	want := map[builtinKind][]ArgType{
		builtinDefine:     {ArgUint16, ArgUint16, ArgUint32, ArgASCII, ArgASCII},
		builtinZoneCreate: {ArgUint16, ArgASCII, ArgASCII, ArgASCII},
		builtinZoneDelete: {ArgUint16},
		builtinZoneSet:    {ArgUint16},
		builtinScopeLeave: {},
		builtinScopeEnter: {ArgASCII},
		builtinAppendData: {ArgASCII, ArgAny},
	}[t.builtin]
	if len(want) != len(t.Args) {
		return false
	}
	for i, w := range want {
		if t.Args[i].Type != w {
			return false
		}
	}
	return true
}

// defineType is the fixed wire-1 type.
func defineType() *EventType {
	t, _ := newEventType(1, ClassInstance, FlagBuiltin|FlagInternal, "wtf.event#define",
		"uint16 wireId, uint16 eventClass, uint32 flags, ascii name, ascii args")
	return t
}
