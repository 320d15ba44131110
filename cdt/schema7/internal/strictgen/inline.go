package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The -inline rewrite gives the commonest wire forms a fast path in the
// generated decoders themselves, so that the common case costs no call (the
// package's scalar decoders are too large for the compiler to inline: a call
// alone costs most of its budget). Each fast path reads exactly what the
// decoder it precedes would read for that form and falls back to the call for
// every other form, so the decoded values and the errors are unchanged:
//
//   - map and array headers: the fix and 16-bit forms (msgp.ReadMapHeaderBytes
//     and msgp.ReadArrayHeaderBytes otherwise);
//   - bools: 0xc2 and 0xc3 (msgp.ReadBoolBytes otherwise);
//   - Int fields: the fixints and uint8/16/32 ((*Int).UnmarshalMsg), and
//     []Int elements in those forms in one tight loop (intsPrefix);
//   - Float fields: float64, what msgspec writes ((*Float).UnmarshalMsg);
//   - NullInt, NullFloat, NullBool and NullString fields: None and the
//     forms above (fixstr for strings).
//
// On the encoding side, the loop over an []Int field's elements becomes one
// call of appendInts, which writes the positive fixints in a tight loop and
// the other values as Int.MarshalMsg does (the same bytes).
//
// The scalar fields are found with go/types (the field's type decides),
// the rest by their generated text.

var (
	mapHeader   = regexp.MustCompile(`(?m)^(\s*)(zb\d+), bts, err = msgp\.ReadMapHeaderBytes\(bts\)$`)
	arrayHeader = regexp.MustCompile(`(?m)^(\s*)(zb\d+), bts, err = msgp\.ReadArrayHeaderBytes\(bts\)$`)
	boolRead    = regexp.MustCompile(`(?m)^(\s*)([A-Za-z0-9_.\[\]]+), bts, err = msgp\.ReadBoolBytes\(bts\)$`)
)

// inlineHeaders rewrites the header and bool reads (text only: err is nil
// wherever the generated code reads one, and the if err != nil that follows
// stays).
func inlineHeaders(src []byte) ([]byte, int) {
	n := 0
	src = mapHeader.ReplaceAllFunc(src, func(m []byte) []byte {
		n++
		s := mapHeader.FindSubmatch(m)
		return fmt.Appendf(nil, "%[1]sif len(bts) != 0 && bts[0]&0xf0 == 0x80 {\n%[1]s%[2]s, bts = uint32(bts[0]&0x0f), bts[1:]\n%[1]s} else if len(bts) >= 3 && bts[0] == 0xde {\n%[1]s%[2]s, bts = uint32(uint16At(bts)), bts[3:]\n%[1]s} else {\n%[1]s%[2]s, bts, err = msgp.ReadMapHeaderBytes(bts)\n%[1]s}", s[1], s[2])
	})
	src = arrayHeader.ReplaceAllFunc(src, func(m []byte) []byte {
		n++
		s := arrayHeader.FindSubmatch(m)
		return fmt.Appendf(nil, "%[1]sif len(bts) != 0 && bts[0]&0xf0 == 0x90 {\n%[1]s%[2]s, bts = uint32(bts[0]&0x0f), bts[1:]\n%[1]s} else if len(bts) >= 3 && bts[0] == 0xdc {\n%[1]s%[2]s, bts = uint32(uint16At(bts)), bts[3:]\n%[1]s} else {\n%[1]s%[2]s, bts, err = msgp.ReadArrayHeaderBytes(bts)\n%[1]s}", s[1], s[2])
	})
	src = boolRead.ReplaceAllFunc(src, func(m []byte) []byte {
		n++
		s := boolRead.FindSubmatch(m)
		return fmt.Appendf(nil, "%[1]sif len(bts) != 0 && bts[0]&0xfe == 0xc2 {\n%[1]s%[2]s, bts = bts[0] == 0xc3, bts[1:]\n%[1]s} else {\n%[1]s%[2]s, bts, err = msgp.ReadBoolBytes(bts)\n%[1]s}", s[1], s[2])
	})
	return src, n
}

// fastForm is an inline fast path of a scalar type: cond tests the form,
// value is what the field gets, and bts advances by size.
type fastForm struct {
	cond, value, size string
}

// Conditions of the forms read inline.
const (
	isFixint = "len(bts) != 0 && int8(bts[0]) >= -32"
	isUint8  = "len(bts) >= 2 && bts[0] == 0xcc"
	isUint16 = "len(bts) >= 3 && bts[0] == 0xcd"
	isUint32 = "len(bts) >= 5 && bts[0] == 0xce"
	isF64    = "len(bts) >= 9 && bts[0] == 0xcb"
	isNil    = "len(bts) != 0 && bts[0] == 0xc0"
	isBool   = "len(bts) != 0 && bts[0]&0xfe == 0xc2"
	isFixstr = "len(bts) != 0 && bts[0]&0xe0 == 0xa0 && int(bts[0]&0x1f) < len(bts)"
)

