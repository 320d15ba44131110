// check.mjs: reads tracecat's Parquet exports back with a second engine —
// Polars (npm nodejs-polars: its own Parquet reader and SQL engine, in
// Rust; not DuckDB's C++ reader) — runs the queries DuckDB answered
// (answers.json, written by parquetexport/duckdbtest's TestSecondEngine)
// and checks it gets the same answers. Exit 0 when every answer agrees.
//
//   node tools/parquetcheck/check.mjs [--deps DIR] ANSWERS.json
//
// DIR holds node_modules/nodejs-polars (default $PARQUETCHECK_DEPS or
// /tmp/parquetcheck); tools/parquetcheck/run.sh installs it and runs the
// whole check.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
let deps = process.env.PARQUETCHECK_DEPS || '/tmp/parquetcheck';
let answersPath;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--deps') deps = args[++i];
  else answersPath = args[i];
}
if (!answersPath) {
  console.error('usage: node check.mjs [--deps DIR] ANSWERS.json');
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(deps), 'package.json'));
const pl = require('nodejs-polars');
const polarsVersion = require('nodejs-polars/package.json').version;

// files lists the Parquet files under dir.
function files(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (e.name.endsWith('.parquet')) out.push(p);
  }
  return out.sort();
}

// load reads every file of a dataset into one DataFrame, columns by name
// (as DuckDB's union_by_name), with the Hive partition column format from
// the folder name when hive.
function load(set) {
  const frames = [];
  for (const f of files(set.path)) {
    let df = pl.readParquet(f);
    if (set.hive) {
      const m = /format=([^/]+)/.exec(path.relative(set.path, f));
      if (m && !df.columns.includes('format')) df = df.withColumn(pl.lit(m[1]).alias('format'));
    }
    frames.push(df);
  }
  return frames.length === 1 ? frames[0] : pl.concat(frames, { how: 'diagonal' });
}

// str renders a Polars value as DuckDB's answers hold it.
function str(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 53 ? String(v) : String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof Uint8Array || Buffer.isBuffer(v)) return Buffer.from(v).toString('latin1');
  return String(v);
}

const intRe = /^-?\d+$/;
// same compares two values: integers exactly (as text), other numbers to
// 1e-9 relative, text exactly.
function same(a, b) {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (intRe.test(a) && intRe.test(b)) return false;
  const x = Number(a), y = Number(b);
  if (Number.isFinite(x) && Number.isFinite(y)) return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x));
  return false;
}

const key = (row) => JSON.stringify(row);
const sortRows = (rows) => rows.map((r) => r.map((v) => (v === null ? null : String(v)))).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

const sets = JSON.parse(fs.readFileSync(answersPath, 'utf8'));
let failures = 0, compared = 0;
console.log(`second engine: nodejs-polars ${polarsVersion} (Polars' Parquet reader and SQL), against DuckDB's answers in ${answersPath}`);
for (const set of sets) {
  const df = load(set);
  const ctx = pl.SQLContext({ t: df });
  console.log(`dataset ${set.name}: ${files(set.path).length} files, ${df.height} rows, ${df.width} columns`);
  for (const q of set.queries) {
    if (q.skipped || (q.needs || []).some((c) => !df.columns.includes(c))) {
      const duckSkipped = !!q.skipped;
      const polarsSkipped = (q.needs || []).some((c) => !df.columns.includes(c));
      if (duckSkipped !== polarsSkipped) {
        console.log(`  FAIL ${q.name}: columns ${q.needs} seen by one engine only`);
        failures++;
      } else {
        console.log(`  skip ${q.name}: no column ${q.needs.join(', ')}`);
      }
      continue;
    }
    let got;
    try {
      const res = ctx.execute(q.sql, { eager: true });
      got = res.rows().map((r) => r.map(str));
    } catch (e) {
      console.log(`  FAIL ${q.name}: Polars: ${e.message.split('\n')[0]}`);
      failures++;
      continue;
    }
    const want = sortRows(q.rows);
    got = sortRows(got);
    let diff = null;
    if (got.length !== want.length) diff = `${got.length} rows, DuckDB ${want.length}`;
    for (let i = 0; !diff && i < want.length; i++) {
      for (let j = 0; j < want[i].length; j++) {
        if (!same(got[i][j], want[i][j])) {
          diff = `row ${i} column ${q.columns[j]}: ${got[i][j]}, DuckDB ${want[i][j]} (row ${key(want[i])})`;
          break;
        }
      }
    }
    compared++;
    if (diff) {
      failures++;
      console.log(`  FAIL ${q.name}: ${diff}`);
    } else {
      const sample = want.length && want.length <= 3 ? ' ' + want.map((r) => r.join(' | ')).join('; ') : '';
      console.log(`  ok   ${q.name}: ${want.length} rows agree${sample}`);
    }
  }
}
console.log(failures ? `${failures} of ${compared} answers differ` : `all ${compared} answers agree`);
process.exit(failures ? 1 : 0);
