#!/usr/bin/env node
// check.mjs — open tracecat's Chrome exports in a real trace viewer (speedscope, in
// headless Chromium) and check that every slice opens and closes where the trace says.
//
// Not run by CI and not part of any Go package: see README.md beside this file.
//
// For each case it
//   1. writes the Chrome export with `tracecat convert --to chrome` and the trace's events
//      with `tracecat dump --json`;
//   2. serves speedscope's built app and the exports on 127.0.0.1, opens
//      index.html#profileURL=... in Chromium, records speedscope's console warnings
//      (ends it refused, frames it had to close at the end of the profile), takes a
//      screenshot of each thread, and clicks speedscope's own Export to get the profile it
//      parsed (speedscope's file format: open/close events per thread);
//   3. rebuilds the slices (name, start, end, depth) per thread from that profile and from
//      `dump --json` (begin/end pairs per track, complete events, CDT ticks), and compares
//      them; checks that speedscope made one frame per name (its sandwich view lists each
//      function or scope once), and screenshots the sandwich view.
//
// usage: node check.mjs [--deps DIR] [--out DIR] [--shots DIR] [--tracecat BIN] [--old-tracecat BIN]
//                       [--vectors DIR] [--chromium BIN] [--big] [--only CASE,...] [--no-screenshots]
//                       [--ctf-traces DIR]
// CTF cases: two traces written by ./tools/viewercheck/ctfcalls (LTTng system calls and
// function calls), checked against the slices the generator scheduled; with --ctf-traces
// (default $TRACECOMPASS_CTF), Trace Compass's LTTng test traces with calls found under DIR,
// checked against the B/E events of their export.
// playwright-core starts Chromium headless with a fresh, temporary user-data-dir of its own.
// Exit status 0 when every case (except the old-tracecat one, which is expected to fail)
// matches, 1 otherwise.

import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');

function parseArgs(argv) {
  const o = {
    deps: process.env.VIEWERCHECK_DEPS || '/tmp/viewercheck',
    out: '/tmp/viewercheck-out',
    shots: '',
    tracecat: '',
    oldTracecat: '',
    vectors: process.env.TRACECODEC_VECTORS ||
      [path.resolve(repo, '..', 'shared', 'vectors'), path.resolve(repo, '..', '..', 'shared', 'vectors')].find((d) => fs.existsSync(d)) ||
      path.resolve(repo, '..', 'shared', 'vectors'),
    chromium: '/usr/bin/chromium',
    big: false,
    ctfTraces: process.env.TRACECOMPASS_CTF || '',
    only: null,
    screenshots: true,
  };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--deps': o.deps = val(); break;
      case '--out': o.out = val(); break;
      case '--shots': o.shots = val(); break;
      case '--tracecat': o.tracecat = val(); break;
      case '--old-tracecat': o.oldTracecat = val(); break;
      case '--vectors': o.vectors = val(); break;
      case '--chromium': o.chromium = val(); break;
      case '--big': o.big = true; break;
      case '--ctf-traces': o.ctfTraces = val(); break;
      case '--only': o.only = val().split(','); break;
      case '--no-screenshots': o.screenshots = false; break;
      default: throw new Error(`unknown argument ${a}`);
    }
  }
  return o;
}

const opt = parseArgs(process.argv);
const depsRequire = createRequire(path.join(path.resolve(opt.deps), 'package.json'));
const { chromium } = depsRequire('playwright-core');
const speedscopePkg = depsRequire.resolve('speedscope/package.json');
const speedscopeVersion = JSON.parse(fs.readFileSync(speedscopePkg, 'utf8')).version;
const speedscopeDir = path.join(path.dirname(speedscopePkg), 'dist', 'release');
fs.mkdirSync(opt.out, { recursive: true });
if (!opt.shots) opt.shots = opt.out;
fs.mkdirSync(opt.shots, { recursive: true });

// Build tracecat from this tree unless a binary is given.
if (!opt.tracecat) {
  opt.tracecat = path.join(opt.out, 'tracecat');
  execFileSync('go', ['build', '-o', opt.tracecat, './cmd/tracecat'], { cwd: repo, stdio: 'inherit' });
}

