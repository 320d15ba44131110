package inspect

import (
	"strconv"

	"github.com/tracecodec/tracecodec/events"
)

// AppendText appends ev as one line of tracecat dump's text form (without
// the newline). It carries the same fields as Event.AppendJSON, in one line
// a person reads:
//
//	TS KIND NAME [TRACK] RECORD… | ARGS…
//
// TS is the time in ns ("-" when the record has none; "TS+DURns" for a
// complete event), KIND the event kind, NAME the event name and TRACK the
// track name (both JSON-quoted when they hold a space, a quote, "[", "]",
// "|", "=" or a control character), RECORD the keys of the record object as
// key=value and ARGS the arguments as name=value, values written as JSON
// writes them (strings quoted; nothing escaped beyond what JSON requires, so
// "<" stays "<"). For example:
//
//	1000 instant AllTypes [events without a worker] offset=155 type_id=0 type="AllTypes" | f_i64=-42 f_bool=true
//
// It allocates nothing beyond growing b, except for composite CDT
// arguments.
func AppendText(b []byte, ev *events.Event) []byte {
	if u, past := ev.TimePastInt64(); past {
		b = strconv.AppendUint(b, u, 10) // exact past 2^63
	} else if ev.HasTime() {
		b = strconv.AppendInt(b, ev.Time(), 10)
	} else {
		b = append(b, '-')
	}
	if ev.Kind() == events.KindComplete {
		b = append(b, '+')
		b = strconv.AppendInt(b, ev.Duration(), 10)
		b = append(b, "ns"...)
	}
	b = append(b, ' ')
	b = append(b, ev.Kind().String()...)
	b = append(b, ' ')
	b = appendWord(b, ev.Name())
	b = append(b, " ["...)
	t := ev.Track()
	b = appendWord(b, t.Name)
	b = append(b, ']')
	start := len(b)
	b = ev.AppendRecord(b)
	b = flattenObject(b, start)
	b = append(b, " |"...)
	for name, v := range ev.Args {
		b = append(b, ' ')
		b = appendWord(b, name)
		b = append(b, '=')
		b = v.AppendJSON(b)
	}
	return b
}

// appendWord appends s as is when it reads as one word, else JSON-quoted.
func appendWord(b []byte, s string) []byte {
	if s == "" {
		return append(b, `""`...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ', c == '"', c == '[', c == ']', c == '|', c == '=', c == 0x7f, c == '\\':
			return events.AppendJSONString(b, s)
		}
	}
	return append(b, s...)
}

// flattenObject rewrites the JSON object b[start:] ({"k":v,…}, keys without
// escapes, as Event.AppendRecord writes them) in place as " k=v k=v".
// Nested values are copied whole.
func flattenObject(b []byte, start int) []byte {
	src := b[start:]
	if len(src) < 2 || src[0] != '{' {
		return b
	}
	out := start // writing never overtakes reading: "{\"k\":" (5+) becomes " k=" (3+)
	i := 1
	for i < len(src)-1 {
		if src[i] == ',' {
			i++
		}
		if src[i] != '"' {
			break
		}
		j := i + 1
		for j < len(src) && src[j] != '"' {
			j++
		}
		b[out] = ' '
		out++
		out += copy(b[out:], src[i+1:j])
		b[out] = '='
		out++
		i = j + 2 // past the quote and the colon
		j = valueEnd(src, i)
		out += copy(b[out:], src[i:j])
		i = j
	}
	return b[:out]
}

// valueEnd returns the index just past the JSON value that starts at i.
func valueEnd(s []byte, i int) int {
	depth, inStr := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
				if depth == 0 {
					return i + 1
				}
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case c == ',' && depth == 0:
			return i
		}
	}
	return i
}
