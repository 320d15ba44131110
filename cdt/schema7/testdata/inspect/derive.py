#!/usr/bin/env python3
"""Derives the expected objects of the inspection commands (tick, entity,
query, focus) from the reference vectors' decoded JSON, independently of the
Go code: run it from this folder with the vectors folder as argument

    python3 derive.py ../../../../../shared/vectors/cdt

It writes one <name>.json per case (json.dumps(indent=2), the form the
reference's --json-out writes). The semantics follow the reference notes
(shared/reference/cdt.md §7.3): tick summaries, entity histories, the query
grammar with its coercions, and focus reports whose channel details are the
ones the reference's diff report holds for the same tick."""

import ast
import json
import os
import re
import sys

POOLS = ("creatures", "projectiles", "secondary_projectiles", "bonuses")


def load(vec, name):
    with open(os.path.join(vec, name + ".decoded.json")) as f:
        return json.load(f)["ticks"]


def summary(row):
    ch = row["channels"]
    ev = ch["checkpoint"]["events"]
    counts = {"hit_count": ev["hit_count"], "pickup_count": ev["pickup_count"], "sfx_count": ev["sfx_count"]}
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:8]
    return {
        "tick_index": row["tick_index"],
        "elapsed_ms": row["elapsed_ms"],
        "dt_ms_i32": row["dt_ms_i32"],
        "mode_id": row["mode_id"],
        "phase_markers": list(row["phase_markers"]),
        "checkpoint": ch["checkpoint"],
        "entity_counts": {k: len(ch["entity_samples"][k]) for k in POOLS},
        "rng_stream_count": len(ch["rng_stream"]),
        "timing_samples_count": len(ch["timing_samples"]),
        "event_count_total": sum(counts.values()),
        "top_event_types": [f"{k}:{v}" for k, v in top],
    }


def first_row(ticks, n):
    # the footer blocks of every vector are contiguous and sorted, so the
    # reference's first-block-then-first-row lookup is the first row with n
    for row in ticks:
        if row["tick_index"] == n:
            return row
    return None


def tick(ticks, n):
    return summary(first_row(ticks, n))


def entity(ticks, uid, lo=None, hi=None):
    samples = []
    for row in ticks:
        t = row["tick_index"]
        if (lo is not None and t < lo) or (hi is not None and t > hi):
            continue
        for kind in POOLS:
            for item in row["channels"]["entity_samples"][kind]:
                if item["uid"] == uid:
                    s = dict(item)
                    s["tick_index"] = t
                    samples.append(s)
    assert samples, (uid, lo, hi)
    return {
        "entity_uid": uid,
        "pool_kind": samples[0]["pool_kind"],
        "spawn_tick": samples[0]["tick_index"],
        "despawn_tick": samples[-1]["tick_index"],
        "samples": samples,
    }


SCOPE = re.compile(r"^\s*(ticks|entities)\s+where\s+(.+?)\s*$")
COND = re.compile(r"^\s*(.+?)\s*(==|!=|>=|<=|>|<)\s*(.+?)\s*$")


def operand(tok):
    raw = tok.strip()
    if raw.startswith("prev(") and raw.endswith(")"):
        return ("prev", raw[5:-1].strip())
    low = raw.lower()
    if low in ("true", "false", "none", "null"):
        return ("lit", {"true": True, "false": False}.get(low))
    try:
        v = ast.literal_eval(raw)
    except (SyntaxError, ValueError):
        return ("field", raw)
    return ("lit", v) if v != raw else ("field", raw)


def resolve(ctx, path):
    cur = ctx
    for part in path.split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(part)
    return cur


def num(v):
    if isinstance(v, bool):
        return float(int(v))
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def cmp(l, op, r):
    a, b = num(l), num(r)
    if a is not None and b is not None:
        l, r = a, b
    elif op in ("==", "!="):
        pass
    else:
        l, r = str(l), str(r)
    return {"==": l == r, "!=": l != r, ">=": l >= r if op == ">=" else None,
            "<=": l <= r if op == "<=" else None, ">": l > r if op == ">" else None,
            "<": l < r if op == "<" else None}[op]


def value(o, cur, prev):
    kind, v = o
    if kind == "lit":
        return v
    if kind == "field":
        return resolve(cur, v)
    return None if prev is None else resolve(prev, v)


def query(ticks, expr, limit=256):
    scope, cond = SCOPE.match(expr).groups()
    l, op, r = COND.match(cond).groups()
    lo, ro = operand(l), operand(r)
    limit = max(1, limit)
    rows, n = [], 0
    if scope == "ticks":
        prev = None
        for row in ticks:
            ctx = summary(row)
            if cmp(value(lo, ctx, prev), op, value(ro, ctx, prev)):
                n += 1
                if len(rows) < limit:
                    rows.append(ctx)
            prev = ctx
    else:
        for row in ticks:
            for kind in POOLS:
                for item in row["channels"]["entity_samples"][kind]:
                    ctx = {"tick_index": row["tick_index"], **item}
                    if cmp(value(lo, ctx, None), op, value(ro, ctx, None)):
                        n += 1
                        if len(rows) < limit:
                            rows.append(ctx)
    return {"scope": scope, "expression": expr, "limit": limit, "match_count": n,
            "truncated": n > len(rows), "rows": rows}