const V = opt.vectors;
// One trace per format: the ATF, WTF and CDT vectors, and tracecat's dial9 sample (8 polls of
// 8 tasks on 2 workers: one frame "poll" per worker in the sandwich view, not 8).
const dial9Sample = path.join(opt.out, 'dial9-sample.bin');
execFileSync(opt.tracecat, ['sample', 'dial9', dial9Sample], { stdio: 'inherit' });
const cases = [
  { name: 'atf', input: path.join(V, 'atf/normal/session_20250101_120000/pid_12345') },
  { name: 'dial9', input: dial9Sample },
  { name: 'wtf', input: path.join(V, 'wtf/api_public.wtf-trace') },
  { name: 'cdt', input: path.join(V, 'cdt/v7_small_300ticks.cdt') },
];
// Nanosecond resolution at Unix-epoch times: 200 polls of 500..1 099 ns at 1.77e18 ns.
const epochTrace = path.join(opt.out, 'dial9-epoch.bin');
execFileSync('go', ['run', './tools/viewercheck/epochtrace', epochTrace], { cwd: repo, stdio: 'inherit' });
cases.push({ name: 'dial9-epoch', input: epochTrace });
// Smaller extras: an unfinished ATF session (slices never returned), another WTF file,
// WTF's JSON container.
cases.push(
  { name: 'dial9-telemetry', input: path.join(V, 'dial9/v0.2.0/11_telemetry_schemas.bin') },
  { name: 'atf-crash', input: path.join(V, 'atf/crash_flushed/session_20250101_120500/pid_23456') },
  { name: 'wtf-det', input: path.join(V, 'wtf/det_resources.wtf-trace') },
  { name: 'wtf-json', input: path.join(V, 'wtf/api_public_json.wtf-json') },
);
if (opt.big) {
  cases.push({ name: 'dial9-golden', input: path.join(V, 'dial9/golden/demo-trace@6050208.bin.gz'), big: true });
}
// CTF (LTTng): system calls (sched_switch, syscall_entry_/exit_ on 2 CPUs, threads that
// resume a blocked system call on the other CPU) and function calls (lttng_ust_cyg_profile,
// nested, on 3 vtids, the _fast classes on one), at Unix-epoch ns, written by
// ./tools/viewercheck/ctfcalls with the slices it scheduled (NAME.slices.json).
const ctfGen = path.join(opt.out, 'ctf-gen');
execFileSync('go', ['run', './tools/viewercheck/ctfcalls', ctfGen], { cwd: repo, stdio: 'inherit' });
for (const n of ['kernel', 'ust']) {
  cases.push({ name: `ctf-${n}`, input: path.join(ctfGen, n), expectFile: path.join(ctfGen, `${n}.slices.json`), ctf: true });
}
// Trace Compass's LTTng test traces with calls, when given: their folders (those holding a
// "metadata" file) found under --ctf-traces by name. Expected: the slices of the export's
// B/E events (dump --json has no call slices).
if (opt.ctfTraces) {
  const want = { 'glxgears-cyg-profile': false, 'glxgears-cyg-profile-fast': false, bug446190: false, 'many-threads': true, 'context-switches-ust': false };
  const found = [];
  const walk = (d, depth) => {
    let ents;
    try { ents = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
    if (ents.some((e) => e.name === 'metadata' && e.isFile()) && path.basename(d) in want) found.push(d);
    if (depth < 4) for (const e of ents) if (e.isDirectory()) walk(path.join(d, e.name), depth + 1);
  };
  walk(opt.ctfTraces, 0);
  found.sort();
  for (const name of Object.keys(want)) if (!found.some((d) => path.basename(d) === name)) console.log(`ctf-traces: no ${name} under ${opt.ctfTraces}`);
  for (const d of found) cases.push({ name: `ctf-${path.basename(d)}`, input: d, fromExport: true, ctf: true, big: want[path.basename(d)] });
}
if (opt.oldTracecat) {
  // The four traces through another (older) tracecat's export, compared with this tree's dump:
  // expected to fail (e.g. one frame per task id before chromeexport, no CDT slices).
  for (const c of cases.slice(0, 5)) cases.push({ name: `${c.name}-old`, input: c.input, bin: opt.oldTracecat, expectFail: true });
}

if (opt.only) {
  const keep = cases.filter((c) => opt.only.includes(c.name));
  cases.length = 0;
  cases.push(...keep);
}

// ---------- what the trace says: slices from `tracecat dump --json` ----------

// expectedSlices orders each track's events by time, pairs begin/end with a stack (an end closes the innermost open
// begin of the same name, and any frames opened above it at the same time), takes complete
// events as they are, and closes what is still open at the track's last event time.
function expectedSlices(dumpText) {
  const tracks = new Map(); // key -> {name, events: []}
  for (const line of dumpText.split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    // Times as BigInt, read from the text: JSON.parse rounds ns since 1970 (1.7e18) to 256 ns.
    const ts = /"ts_ns":(-?\d+)/.exec(line);
    const dur = /"dur_ns":(-?\d+)/.exec(line);
    e.ts_ns = ts ? BigInt(ts[1]) : null;
    e.dur_ns = dur ? BigInt(dur[1]) : 0n;
    if (!['begin', 'end', 'complete', 'counter'].includes(e.kind) || e.ts_ns === null) continue;
    const key = `${e.track}`;
    if (!tracks.has(key)) tracks.set(key, { track: e.track, trackName: e.track_name, events: [] });
    tracks.get(key).events.push(e);
  }
  const out = new Map();
  for (const [key, t] of tracks) {
    const slices = [];
    const notes = [];
    const stack = [];
    let minNs = t.events[0].ts_ns;
    let maxNs = t.events[0].ts_ns;
    for (const e of t.events) {
      if (e.ts_ns < minNs) minNs = e.ts_ns;
      const end = e.ts_ns + (e.kind === 'complete' ? e.dur_ns : 0n);
      if (end > maxNs) maxNs = end;
    }
    // A Chrome viewer orders a thread's events by time whatever their order in the file;
    // do the same (stably, so ties keep the trace's order) and say when the trace goes back.
    let backwards = 0;
    for (let i = 1; i < t.events.length; i++) if (t.events[i].ts_ns < t.events[i - 1].ts_ns) backwards++;
    if (backwards) notes.push(`time goes backwards ${backwards} time(s) in trace order on this track; slices expected in time order`);
    t.events.sort((a, b) => (a.ts_ns < b.ts_ns ? -1 : a.ts_ns > b.ts_ns ? 1 : 0));
    let tick = null; // CDT: each tick is a slice "tick" up to the next tick
    for (const e of t.events) {
      if (e.kind === 'counter') {
        if (tick) slices.push({ name: tick.name, startNs: tick.ts_ns, endNs: e.ts_ns, depth: 0 });
        tick = e;
        continue;
      }
      if (e.kind === 'complete') {
        slices.push({ name: e.name, startNs: e.ts_ns, endNs: e.ts_ns + e.dur_ns, depth: stack.length });
      } else if (e.kind === 'begin') {
        stack.push({ name: e.name, startNs: e.ts_ns, depth: stack.length });
      } else {
        let k = stack.length - 1;
        while (k >= 0 && stack[k].name !== e.name) k--;
        if (k < 0) {
          notes.push(`end "${e.name}" at ${e.ts_ns} ns matches no open begin`);
          continue;
        }
        while (stack.length > k) {
          const f = stack.pop();
          if (stack.length > k) notes.push(`"${f.name}" (begun ${f.startNs} ns) left open when "${e.name}" ended at ${e.ts_ns} ns: closed there`);
          slices.push({ name: f.name, startNs: f.startNs, endNs: e.ts_ns, depth: f.depth });
        }
      }
    }
    while (stack.length) {
      const f = stack.pop();
      notes.push(`"${f.name}" (begun ${f.startNs} ns) never ends: closed at the track's last time ${maxNs} ns`);
      slices.push({ name: f.name, startNs: f.startNs, endNs: maxNs, depth: f.depth, openAtEnd: true });
    }
    // A slice of zero duration is written as an instant (speedscope would draw nothing of
    // it); speedscope rebases a thread on its earliest drawn slice.
    const drawn = slices.filter((s) => s.endNs > s.startNs);
    const zero = slices.length - drawn.length;
    if (zero) notes.push(`${zero} zero-duration slice(s): instants in the export, not drawn`);
    if (drawn.length) minNs = drawn.reduce((m, s) => (s.startNs < m ? s.startNs : m), drawn[0].startNs);
    out.set(key, { track: t.track, trackName: t.trackName, minNs, maxNs, slices: drawn, notes });
  }
  return out;
}

// The export's times, exact: "ts" (µs, three decimals) as BigInt ns, read from the text.
function tsNs(line) {
  const m = /"ts":(-?)(\d+)(?:\.(\d{1,3}))?[,}]/.exec(line);
  if (!m) return null;
  const v = BigInt(m[2]) * 1000n + BigInt((m[3] || '0').padEnd(3, '0'));
  return m[1] ? -v : v;
}

