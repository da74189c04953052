#!/usr/bin/env python3
"""perf/kube-real.sh's table: emulated against real per preset (medians
over rounds). Usage: kube-real-table.py DIR PRESET...

The emulator records each etcd request under the API request it served
("create pods/binding", "patch pods/status"); kube-apiserver's storage
metrics name the storage operation and resource ("update pods"). The
mapping: a subresource write (binding, status) is an update of its
resource, a patch is an update, and the emulator's own background requests
with no storage metric (event lease grants, health, compaction, counts)
are left out."""
import glob, json, os, statistics, sys

def storage_name(op):
    verb, _, res = op.partition(" ")
    if "(" in res or res == "health" or verb in ("compact", "count"):
        return None
    base, _, _sub = res.partition("/")
    if verb in ("patch",) or (verb == "create" and _sub == "binding"):
        verb = "update"
    return f"{verb} {base}"

def load(path):
    d = json.load(open(path))
    r = d["runs"][0]
    k = r.get("kube") or {}
    ops = {}
    if k.get("etcd_requests"):
        for o in k["etcd_requests"]:
            ops[f'{o["operation"]} {o["resource"]}'] = o["requests"]
    else:
        for o in r.get("ops", []):
            n = storage_name(o["name"])
            if n:
                ops[n] = ops.get(n, 0) + o["requests"]
    sent = sum(m["summary"].get("watch_events_sent", 0) for m in (r.get("server") or {}).get("members", []))
    return k.get("time_to_ready_seconds", 0), ops, sent, r.get("machine_cpu_cores", 0)

def med(xs):
    xs = [x for x in xs if x]
    return statistics.median(xs) if xs else 0

def main():
    d, presets = sys.argv[1], sys.argv[2:]
    ready = {}
    for p in presets:
        runs = {kind: [load(f) for f in sorted(glob.glob(os.path.join(d, f"{p}-r*-{kind}.json")))] for kind in ("emulated", "real")}
        if not runs["real"] or not runs["emulated"]:
            continue
        tr, te = med([x[0] for x in runs["real"]]), med([x[0] for x in runs["emulated"]])
        ready[p] = (tr, te)
        cpu = med([x[3] for x in runs["real"]])
        print(f"\n### {p}: time to every pod Ready: real {tr:.1f} s, emulated {te:.1f} s ({(te/tr-1)*100:+.0f}%, bar ±20%); machine CPU during the real run {cpu:.2f} cores\n")
        wr, we = med([x[2] for x in runs["real"]]), med([x[2] for x in runs["emulated"]])
        if wr:
            print(f"watch events the members sent (etcd_debugging_mvcc_events_total): real {wr:.0f}, emulated {we:.0f} ({(we/wr-1)*100:+.0f}%)\n")
        print("| request (storage operation) | real | emulated | emulated/real | within ±25% |")
        print("|---|---|---|---|---|")
        names = set()
        for x in runs["real"] + runs["emulated"]:
            names |= set(x[1])
        rows = []
        for n in names:
            r = med([x[1].get(n, 0) for x in runs["real"]])
            e = med([x[1].get(n, 0) for x in runs["emulated"]])
            if r >= 100 or e >= 100:
                rows.append((n, r, e))
        for n, r, e in sorted(rows, key=lambda t: -max(t[1], t[2])):
            ratio = f"{e/r:.2f}" if r else "-"
            ok = "yes" if r >= 100 and abs(e - r) <= 0.25 * r else ("n/a (<100 real)" if r < 100 else "no")
            print(f"| {n} | {r:.0f} | {e:.0f} | {ratio} | {ok} |")
    if len(ready) >= 2:
        first, last = presets[0], presets[-1]
        if first in ready and last in ready:
            dr, de = ready[last][0] - ready[first][0], ready[last][1] - ready[first][1]
            print(f"\nseconds added by distance ({last} minus {first}): real {dr:+.1f} s, emulated {de:+.1f} s")

main()
