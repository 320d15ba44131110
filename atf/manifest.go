package atf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Manifest is a session's manifest.json: the thread list, the time range, the
// clock and, optionally, the module and symbol tables (reference notes §2).
type Manifest struct {
	Threads       []ManifestThread
	TimeStartNs   uint64
	TimeEndNs     uint64
	ClockType     ClockType
	Modules       []Module
	Symbols       []Symbol
	FormatVersion string // "2.0", or "2.1" with a symbol table
}

// ManifestThread is one entry of the manifest's thread list: the thread folder
// is thread_<ID>.
type ManifestThread struct {
	ID        uint32
	HasDetail bool
}

// Module is one traced binary. ModuleID is FNV-1a-32 of the path, case-folded
// (see ModuleID). BaseAddress, Size and UUID are written only when HasInfo.
type Module struct {
	ModuleID    uint32
	Path        string
	HasInfo     bool
	BaseAddress uint64
	Size        uint64
	UUID        string
}

// Symbol names one function id.
type Symbol struct {
	FunctionID  uint64 // (module_id << 32) | symbol_index
	ModuleID    uint32
	SymbolIndex uint32
	Name        string
}

// ModuleID is the reference's module id of a path: FNV-1a 32 over the ASCII
// case-folded bytes, with 0 replaced by 0x9e3779b9.
func ModuleID(path string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(path); i++ {
		c := path[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h ^= uint32(c)
		h *= 16777619
	}
	if h == 0 {
		h = 0x9e3779b9
	}
	return h
}

// FunctionID combines a module id and a 1-based symbol index.
func FunctionID(moduleID, symbolIndex uint32) uint64 {
	return uint64(moduleID)<<32 | uint64(symbolIndex)
}

// SymbolNames maps every function id of the symbol table to its name (the
// first entry wins); build it once for lookups over many events.
func (m *Manifest) SymbolNames() map[uint64]string {
	names := map[uint64]string{}
	if m == nil {
		return names
	}
	for _, s := range m.Symbols {
		if _, dup := names[s.FunctionID]; !dup {
			names[s.FunctionID] = s.Name
		}
	}
	return names
}

// SymbolName returns the name of functionID from the symbol table (a linear
// search; see SymbolNames).
func (m *Manifest) SymbolName(functionID uint64) (string, bool) {
	if m == nil {
		return "", false
	}
	for i := range m.Symbols {
		if m.Symbols[i].FunctionID == functionID {
			return m.Symbols[i].Name, true
		}
	}
	return "", false
}

// AppendJSON appends the manifest in the exact byte layout of the reference's
// fprintf template: key order, indentation, one-line thread objects, the
// symbol table (when there are modules or symbols) between clock_type and
// format_version. An empty FormatVersion is written as "2.1" with a symbol
// table and "2.0" without. Strings escape '"', '\\', '\n', '\r', '\t' as the
// reference does, and other control bytes as \u00XX (the reference leaves
// them raw, which is not JSON).
func (m *Manifest) AppendJSON(dst []byte) []byte {
	dst = append(dst, "{\n  \"threads\": [\n"...)
	for i, t := range m.Threads {
		if i > 0 {
			dst = append(dst, ",\n"...)
		}
		dst = append(dst, `    {"id": `...)
		dst = strconv.AppendUint(dst, uint64(t.ID), 10)
		dst = append(dst, `, "has_detail": `...)
		dst = strconv.AppendBool(dst, t.HasDetail)
		dst = append(dst, '}')
	}
	dst = append(dst, "\n  ],\n  \"time_start_ns\": "...)
	dst = strconv.AppendUint(dst, m.TimeStartNs, 10)
	dst = append(dst, ",\n  \"time_end_ns\": "...)
	dst = strconv.AppendUint(dst, m.TimeEndNs, 10)
	dst = append(dst, ",\n  \"clock_type\": "...)
	dst = strconv.AppendUint(dst, uint64(m.ClockType), 10)
	dst = append(dst, ",\n"...)
	table := len(m.Modules) > 0 || len(m.Symbols) > 0
	if table {
		dst = append(dst, "  "...)
		dst = m.appendSymbolTable(dst)
		dst = append(dst, ",\n"...)
	}
	v := m.FormatVersion
	if v == "" {
		v = "2.0"
		if table {
			v = "2.1"
		}
	}
	dst = append(dst, "  \"format_version\": "...)
	dst = appendJSONString(dst, v)
	return append(dst, "\n}\n"...)
}

func (m *Manifest) appendSymbolTable(dst []byte) []byte {
	dst = append(dst, "\"modules\": [\n"...)
	for i, mod := range m.Modules {
		if i > 0 {
			dst = append(dst, ",\n"...)
		}
		dst = append(dst, "    {\n      \"module_id\": "...)
		dst = strconv.AppendUint(dst, uint64(mod.ModuleID), 10)
		dst = append(dst, ",\n      \"path\": "...)
		dst = appendJSONString(dst, mod.Path)
		if mod.HasInfo {
			dst = append(dst, ",\n      \"base_address\": \"0x"...)
			dst = strconv.AppendUint(dst, mod.BaseAddress, 16)
			dst = append(dst, "\",\n      \"size\": "...)
			dst = strconv.AppendUint(dst, mod.Size, 10)
			dst = append(dst, ",\n      \"uuid\": "...)
			dst = appendJSONString(dst, mod.UUID)
		}
		dst = append(dst, "\n    }"...)
	}
	dst = append(dst, "\n  ],\n  \"symbols\": [\n"...)
	for i, s := range m.Symbols {
		if i > 0 {
			dst = append(dst, ",\n"...)
		}
		dst = append(dst, "    {\n      \"function_id\": \"0x"...)
		h := strconv.FormatUint(s.FunctionID, 16)
		dst = append(dst, strings.Repeat("0", 16-len(h))...)
		dst = append(dst, h...)
		dst = append(dst, "\",\n      \"module_id\": "...)
		dst = strconv.AppendUint(dst, uint64(s.ModuleID), 10)
		dst = append(dst, ",\n      \"symbol_index\": "...)
		dst = strconv.AppendUint(dst, uint64(s.SymbolIndex), 10)
		dst = append(dst, ",\n      \"name\": "...)
		dst = appendJSONString(dst, s.Name)
		dst = append(dst, "\n    }"...)
	}
	return append(dst, "\n  ]"...)
}

func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			if c < 0x20 {
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			} else {
				dst = append(dst, c)
			}
		}
	}
	return append(dst, '"')
}