// The export's events, one per line, with ts_ns (BigInt ns since the time base).
function exportEvents(chromeText) {
  const out = [];
  for (const line of chromeText.split('\n')) {
    const t = line.trim().replace(/,$/, '');
    if (!t.startsWith('{"name"')) continue;
    const e = JSON.parse(t);
    e.ts_ns = tsNs(t);
    out.push(e);
  }
  return out;
}

// threadTids maps the export's thread names (thread_name metadata) to their tids.
function threadTids(evs) {
  const m = new Map();
  for (const e of evs) if (e.ph === 'M' && e.name === 'thread_name') m.set(e.args.name, `${e.tid}`);
  return m;
}

function trackOf(trackName, slices, notes) {
  const minNs = slices.reduce((m, s) => (m === null || s.startNs < m ? s.startNs : m), null);
  const maxNs = slices.reduce((m, s) => (m === null || s.endNs > m ? s.endNs : m), null);
  return { trackName, minNs, maxNs, slices, notes };
}

// expectedFromGenerator: the slices ctfcalls scheduled (NAME.slices.json: per thread, ns as
// decimal strings), keyed by the thread's tid; each thread is named as speedscope must name its
// profile ("app (pid 1234), app-io (tid 1235)": the export's process_name and thread_name, its
// pid and tid), which compare checks. Times relative to the export's time base
// (otherData.time_base_ns), so that speedscope's µs compare.
function expectedFromGenerator(file, evs, chromeText) {
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  const base = BigInt(/"time_base_ns":"(-?\d+)"/.exec(chromeText)[1]);
  const out = new Map();
  for (const [name, list] of Object.entries(doc.threads)) {
    const slices = list.map((s) => ({ name: s.name, depth: s.depth, startNs: BigInt(s.begin_ns) - base, endNs: BigInt(s.end_ns) - base }));
    const m = /tid (\d+)\)$/.exec(name);
    out.set(m ? m[1] : `no tid in "${name}"`, { ...trackOf(name, slices, []), profileName: name });
  }
  return out;
}