def focus(golden, candidate, n, diff_report=None):
    e, a = first_row(golden, n), first_row(candidate, n)
    details = {}
    if diff_report is not None:
        m = diff_report["mismatch"]
        assert m["kind"] == "tick_mismatch" and m["tick_index"] == n
        for c in m["detail"]["mismatches"]:
            details[c["channel"]] = c["detail"]
    else:
        assert e["channels"] == a["channels"], "only equal ticks or the diff report's tick"
    presence, pres_div = {}, False
    for kind in POOLS:
        eu = {x["uid"] for x in e["channels"]["entity_samples"][kind]}
        au = {x["uid"] for x in a["channels"]["entity_samples"][kind]}
        missing, extra = sorted(eu - au), sorted(au - eu)
        pres_div |= bool(missing or extra or len(eu) != len(au))
        presence[kind] = {"expected_count": len(eu), "candidate_count": len(au),
                          "missing_uids": missing[:32], "extra_uids": extra[:32]}
    cp = details.get("checkpoint")
    rng = dict(details.get("rng_stream") or {})
    rng["ok"] = "rng_stream" not in details
    return {
        "tick_index": n,
        "diverged": bool(details) or pres_div,
        "checkpoint_diff_count": 0 if cp is None else cp["diff_count"],
        "checkpoint_diff": None if cp is None else {"payload": cp["payload"], "pretty": cp["pretty"]},
        "rng_stream": rng,
        "entity_presence": presence,
        "entity_samples": {"ok": "entity_samples" not in details, "detail": details.get("entity_samples")},
        "sim_state": {"ok": "sim_state" not in details, "detail": details.get("sim_state")},
        "timing_samples": {"ok": "timing_samples" not in details,
                           "expected_count": len(e["channels"]["timing_samples"]),
                           "candidate_count": len(a["channels"]["timing_samples"]),
                           "detail": details.get("timing_samples")},
    }


def main():
    vec = sys.argv[1]
    small, A, B = load(vec, "v7_small_300ticks"), load(vec, "v7_diverge_A"), load(vec, "v7_diverge_B")
    with open(os.path.join(vec, "diff_A_vs_B.json")) as f:
        diff_ab = json.load(f)
    cases = {
        "tick_small_0": tick(small, 0),
        "tick_small_299": tick(small, 299),
        "tick_A_237": tick(A, 237),
        "tick_B_237": tick(B, 237),
        "entity_small_3_100..110": entity(small, 3, 100, 110),
        "entity_small_21_..4": entity(small, 21, None, 4),
        "entity_B_1_235..238": entity(B, 1, 235, 238),
        "entity_A_11_390..": entity(A, 11, 390, None),
        "entity_A_4_397": entity(A, 4, 397, 397),
        "focus_A_B_237": focus(A, B, 237, diff_ab),
        "focus_A_B_100": focus(A, B, 100),
        "focus_A_A_399": focus(A, A, 399),
        "focus_B_B_300": focus(B, B, 300),
    }
    queries = [
        ("small", small, "ticks where checkpoint.kills > prev(checkpoint.kills)", 3),
        ("small", small, "ticks where checkpoint.score_xp != prev(checkpoint.score_xp)", 2),
        ("small", small, "ticks where rng_stream_count >= 3", 2),
        ("small", small, "ticks where phase_markers == []", 1),
        ("small", small, "ticks where entity_counts.creatures == '4'", 2),
        ("small", small, "ticks where checkpoint.perk.choices_dirty == true", 2),
        ("small", small, "ticks where checkpoint.tutorial == none", 1),
        ("small", small, "ticks where checkpoint.bonus_timers.4 > 4990", 2),
        ("small", small, "ticks where nosuch.path > 0", 1),
        ("small", small, "entities where pool_kind == 'bonus'", 2),
        ("small", small, "entities where hp < 14.5", 3),
        ("small", small, "entities where pos.x >= 600.5", 2),
        ("small", small, "entities where active != 'yes'", 1),
        ("small", small, "entities where uid != prev(uid)", 1),
        ("small", small, "entities where tick_index<=1", 3),
        ("A", A, "ticks where elapsed_ms >= 6600", 4),
        ("B", B, "ticks where rng_stream_count > prev(rng_stream_count)", 2),
        ("B", B, "entities where uid == 1", 2),
    ]
    for i, (name, ticks, expr, limit) in enumerate(queries):
        cases[f"query_{name}_{i:02d}"] = query(ticks, expr, limit)
    for name, obj in cases.items():
        with open(name + ".json", "w") as f:
            f.write(json.dumps(obj, indent=2))
            f.write("\n")


if __name__ == "__main__":
    main()