// The JSON shapes ParseManifest accepts: unknown keys are ignored, as every
// reference reader does.
type manifestJSON struct {
	Threads       *[]threadJSON   `json:"threads"`
	TimeStartNs   uint64          `json:"time_start_ns"`
	TimeEndNs     uint64          `json:"time_end_ns"`
	ClockType     uint8           `json:"clock_type"`
	Modules       []moduleJSON    `json:"modules"`
	Symbols       symbolsJSON     `json:"symbols"`
	FormatVersion json.RawMessage `json:"format_version"`
}

type threadJSON struct {
	ID        *uint32 `json:"id"`
	HasDetail bool    `json:"has_detail"`
}

type moduleJSON struct {
	ModuleID    uint32  `json:"module_id"`
	Path        string  `json:"path"`
	BaseAddress *string `json:"base_address"`
	Size        uint64  `json:"size"`
	UUID        string  `json:"uuid"`
}

type symbolJSON struct {
	FunctionID  json.RawMessage `json:"function_id"`
	ModuleID    uint32          `json:"module_id"`
	SymbolIndex uint32          `json:"symbol_index"`
	Name        string          `json:"name"`
}

// ParseManifest decodes manifest.json. threads (with an id in every entry) is
// required, as in the reference reader; everything else is optional.
// function_id is read as "0x…" hexadecimal, a decimal string, or a number.
func ParseManifest(b []byte, opts ...ReaderOption) (*Manifest, error) {
	o, err := buildReaderOptions(opts)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > o.limits.MaxManifestBytes {
		return nil, newError(0, ErrLimit, "manifest of %d bytes exceeds the limit of %d", len(b), o.limits.MaxManifestBytes)
	}
	var raw manifestJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, newError(se.Offset, ErrCorrupt, "manifest: %v", se)
		case errors.As(err, &te):
			return nil, newError(te.Offset, ErrCorrupt, "manifest: field %s: %v", te.Field, te)
		case errors.Is(err, ErrCorrupt):
			return nil, err
		}
		return nil, newError(dec.InputOffset(), ErrCorrupt, "manifest: %v", err)
	}
	if raw.Threads == nil {
		return nil, newError(0, ErrBadMagic, "manifest has no threads list")
	}
	if len(*raw.Threads) > o.limits.MaxThreads {
		return nil, newError(0, ErrLimit, "manifest lists %d threads, over the limit of %d", len(*raw.Threads), o.limits.MaxThreads)
	}
	m := &Manifest{TimeStartNs: raw.TimeStartNs, TimeEndNs: raw.TimeEndNs, ClockType: ClockType(raw.ClockType)}
	for i, t := range *raw.Threads {
		if t.ID == nil {
			return nil, newError(0, ErrCorrupt, "manifest thread %d has no id", i)
		}
		m.Threads = append(m.Threads, ManifestThread{ID: *t.ID, HasDetail: t.HasDetail})
	}
	for _, mod := range raw.Modules {
		mm := Module{ModuleID: mod.ModuleID, Path: mod.Path, Size: mod.Size, UUID: mod.UUID}
		if mod.BaseAddress != nil {
			mm.HasInfo = true
			mm.BaseAddress, _ = parseUint(*mod.BaseAddress)
		}
		m.Modules = append(m.Modules, mm)
	}
	m.Symbols = raw.Symbols
	if len(raw.FormatVersion) > 0 {
		var v string
		if json.Unmarshal(raw.FormatVersion, &v) == nil {
			m.FormatVersion = v
		} else {
			m.FormatVersion = string(raw.FormatVersion)
		}
	}
	return m, nil
}