// expectedFromExport: the slices of the export's B/E (and X) events per thread, at their exact
// ts: what a viewer must draw of the file.
function expectedFromExport(evs) {
  const per = new Map();
  for (const e of evs) {
    if (!['B', 'E', 'X'].includes(e.ph)) continue;
    const key = `${e.tid}`;
    if (!per.has(key)) per.set(key, { stack: [], slices: [] });
    const t = per.get(key);
    if (e.ph === 'X') t.slices.push({ name: e.name, depth: t.stack.length, startNs: e.ts_ns, endNs: e.ts_ns + BigInt(Math.round(e.dur * 1000)) });
    else if (e.ph === 'B') t.stack.push({ name: e.name, depth: t.stack.length, startNs: e.ts_ns });
    else {
      const b = t.stack.pop();
      if (b) t.slices.push({ ...b, endNs: e.ts_ns });
    }
  }
  const names = threadTids(evs);
  const byTid = new Map([...names].map(([n, tid]) => [tid, n]));
  const out = new Map();
  for (const [key, t] of per) out.set(key, trackOf(byTid.get(key) || key, t.slices.filter((s) => s.endNs > s.startNs), []));
  return out;
}

// ---------- what the file says: static checks of the Chrome JSON ----------

function fileChecks(chromeText) {
  const doc = JSON.parse(chromeText);
  const evs = Array.isArray(doc) ? doc : doc.traceEvents;
  const per = new Map();
  const r = { events: evs.length, byPh: {}, unnamedEnds: 0, unbalanced: [], backwards: 0, counters: {} };
  for (const e of evs) {
    r.byPh[e.ph] = (r.byPh[e.ph] || 0) + 1;
    if (e.ph === 'C') r.counters[e.name] = (r.counters[e.name] || 0) + 1;
    if (!['B', 'E', 'X'].includes(e.ph)) continue;
    const key = `${e.pid}:${e.tid}`;
    if (!per.has(key)) per.set(key, { stack: [], lastTs: -Infinity });
    const t = per.get(key);
    if (e.ts < t.lastTs) r.backwards++;
    t.lastTs = Math.max(t.lastTs, e.ts);
    if (e.ph === 'B') t.stack.push(e.name);
    if (e.ph === 'E') {
      if (e.name === undefined || e.name === '') r.unnamedEnds++;
      const top = t.stack.pop();
      if (top === undefined) r.unbalanced.push(`${key}: E "${e.name}" at ts ${e.ts} with nothing open`);
      else if (e.name !== undefined && e.name !== top) r.unbalanced.push(`${key}: E "${e.name}" at ts ${e.ts} closes "${top}"`);
    }
  }
  for (const [key, t] of per) if (t.stack.length) r.unbalanced.push(`${key}: ${t.stack.length} B without E (${t.stack.join(', ')})`);
  return r;
}

