package wtfcff

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// refEvent is one event of the reference database's view.
type refEvent struct {
	Name  string         `json:"name"`
	Time  float64        `json:"time"`
	Args  map[string]any `json:"args"`
	End   *float64       `json:"end"`
	Depth *int           `json:"depth"`
}

type refDB struct {
	Error string `json:"error"`
	Zones []struct {
		Name     string     `json:"name"`
		Type     string     `json:"type"`
		Location string     `json:"location"`
		Events   []refEvent `json:"events"`
	} `json:"zones"`
}

// ourDB builds the reference database's view of a file from our decoder:
// definitions and zone records dropped, wtf.scope#enter and
// wtf.trace#timeStamp renamed after their name argument without spaces,
// scope arguments merged with appended data, appended data and leaves listed
// without arguments.
func ourDB(t *testing.T, data []byte) map[string][]refEvent {
	t.Helper()
	src, err := NewBytesReader(data)
	if err != nil {
		t.Fatal(err)
	}
	dec, st := NewDecoder(), NewScopeTracker()
	out := map[string][]refEvent{}
	open := map[*Zone][]int{}
	invalid := 0
	for src.Next() {
		if !dec.SetChunk(src.Chunk()) {
			continue
		}
		for dec.Next() {
			e := dec.Event()
			if e.IsInternal() {
				continue
			}
			z := e.Zone
			ev := refEvent{Name: e.Name(), Time: e.TimeMs(), Args: map[string]any{}}
			own := e.AppendArgsJSON(nil)
			switch {
			case e.Type.builtin == builtinScopeEnter, e.Name() == "wtf.trace#timeStamp":
				ev.Name = strings.ReplaceAll(e.Arg(0).String(), " ", "")
				if !validEventName(ev.Name) {
					// The database names scopes whose name does not parse
					// as a signature invalid_<n>.
					ev.Name = "invalid_" + strconv.Itoa(invalid)
					invalid++
				}
				own = nil
			case e.IsScopeLeave(), e.Type.Flags&FlagAppendScopeData != 0:
				own = nil
			}
			if own != nil {
				json.Unmarshal(own, &ev.Args)
				for i, a := range e.Type.Args {
					if a.Type == ArgTime32 { // the database reports ms
						ev.Args[a.Name] = float64(e.Arg(i).Uint()) / 1000
					}
				}
			}
			if s, ok := st.Add(e); ok {
				stack := open[z]
				i := stack[len(stack)-1]
				open[z] = stack[:len(stack)-1]
				end, depth := s.End, s.Depth
				endMs := float64(end) / 1000
				out[z.Name][i].End, out[z.Name][i].Depth = &endMs, &depth
				out[z.Name][i].Args = map[string]any{}
				json.Unmarshal(s.Args, &out[z.Name][i].Args)
			}
			if e.IsScopeEnter() {
				open[z] = append(open[z], len(out[z.Name]))
			}
			out[z.Name] = append(out[z.Name], ev)
		}
		if dec.Err() != nil {
			t.Fatal(dec.Err())
		}
	}
	return out
}

// canon renders a value with every number rounded to float32 precision (the
// reference prints float32 arguments widened, this package their shortest
// float32 digits).
func canon(v any) string {
	var round func(any) any
	round = func(v any) any {
		switch x := v.(type) {
		case float64:
			return float64(float32(x))
		case []any:
			for i := range x {
				x[i] = round(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = round(x[k])
			}
		}
		return v
	}
	b, _ := json.Marshal(round(v))
	return string(b)
}

// TestReferenceReaderLoadsOurFiles loads files written by this package with
// the reference JS reader (set WTF_NODE_MODULES to a node_modules folder
// holding tracing-framework@2015.7.15-1; node must be on PATH) and compares
// its database with ours, event by event.
func TestReferenceReaderLoadsOurFiles(t *testing.T) {
	mods := os.Getenv("WTF_NODE_MODULES")
	node, err := exec.LookPath("node")
	if mods == "" || err != nil {
		t.Skip("set WTF_NODE_MODULES (and put node on PATH) to check our files with the reference reader")
	}
	script, _ := filepath.Abs("testdata/refdump.js")
	dir := t.TempDir()
	var bin bytes.Buffer
	w, _ := NewWriter(&bin, WithFileHeader(FileHeader{Timebase: 1700000000000.25}), WithChunkSize(256))
	writeAllTypes(t, w)
	w.Close()
	var js bytes.Buffer
	if err := BinaryToJSON(&js, bytes.NewReader(bin.Bytes()), JSONComplete); err != nil {
		t.Fatal(err)
	}
	// The same events through the JSON event encoding and back to binary.
	var reenc bytes.Buffer
	src, _ := NewBytesReader(bin.Bytes())
	cw, _ := NewChunkWriter(&reenc)
	dec, enc := NewDecoder(), NewEventEncoder()
	for src.Next() {
		j, err := ChunkToJSONEvents(src.Chunk(), dec)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ChunkFromJSONEvents(&j, enc)
		if err != nil {
			t.Fatal(err)
		}
		cw.WriteChunk(&b)
	}
	files := map[string][]byte{"ours.wtf-trace": bin.Bytes(), "ours.wtf-json": js.Bytes(), "bench.wtf-trace": benchFile(t, 30),
		"reencoded.wtf-trace": reenc.Bytes()}
	for name, data := range files {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		cmd := exec.Command(node, script, p)
		cmd.Env = append(os.Environ(), "NODE_PATH="+mods, "NODE_NO_WARNINGS=1")
		outB, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: node: %v", name, err)
		}
		var ref refDB
		if err := json.Unmarshal(outB, &ref); err != nil || ref.Error != "" {
			t.Fatalf("%s: %v %s", name, err, ref.Error)
		}
		ours := ourDB(t, data)
		if len(ref.Zones) != len(ours) {
			t.Fatalf("%s: %d zones, we have %d", name, len(ref.Zones), len(ours))
		}
		n := 0
		for _, z := range ref.Zones {
			mine := ours[z.Name]
			if len(mine) != len(z.Events) {
				t.Fatalf("%s zone %s: %d events, we have %d", name, z.Name, len(z.Events), len(mine))
			}
			for i, re := range z.Events {
				me := mine[i]
				if re.Name != me.Name || math.Abs(re.Time-me.Time) > 1e-9 || canon(re.Args) != canon(me.Args) ||
					(re.End == nil) != (me.End == nil) || re.End != nil && (math.Abs(*re.End-*me.End) > 1e-9 || *re.Depth != *me.Depth) {
					t.Errorf("%s zone %s event %d:\nreference %+v %s\n     ours %+v %s", name, z.Name, i, re, canon(re.Args), me, canon(me.Args))
				}
				n++
			}
		}
		t.Logf("%s: reference reader loaded %d events in %d zones, all equal to ours", name, n, len(ref.Zones))
	}
}
