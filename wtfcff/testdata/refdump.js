// Loads a WTF trace with the reference JS reader (npm tracing-framework
// 2015.7.15-1, wtf.db.load) and prints its database as JSON: zones with
// their events (name, time in ms, arguments, scope end and depth). Used by
// TestReferenceReaderLoadsOurFiles when WTF_NODE_MODULES is set.
const wtf = require('tracing-framework');
const fs = require('fs');
const file = process.argv[2];
let data = fs.readFileSync(file);
data = file.endsWith('.wtf-json') ? data.toString('utf8') : new Uint8Array(data);
function conv(v) {
  if (v && ArrayBuffer.isView(v)) return Array.from(v);
  if (typeof v === 'number' && !isFinite(v)) return String(v);
  return v;
}
wtf.db.load(data, function(db) {
  if (db instanceof Error) { console.log(JSON.stringify({error: String(db)})); return; }
  const out = {zones: []};
  for (const z of db.getZones()) {
    const zo = {name: z.getName(), type: z.getType(), location: z.getLocation(), events: []};
    for (const it = z.getEventList().begin(); !it.done(); it.next()) {
      const a = it.getArguments();
      const args = {};
      if (a) for (const k of Object.keys(a)) args[k] = conv(a[k]);
      const e = {name: it.getName(), time: it.getTime(), args: args};
      if (it.isScope()) { e.end = it.getEndTime(); e.depth = it.getDepth(); }
      zo.events.push(e);
    }
    out.zones.push(zo);
  }
  console.log(JSON.stringify(out));
}, 'application/x-extension-wtf-trace');