// ---------- what speedscope shows: slices from its exported profile ----------

function baseName(frameName) {
  // speedscope names a Chrome frame "NAME {args JSON}".
  const i = frameName.indexOf(' {');
  return i < 0 ? frameName : frameName.slice(0, i);
}

function seenSlices(speedscopeDoc) {
  const frames = speedscopeDoc.shared.frames;
  const out = new Map();
  for (const p of speedscopeDoc.profiles) {
    const m = /tid (\d+)\)$/.exec(p.name);
    const key = m ? m[1] : p.name;
    const slices = [];
    const stack = [];
    if (p.type !== 'evented') throw new Error(`profile ${p.name}: type ${p.type}, want evented`);
    for (const ev of p.events) {
      if (ev.type === 'O') stack.push({ frame: ev.frame, at: ev.at, depth: stack.length });
      else {
        const f = stack.pop();
        if (ev.at > f.at) slices.push({ name: baseName(frames[f.frame].name), start: f.at, end: ev.at, depth: f.depth });
      }
    }
    out.set(key, { name: p.name, unit: p.unit, startValue: p.startValue, endValue: p.endValue, slices });
  }
  return out;
}

// framesPerName counts, per thread (speedscope profile; its sandwich view shows one), the frames
// of each base name: more than one means the sandwich view lists the function or scope several
// times (once per distinct args). Returns [thread: name, frames] for those.
function framesPerName(speedscopeDoc) {
  const out = [];
  for (const p of speedscopeDoc.profiles) {
    const n = new Map();
    for (const ev of p.events) {
      const name = baseName(speedscopeDoc.shared.frames[ev.frame].name);
      if (!n.has(name)) n.set(name, new Set());
      n.get(name).add(ev.frame);
    }
    for (const [name, fr] of n) if (fr.size > 1) out.push([`${p.name}: ${name}`, fr.size]);
  }
  return out;
}

function compare(expected, seen) {
  const tol = 0.0005; // µs: half a nanosecond
  const res = { expected: 0, seen: 0, matched: 0, missing: [], extra: [], misnamed: [], toEnd: 0, tracks: [] };
  const keys = new Set([...expected.keys(), ...seen.keys()]);
  for (const key of [...keys].sort()) {
    const ex = expected.get(key);
    const se = seen.get(key);
    const exUs = ex ? ex.slices.map((s) => ({ ...s, start: Number(s.startNs - ex.minNs) / 1000, end: Number(s.endNs - ex.minNs) / 1000 })) : [];
    const seS = se ? se.slices.slice() : [];
    res.expected += exUs.length;
    res.seen += seS.length;
    const used = new Array(seS.length).fill(false);
    let matched = 0;
    for (const s of exUs) {
      const j = seS.findIndex((t, i) => !used[i] && t.name === s.name && t.depth === s.depth && Math.abs(t.start - s.start) <= tol && Math.abs(t.end - s.end) <= tol);
      if (j >= 0) { used[j] = true; matched++; } else res.missing.push(`track ${key}: expected ${fmtSlice(s)}`);
    }
    seS.forEach((t, i) => {
      if (used[i]) return;
      res.extra.push(`track ${key}: speedscope shows ${fmtSlice(t)}`);
    });
    // Slices that speedscope runs to the end of the thread's profile while the trace ends them earlier.
    if (se) {
      for (const t of seS) {
        if (Math.abs(t.end - se.endValue) > tol) continue;
        const want = exUs.find((s) => s.name === t.name && Math.abs(s.start - t.start) <= tol);
        if (want && Math.abs(want.end - t.end) > tol) res.toEnd++;
      }
    }
    // The generator's cases say how speedscope must name the thread.
    if (ex && ex.profileName && (!se || se.name !== ex.profileName)) {
      res.misnamed.push(`track ${key}: speedscope names it ${se ? `"${se.name}"` : 'nothing (no profile)'}, want "${ex.profileName}"`);
    }
    res.matched += matched;
    res.tracks.push({ key, name: se ? se.name : ex.trackName, expected: exUs.length, seen: seS.length, matched, notes: ex ? ex.notes : [] });
  }
  return res;
}