// manifestProblems lists what manifest.json b holds that the reference
// reads but its writer never produces (ProblemManifest): invalid UTF-8
// (read as U+FFFD, as JSON decoders do) and symbols naming a function id an
// earlier symbol names (the first wins, SymbolNames).
func manifestProblems(b []byte, m *Manifest) []Problem {
	var ps []Problem
	if !utf8.Valid(b) {
		off := 0
		for off < len(b) {
			r, n := utf8.DecodeRune(b[off:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			off += n
		}
		ps = append(ps, Problem{Kind: ProblemManifest, Path: "manifest.json", Offset: int64(off),
			Msg: "invalid UTF-8 (JSON text is UTF-8): read as U+FFFD"})
	}
	ids := make(map[uint64]struct{}, len(m.Symbols))
	var dups uint64
	var first uint64
	for _, sym := range m.Symbols {
		if _, dup := ids[sym.FunctionID]; dup {
			if dups++; dups == 1 {
				first = sym.FunctionID
			}
			continue
		}
		ids[sym.FunctionID] = struct{}{}
	}
	if dups > 0 {
		ps = append(ps, Problem{Kind: ProblemManifest, Path: "manifest.json", Offset: -1, Events: dups,
			Msg: fmt.Sprintf("%d symbols name a function id an earlier symbol names (the first is %#x): the first name wins", dups, first)})
	}
	return ps
}

// symbolsJSON is the symbols array, decoded one element at a time: each
// symbol is checked and converted as soon as it is read, so a manifest whose
// first symbol is wrong is rejected before the rest of the array costs
// anything, and the array's memory is that of the symbols kept (40 bytes
// and a name each), never that of a decoded copy of the whole array first
// (2 M empty objects in a 6 MB manifest took 547 MB that way).
type symbolsJSON []Symbol

func (ss *symbolsJSON) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*ss = nil
		return nil
	}
	*ss = (*ss)[:0] // a repeated "symbols" key replaces the list, as for any slice
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return newError(0, ErrCorrupt, "manifest: symbols is not an array")
	}
	for i := 0; dec.More(); i++ {
		var s symbolJSON
		if err := dec.Decode(&s); err != nil {
			return newError(0, ErrCorrupt, "manifest symbol %d: %v", i, err)
		}
		id, ok := parseFunctionID(s.FunctionID)
		if !ok {
			return newError(0, ErrCorrupt, "manifest symbol %d: function_id %s is not a number", i, s.FunctionID)
		}
		*ss = append(*ss, Symbol{FunctionID: id, ModuleID: s.ModuleID, SymbolIndex: s.SymbolIndex, Name: s.Name})
	}
	return nil
}

func parseFunctionID(raw json.RawMessage) (uint64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return parseUint(s)
	}
	v, err := strconv.ParseUint(string(raw), 10, 64)
	return v, err == nil
}

func parseUint(s string) (uint64, bool) {
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		v, err := strconv.ParseUint(h, 16, 64)
		return v, err == nil
	}
	if h, ok := strings.CutPrefix(s, "0X"); ok {
		v, err := strconv.ParseUint(h, 16, 64)
		return v, err == nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}