// fastScalars are the forms read inline, by type, in the order tried: for
// integers the fixints and then the unsigned forms msgspec writes for
// non-negative values, and None for the nullable types. Each reads what the
// type's UnmarshalMsg reads for that form (for strings, readString's fixstr
// path).
var fastScalars = map[string][]fastForm{
	"Int": {
		{isFixint, "Int(int8(bts[0]))", "1"},
		{isUint8, "Int(bts[1])", "2"},
		{isUint16, "Int(uint16At(bts))", "3"},
		{isUint32, "Int(uint32At(bts))", "5"},
	},
	"Float": {{isF64, "float64At(bts)", "9"}},
	"NullInt": {
		{isFixint, "NullInt{int64(int8(bts[0])), true}", "1"},
		{isNil, "NullInt{}", "1"},
		{isUint8, "NullInt{int64(bts[1]), true}", "2"},
		{isUint16, "NullInt{int64(uint16At(bts)), true}", "3"},
		{isUint32, "NullInt{int64(uint32At(bts)), true}", "5"},
	},
	"NullFloat": {
		{isF64, "NullFloat{float64(float64At(bts)), true}", "9"},
		{isNil, "NullFloat{}", "1"},
	},
	"NullBool": {
		{isBool, "NullBool{bts[0] == 0xc3, true}", "1"},
		{isNil, "NullBool{}", "1"},
	},
	"NullString": {
		{isFixstr, "NullString{intern(bts[1 : 1+int(bts[0]&0x1f)]), true}", "1+int(bts[0]&0x1f)"},
		{isNil, "NullString{}", "1"},
	},
}

// inlineScalars rewrites, in the generated file name (whose current text is
// src), every
//
//	bts, err = X.UnmarshalMsg(bts)
//	if err != nil {
//		…
//	}
//
// where X is an Int or a Float into
//
//	if FAST {
//		X, bts = VALUE, bts[SIZE:]
//	} else if bts, err = X.UnmarshalMsg(bts); err != nil {
//		…
//	}
//
// It type-checks the package in src's directory (with src in place of the
// file) to know X's type.
func inlineScalars(name string, src []byte) ([]byte, int, error) {
	dir := filepath.Dir(name)
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, err
	}
	var files []*ast.File
	var target *ast.File
	for _, e := range entries {
		fn := e.Name()
		if !strings.HasSuffix(fn, ".go") || strings.HasSuffix(fn, "_test.go") {
			continue
		}
		path := filepath.Join(dir, fn)
		var text any
		same, err := sameFile(path, name)
		if err != nil {
			return nil, 0, err
		}
		if same {
			text = src
		}
		f, err := parser.ParseFile(fset, path, text, parser.ParseComments)
		if err != nil {
			return nil, 0, err
		}
		files = append(files, f)
		if same {
			target = f
		}
	}
	if target == nil {
		return nil, 0, fmt.Errorf("%s not found in its directory", name)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check(target.Name.Name, fset, files, info); err != nil {
		return nil, 0, err
	}
	type edit struct {
		from, to int
		text     string
	}
	var edits []edit
	tf := fset.File(target.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) }
	ast.Inspect(target, func(n ast.Node) bool {
		var list []ast.Stmt
		switch b := n.(type) {
		case *ast.BlockStmt:
			list = b.List
		case *ast.CaseClause:
			list = b.Body
		case *ast.RangeStmt:
			// for K := range X { o, err = X[K].MarshalMsg(o); if err … }
			// over an []Int: o = appendInts(o, X).
			if xs, ok := intsMarshalLoop(b, info, src, off, target.Name.Name); ok {
				edits = append(edits, edit{off(b.Pos()), off(b.End()), fmt.Sprintf("o = appendInts(o, %s)", xs)})
				return false
			}
			// for K := range X { X[K] decoded } over an []Int: the
			// elements in the forms of fastScalars["Int"] are decoded
			// first in one tight loop (intsPrefix), and the loop goes on
			// from the first element in another form, if any.
			key, ok := b.Key.(*ast.Ident)
			if !ok || b.Value != nil || b.Tok != token.DEFINE || len(b.Body.List) != 2 {
				return true
			}
			if x, ok := scalarCall(b.Body.List[0]); !ok {
				return true
			} else if ix, ok := x.(*ast.IndexExpr); !ok || exprText(src, off, ix.X) != exprText(src, off, b.X) || exprText(src, off, ix.Index) != key.Name {
				return true
			}
			sl, ok := info.Types[b.X].Type.(*types.Slice)
			if !ok {
				return true
			}
			if named, ok := sl.Elem().(*types.Named); !ok || named.Obj().Name() != "Int" || named.Obj().Pkg() == nil || named.Obj().Pkg().Name() != target.Name.Name {
				return true
			}
			xs, k := exprText(src, off, b.X), key.Name
			edits = append(edits,
				edit{off(b.Pos()), off(b.Body.Lbrace) + 1, fmt.Sprintf("{\nvar %[1]sn int\n%[1]sn, bts = intsPrefix(%[2]s, bts)\nfor %[1]s := %[1]sn; %[1]s < len(%[2]s); %[1]s++ {", k, xs)},
				edit{off(b.End()), off(b.End()), "\n}"})
			return true
		default:
			return true
		}
		for i := 0; i+1 < len(list); i++ {
			x, ok := scalarCall(list[i])
			if !ok {
				continue
			}
			check, ok := list[i+1].(*ast.IfStmt)
			if !ok || check.Init != nil || check.Else != nil || exprText(src, off, check.Cond) != "err != nil" {
				continue
			}
			named, ok := info.Types[x].Type.(*types.Named)
			if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Name() != target.Name.Name {
				continue
			}
			forms, ok := fastScalars[named.Obj().Name()]
			if !ok {
				continue
			}
			xs := exprText(src, off, x)
			body := string(src[off(check.Body.Lbrace) : off(check.Body.Rbrace)+1])
			var b strings.Builder
			for _, f := range forms {
				fmt.Fprintf(&b, "if %s {\n%s, bts = %s, bts[%s:]\n} else ", f.cond, xs, f.value, f.size)
			}
			fmt.Fprintf(&b, "if bts, err = %s.UnmarshalMsg(bts); err != nil %s", xs, body)
			edits = append(edits, edit{off(list[i].Pos()), off(check.End()), b.String()})
		}
		return true
	})
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	out := bytes.Clone(src)
	for _, e := range edits {
		out = append(out[:e.from], append([]byte(e.text), out[e.to:]...)...)
	}
	return out, len(edits), nil
}