function fmtSlice(s) {
  return `"${s.name}" depth ${s.depth} ${s.start.toFixed(3)}..${s.end.toFixed(3)} µs${s.openAtEnd ? ' (never ended in the trace)' : ''}`;
}

// ---------- server and browser ----------

function serve() {
  const roots = { '/speedscope/': speedscopeDir, '/files/': opt.out };
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png', '.woff2': 'font/woff2' };
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    for (const [prefix, root] of Object.entries(roots)) {
      if (!url.startsWith(prefix)) continue;
      const file = path.join(root, path.normalize(url.slice(prefix.length) || 'index.html'));
      if (!file.startsWith(root)) break;
      fs.readFile(file, (err, data) => {
        if (err) { res.writeHead(404); res.end(); return; }
        res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
        res.end(data);
      });
      return;
    }
    res.writeHead(404);
    res.end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function view(browser, base, c) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 700 }, acceptDownloads: true });
  const page = await context.newPage();
  const warnings = [];
  const errors = [];
  page.on('console', (m) => {
    // Chromium's own GL driver messages are not speedscope's.
    if ((m.type() === 'warning' || m.type() === 'error') && !/GL Driver Message/.test(m.text())) warnings.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', (d) => { errors.push(`dialog: ${d.message()}`); d.dismiss().catch(() => {}); });
  const url = `${base}/speedscope/index.html#profileURL=${encodeURIComponent(`${base}/files/${c.name}.json`)}`;
  await page.goto(url);
  let loaded = true;
  try {
    await page.waitForFunction(() => / - speedscope$/.test(document.title), null, { timeout: c.big ? 180000 : 30000 });
  } catch {
    loaded = false;
  }
  const bodyText = (await page.textContent('body')) || '';
  const shots = [];
  let speedscopeDoc = null;
  if (loaded) {
    await page.waitForTimeout(500);
    if (opt.screenshots) {
      // One screenshot per thread: speedscope's "n" key moves to the next profile of the group.
      // The toolbar names the thread shown: "NAME (pid P, tid T) (i/n)".
      const shown = async () => {
        const m = /([^\n]*\(pid [^)]*\)) \((\d+)\/(\d+)\)/.exec((await page.textContent('body')) || '');
        return m ? { name: m[1].replace(/^.*(Sandwich)/, ''), i: +m[2], n: +m[3] } : { name: '(one thread)', i: 1, n: 1 };
      };
      for (let k = 0; k < (c.big ? 1 : 8); k++) {
        const s = await shown();
        const file = path.join(opt.shots, `${c.name}-${s.i}.png`);
        await page.screenshot({ path: file });
        shots.push(`${file} (${s.name})`);
        if (s.i >= s.n) break;
        await page.keyboard.press('n');
        await page.waitForTimeout(300);
      }
    }
    if (opt.screenshots) {
      // The sandwich view of the thread shown last (speedscope's "3" key): one row per frame.
      await page.keyboard.press('3');
      await page.waitForTimeout(500);
      const file = path.join(opt.shots, `${c.name}-sandwich.png`);
      await page.screenshot({ path: file });
      shots.push(`${file} (sandwich view)`);
      await page.keyboard.press('1');
      await page.waitForTimeout(300);
    }
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByText('Export', { exact: false }).first().click()]);
    const saved = path.join(opt.out, `${c.name}.speedscope.json`);
    await dl.saveAs(saved);
    speedscopeDoc = JSON.parse(fs.readFileSync(saved, 'utf8'));
  } else if (opt.screenshots) {
    const file = path.join(opt.shots, `${c.name}-0.png`);
    await page.screenshot({ path: file });
    shots.push(`${file} (${await page.title()})`);
  }
  await context.close();
  return { loaded, bodyText: bodyText.slice(0, 300), warnings, errors, shots, speedscopeDoc };
}

function summarizeWarnings(ws) {
  const n = { refusedEnd: 0, endedOther: 0, openAtEnd: 0, emptyStack: 0, other: 0 };
  for (const w of ws) {
    if (/Doing nothing instead/.test(w) && /stack was empty/.test(w)) n.emptyStack++;
    else if (/Doing nothing instead/.test(w)) n.refusedEnd++;
    else if (/instead\.$/.test(w) && /Ending/.test(w)) n.endedOther++;
    else if (/still open at end of profile/.test(w)) n.openAtEnd++;
    else n.other++;
  }
  return n;
}

// ---------- main ----------

const browserVersion = spawnSync(opt.chromium, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`speedscope ${speedscopeVersion} (${speedscopeDir})`);
console.log(`${browserVersion} (${opt.chromium}), playwright-core ${JSON.parse(fs.readFileSync(depsRequire.resolve('playwright-core/package.json'), 'utf8')).version}`);
console.log(`tracecat ${opt.tracecat}${opt.oldTracecat ? `, old tracecat ${opt.oldTracecat}` : ''}`);
console.log(`vectors ${V}\n`);

const server = await serve();
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({
  executablePath: opt.chromium,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
  headless: true,
});

let failed = 0;
try {
  for (const c of cases) {
    const out = path.join(opt.out, `${c.name}.json`);
    execFileSync(c.bin || opt.tracecat, ['convert', '--to', 'chrome', c.input, out], { stdio: ['ignore', 'ignore', 'inherit'] });
    // CTF: dump --json has no call slices (events.WithCTFCallSlices is the export's alone).
    const dump = c.ctf ? '' : execFileSync(opt.tracecat, ['dump', '--json', c.input], { maxBuffer: 1 << 30, encoding: 'utf8' });
    const chromeText = fs.readFileSync(out, 'utf8');
    const evs = c.ctf ? exportEvents(chromeText) : null;
    const expected = c.expectFile ? expectedFromGenerator(c.expectFile, evs, chromeText) : c.fromExport ? expectedFromExport(evs) : expectedSlices(dump);
    const file = fileChecks(chromeText);
    const v = await view(browser, base, c);
    console.log(`== ${c.name}: ${c.ctf ? c.input : path.relative(V, c.input)}${c.bin ? ` (converted by ${c.bin})` : ''}`);
    console.log(`   export: ${file.events} events ${JSON.stringify(file.byPh)}, E without name ${file.unnamedEnds}, B/E problems ${file.unbalanced.length}, B/E/X earlier than one before them on the same thread ${file.backwards}`);
    for (const u of file.unbalanced.slice(0, 5)) console.log(`     ${u}`);
    const nCounterDump = dump.split('\n').filter((l) => l.includes('"kind":"counter"')).length;
    if (nCounterDump || file.byPh.C) console.log(`   counters: dump ${nCounterDump} counter events, export ${file.byPh.C || 0} C events on ${Object.keys(file.counters).length} series (speedscope does not draw counters)`);
    const w = summarizeWarnings(v.warnings);
    for (const x of v.errors.slice(0, 4)) console.log(`     page: ${x.slice(0, 300)}`);
    console.log(`   speedscope: ${v.loaded ? 'loaded' : `did not load: "${v.bodyText.replace(/\s+/g, ' ').trim()}"`}; warnings: end refused ${w.refusedEnd}, ended another frame ${w.endedOther}, closed at end of profile ${w.openAtEnd}, end on empty stack ${w.emptyStack}, other ${w.other}; page errors ${v.errors.length}`);
    for (const x of v.warnings.slice(0, 4)) console.log(`     warn: ${x.slice(0, 200)}`);
    let ok;
    if (v.speedscopeDoc) {
      const seen = seenSlices(v.speedscopeDoc);
      const r = compare(expected, seen);
      // Every track, up to 40; beyond (many-threads: 8 030) those that differ and a count.
      let quiet = 0;
      r.tracks.forEach((t, i) => {
        const same = t.expected === t.seen && t.seen === t.matched && !t.notes.length;
        if (r.tracks.length > 40 && i >= 16 && same) { quiet++; return; }
        console.log(`   track ${t.key} ${t.name}: expected ${t.expected} slices, speedscope ${t.seen}, matching ${t.matched}`);
        for (const n of t.notes.slice(0, 4)) console.log(`     trace: ${n}`);
      });
      if (quiet) console.log(`   (${quiet} more tracks, each: expected = speedscope = matching)`);
      console.log(`   slices: expected ${r.expected}, speedscope ${r.seen}, matching (name, depth, start, end within 0.5 ns) ${r.matched}; run to the end of the profile instead of closing ${r.toEnd}`);
      for (const m of r.missing.slice(0, 6)) console.log(`     missing: ${m}`);
      for (const m of r.extra.slice(0, 6)) console.log(`     extra:   ${m}`);
      for (const m of r.misnamed.slice(0, 6)) console.log(`     misnamed: ${m}`);
      const split = framesPerName(v.speedscopeDoc);
      console.log(`   frames: ${v.speedscopeDoc.shared.frames.length} in all threads, names with more than one frame in a thread ${split.length}${split.length ? ` (${split.slice(0, 4).map(([n, k]) => `${n}: ${k}`).join(', ')})` : ''}`);
      ok = r.matched === r.expected && r.expected === r.seen && file.unnamedEnds === 0 && file.unbalanced.length === 0 && w.refusedEnd + w.openAtEnd + w.emptyStack === 0 && split.length === 0 && v.errors.length === 0;
      if (c.ctf) {
        // The export's B/E counts and names against speedscope's slices and frames.
        const bNames = new Set(evs.filter((e) => e.ph === 'B').map((e) => e.name));
        const fNames = new Set(v.speedscopeDoc.shared.frames.map((f) => baseName(f.name)));
        const threads = new Set(evs.filter((e) => e.ph === 'B').map((e) => e.tid)).size;
        console.log(`   ctf: export B ${file.byPh.B || 0}, E ${file.byPh.E || 0}, i ${file.byPh.i || 0}, ${bNames.size} slice names on ${threads} threads; speedscope ${r.seen} slices, ${fNames.size} frame names, ${v.speedscopeDoc.profiles.length} profiles`);
        // Thread names: speedscope names a profile "PROCESS (pid P), THREAD (tid T)" from the
        // export's process_name and thread_name, "THREAD (pid P, tid T)" without the first,
        // "pid P, tid T" without either; every CTF thread must have its name, and every tid be
        // a 32-bit signed integer (Perfetto, chrome://tracing).
        const profs = v.speedscopeDoc.profiles.map((p) => p.name);
        const unnamed = profs.filter((n) => /^pid \d+, tid \d+$/.test(n));
        const withProcess = profs.filter((n) => /^.+ \(pid \d+\), .+ \(tid \d+\)$/.test(n));
        const wide = evs.filter((e) => e.pid > 2147483647 || e.tid > 2147483647).length;
        console.log(`   names: ${profs.length - unnamed.length} of ${profs.length} profiles name their thread, ${withProcess.length} their process too; events with a pid or tid above 2^31-1: ${wide}; e.g. ${profs.slice(0, 4).map((n) => `"${n}"`).join(', ')}`);
        ok = ok && unnamed.length === 0 && wide === 0 && r.misnamed.length === 0;
        ok = ok && (file.byPh.B || 0) === r.seen && (file.byPh.E || 0) === (file.byPh.B || 0) && bNames.size === fNames.size && [...bNames].every((n) => fNames.has(n)) && r.seen > 0;
      }
    } else {
      // A trace with no slices (CDT: counters only) has nothing for speedscope to draw.
      let exp = 0;
      for (const t of expected.values()) exp += t.slices.length;
      console.log(`   slices: expected ${exp}, speedscope none (no profile)`);
      ok = exp === 0 && file.unbalanced.length === 0;
    }
    for (const s of v.shots) console.log(`   screenshot ${s}`);
    const verdict = ok ? 'PASS' : c.expectFail ? 'FAIL (expected: old tracecat)' : 'FAIL';
    console.log(`   => ${verdict}\n`);
    if (!ok && !c.expectFail) failed++;
  }
} finally {
  await browser.close();
  server.close();
}
console.log(failed ? `${failed} case(s) failed` : 'all cases pass');
process.exit(failed ? 1 : 0);