// scalarCall matches bts, err = X.UnmarshalMsg(bts) and returns X.
// intsMarshalLoop reports whether b is msgp's encoding loop over the
// elements of an []Int (Int of package pkg), and returns the slice's text.
func intsMarshalLoop(b *ast.RangeStmt, info *types.Info, src []byte, off func(token.Pos) int, pkg string) (string, bool) {
	key, ok := b.Key.(*ast.Ident)
	if !ok || b.Value != nil || b.Tok != token.DEFINE || len(b.Body.List) != 2 {
		return "", false
	}
	as, ok := b.Body.List[0].(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 2 || len(as.Rhs) != 1 ||
		exprText(src, off, as.Lhs[0]) != "o" || exprText(src, off, as.Lhs[1]) != "err" {
		return "", false
	}
	call, ok := as.Rhs[0].(*ast.CallExpr)
	if !ok || len(call.Args) != 1 || exprText(src, off, call.Args[0]) != "o" {
		return "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "MarshalMsg" {
		return "", false
	}
	ix, ok := sel.X.(*ast.IndexExpr)
	if !ok || exprText(src, off, ix.X) != exprText(src, off, b.X) || exprText(src, off, ix.Index) != key.Name {
		return "", false
	}
	if check, ok := b.Body.List[1].(*ast.IfStmt); !ok || exprText(src, off, check.Cond) != "err != nil" {
		return "", false
	}
	sl, ok := info.Types[b.X].Type.(*types.Slice)
	if !ok {
		return "", false
	}
	if named, ok := sl.Elem().(*types.Named); !ok || named.Obj().Name() != "Int" || named.Obj().Pkg() == nil || named.Obj().Pkg().Name() != pkg {
		return "", false
	}
	return exprText(src, off, b.X), true
}

func scalarCall(s ast.Stmt) (ast.Expr, bool) {
	as, ok := s.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
		return nil, false
	}
	if id, ok := as.Lhs[0].(*ast.Ident); !ok || id.Name != "bts" {
		return nil, false
	}
	if id, ok := as.Lhs[1].(*ast.Ident); !ok || id.Name != "err" {
		return nil, false
	}
	call, ok := as.Rhs[0].(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, false
	}
	if id, ok := call.Args[0].(*ast.Ident); !ok || id.Name != "bts" {
		return nil, false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "UnmarshalMsg" {
		return nil, false
	}
	return sel.X, true
}

func exprText(src []byte, off func(token.Pos) int, e ast.Expr) string {
	return string(src[off(e.Pos()):off(e.End())])
}

func sameFile(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}

// predictKeys rewrites every generated map-to-struct loop
//
//	for zbN > 0 {
//		zbN--
//		… read the key into field …
//		switch msgp.UnsafeString(field) {
//		case "a": A
//		case "b": B
//		default: D
//		}
//	}
//
// into one that expects the keys in declaration order (msgspec writes a
// struct's fields in that order, every time): a jump on the expected field's
// number compares the next bytes with that key's whole encoding, a
// constant, and on a match skips the key read and the string switch. Any
// other key (another order, another form, an unknown or repeated key) takes
// the original key read and string switch, which now only finds the
// field's number (D as before). The field's code then runs from a jump on
// that number, so each field's code stays in one copy, and decoded values
// and errors are those of the original loop:
//
//	var zbNk int
//	for zbN > 0 {
//		zbN--
//		switch zbNk {
//		case 0:
//			if len(bts) >= 2 && string(bts[:2]) == "\xa1a" {
//				bts = bts[2:]
//				goto zbNfield
//			}
//		…
//		}
//		{
//			… read the key into field …
//			switch msgp.UnsafeString(field) {
//			case "a": zbNk = 0
//			case "b": zbNk = 1
//			default: D (then continue, if D does not return)
//			}
//		}
//	zbNfield:
//		switch zbNk {
//		case 0: A
//		case 1: B
//		}
//		zbNk++
//	}
//
// Loops are rewritten innermost first (the text of a field's code is
// copied, so an inner loop is rewritten before the loop around it).
func predictKeys(src []byte) ([]byte, int, error) {
	total := 0
	for {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "gen.go", src, parser.ParseComments)
		if err != nil {
			return nil, 0, err
		}
		tf := fset.File(f.Pos())
		off := func(p token.Pos) int { return tf.Offset(p) }
		text := func(n ast.Node) string { return string(src[off(n.Pos()):off(n.End())]) }
		type edit struct {
			from, to int
			text     string
		}
		var edits []edit
		var failed error
		ast.Inspect(f, func(n ast.Node) bool {
			loop, ok := n.(*ast.ForStmt)
			if !ok || failed != nil {
				return failed == nil
			}
			count, sw, ok := keyLoop(loop)
			if !ok {
				return true
			}
			inner := false // an unrewritten key loop inside: wait for the next pass
			ast.Inspect(loop.Body, func(m ast.Node) bool {
				if l, ok := m.(*ast.ForStmt); ok {
					if _, _, ok := keyLoop(l); ok {
						inner = true
					}
				}
				return !inner
			})
			if inner {
				return true
			}
			var b strings.Builder
			k, lbl := count+"k", count+"field"
			fmt.Fprintf(&b, "for %s > 0 {\n%s--\nswitch %s {\n", count, count, k)
			var encs [][]byte
			var cases []*ast.CaseClause
			var def *ast.CaseClause
			for _, s := range sw.Body.List {
				cc := s.(*ast.CaseClause)
				if cc.List == nil {
					def = cc
					continue
				}
				if len(cc.List) != 1 {
					failed = fmt.Errorf("%s: case with %d keys", fset.Position(cc.Pos()), len(cc.List))
					return false
				}
				lit, ok := cc.List[0].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					failed = fmt.Errorf("%s: case key is not a string literal", fset.Position(cc.Pos()))
					return false
				}
				key, err := strconv.Unquote(lit.Value)
				if err != nil {
					failed = err
					return false
				}
				enc := keyEncoding(key)
				encs = append(encs, enc)
				fmt.Fprintf(&b, "case %d:\nif len(bts) >= %d && %s {\nbts = bts[%d:]\ngoto %s\n}\n", len(cases), len(enc), keyCompare(enc), len(enc), lbl)
				cases = append(cases, cc)
			}
			if def == nil {
				failed = fmt.Errorf("%s: key switch without default", fset.Position(sw.Pos()))
				return false
			}
			b.WriteString("}\n{\n")
			for _, s := range loop.Body.List[1:3] {
				b.WriteString(text(s) + "\n")
			}
			fmt.Fprintf(&b, "switch msgp.UnsafeString(field) {\n")
			for i, cc := range cases {
				fmt.Fprintf(&b, "case %s:\n%s = %d\n", text(cc.List[0]), k, i)
			}
			b.WriteString("default:\n")
			for _, s := range def.Body {
				b.WriteString(text(s) + "\n")
			}
			if len(def.Body) == 0 {
				b.WriteString("continue\n")
			} else if _, ok := def.Body[len(def.Body)-1].(*ast.ReturnStmt); !ok {
				b.WriteString("continue\n")
			}
			fmt.Fprintf(&b, "}\n}\n%s:\nswitch %s {\n", lbl, k)
			for i, cc := range cases {
				fmt.Fprintf(&b, "case %d:\n", i)
				for _, s := range cc.Body {
					b.WriteString(text(s) + "\n")
				}
			}
			fmt.Fprintf(&b, "}\n%s++\n}", k)
			// The straight-line sequence before the loop: while the keys
			// come in order, each field's code (a copy, its labels renamed)
			// runs right after its key's comparison.
			var seq strings.Builder
			loopLbl := count + "loop"
			fmt.Fprintf(&seq, "var %s int\nif %s >= %d {\n", k, count, len(cases))
			for i, cc := range cases {
				fmt.Fprintf(&seq, "if !(len(bts) >= %d && %s) {\ngoto %s\n}\nbts = bts[%d:]\n{\n", len(encs[i]), keyCompare(encs[i]), loopLbl, len(encs[i]))
				for _, s := range cc.Body {
					seq.WriteString(labelRef.ReplaceAllString(text(s), "${1}_"+count) + "\n")
				}
				fmt.Fprintf(&seq, "}\n%s--\n%s++\n", count, k)
			}
			fmt.Fprintf(&seq, "}\n%s:\n", loopLbl)
			edits = append(edits, edit{off(loop.Pos()), off(loop.End()), seq.String() + b.String()})
			return false
		})
		if failed != nil {
			return nil, 0, failed
		}
		if len(edits) == 0 {
			return src, total, nil
		}
		sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
		out := bytes.Clone(src)
		for _, e := range edits {
			out = append(out[:e.from], append([]byte(e.text), out[e.to:]...)...)
		}
		total += len(edits)
		src = out
	}
}

// labelRef matches the labels predictKeys writes (in their definitions and
// gotos), so that a copied field's code can rename them.
var labelRef = regexp.MustCompile(`\b(zb\d+(?:field|loop)\w*)\b`)

// keyLoop matches a generated key loop (see predictKeys) and returns its
// count variable and key switch.
func keyLoop(loop *ast.ForStmt) (string, *ast.SwitchStmt, bool) {
	if loop.Init != nil || loop.Post != nil || len(loop.Body.List) != 4 {
		return "", nil, false
	}
	cond, ok := loop.Cond.(*ast.BinaryExpr)
	if !ok || cond.Op != token.GTR {
		return "", nil, false
	}
	id, ok := cond.X.(*ast.Ident)
	if !ok || !strings.HasPrefix(id.Name, "zb") {
		return "", nil, false
	}
	if dec, ok := loop.Body.List[0].(*ast.IncDecStmt); !ok || dec.Tok != token.DEC {
		return "", nil, false
	} else if x, ok := dec.X.(*ast.Ident); !ok || x.Name != id.Name {
		return "", nil, false
	}
	if _, ok := loop.Body.List[1].(*ast.IfStmt); !ok {
		return "", nil, false
	}
	if _, ok := loop.Body.List[2].(*ast.IfStmt); !ok {
		return "", nil, false
	}
	sw, ok := loop.Body.List[3].(*ast.SwitchStmt)
	if !ok || sw.Init != nil {
		return "", nil, false
	}
	call, ok := sw.Tag.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return "", nil, false
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "UnsafeString" {
		return "", nil, false
	}
	if a, ok := call.Args[0].(*ast.Ident); !ok || a.Name != "field" {
		return "", nil, false
	}
	return id.Name, sw, true
}

// keyEncoding is the msgpack encoding of the string key in its shortest
// form, the one msgspec writes.
func keyEncoding(key string) []byte {
	switch n := len(key); {
	case n < 32:
		return append([]byte{0xa0 | byte(n)}, key...)
	case n < 256:
		return append([]byte{0xd9, byte(n)}, key...)
	default:
		return append([]byte{0xda, byte(n >> 8), byte(n)}, key...)
	}
}

// keyCompare compares bts[:len(enc)] with enc in pieces of at most 16
// bytes: the compiler turns a comparison with a constant that short into
// a few wide loads, where a longer one calls memequal.
func keyCompare(enc []byte) string {
	var parts []string
	for i := 0; i < len(enc); i += 16 {
		j := min(i+16, len(enc))
		parts = append(parts, fmt.Sprintf("string(bts[%d:%d]) == %s", i, j, strconv.Quote(string(enc[i:j]))))
	}
	return strings.Join(parts, " && ")
}
