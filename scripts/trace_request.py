#!/usr/bin/env python3
"""Per-request call, lock, atomic and actor-hop counts of a warm
PUT /cart/items/{id} and POST /checkout, from callgrind dumps of the real
server (run by scripts/trace-request.sh, which says how it counts).

  trace_request.py drive PORT PID TOKEN PRODUCT N WARM OUT_DIR
      warms the server up, then dumps three callgrind phases into OUT_DIR:
      idle (no request), put (N x PUT of a held line), checkout
      (N x (PUT of one line + POST /checkout)); writes OUT_DIR/phases.json.
  trace_request.py tally OUT_DIR
      prints the table per request (put; checkout = checkout phase - put phase).
"""
import glob
import http.client
import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict

# Targets above HTTPServer (Package.swift): what the trace counts.
ABOVE = {"Presentation", "Contexts", "UserClient", "CatalogClient", "PricingClient", "CartClient",
         "OrderClient", "PaymentClient", "WishlistClient", "Capabilities", "Axiom", "Domain", "AxiomServer"}
HOPS = re.compile(r"^(swift_task_switch|swift_task_enqueue\w*|swift_defaultActor_enqueue\w*|swift_job_run)$")


# ---------------------------------------------------------------- driving

def callgrind(pid, *command):
    subprocess.run(["callgrind_control", *command, str(pid)], check=True, stdout=subprocess.DEVNULL)


def dump(pid, directory, known):
    callgrind(pid, "-d")
    for _ in range(600):
        new = sorted(set(glob.glob(os.path.join(directory, "callgrind.out*"))) - known)
        if new:
            time.sleep(0.5)
            known.update(new)
            return new[-1]
        time.sleep(0.1)
    sys.exit("trace: callgrind wrote no dump")


class Shopper:
    def __init__(self, port, token, product):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        self.headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
        self.product = product
        self.quantity = 1

    def send(self, method, path, body, expect):
        self.connection.request(method, path, body=body, headers=self.headers)
        response = self.connection.getresponse()
        text = response.read()
        if response.status != expect:
            sys.exit(f"trace: {method} {path} answered {response.status}: {text[:300]!r}")

    def put(self, quantity=None):
        # A held line changed each time (1, 2, 3, 1, ...): a real write, not a no-op.
        self.quantity = quantity or self.quantity % 3 + 1
        self.send("PUT", f"/cart/items/{self.product}", json.dumps({"quantity": self.quantity}), 200)

    def checkout(self):
        self.put(1)
        self.send("POST", "/checkout", None, 201)


def drive(port, pid, token, product, count, warm, directory):
    pid, count, warm = int(pid), int(count), int(warm)
    shopper = Shopper(int(port), token, product)
    for _ in range(warm):
        shopper.checkout()
        shopper.put()
    callgrind(pid, "-i", "on")
    for _ in range(3):
        shopper.checkout()
        shopper.put()
    known = set(glob.glob(os.path.join(directory, "callgrind.out*")))
    phases = {}

    def phase(name, body):
        callgrind(pid, "-z")
        started = time.monotonic()
        body()
        elapsed = time.monotonic() - started
        phases[name] = {"file": dump(pid, directory, known), "seconds": elapsed, "requests": count}

    def puts():
        for _ in range(count):
            shopper.put()

    def checkouts():
        for _ in range(count):
            shopper.checkout()

    phase("put", puts)
    phase("checkout", checkouts)
    shopper.put()
    phase("idle", lambda: time.sleep(max(phases["put"]["seconds"], phases["checkout"]["seconds"])))
    with open(os.path.join(directory, "phases.json"), "w") as out:
        json.dump(phases, out, indent=1)


# ---------------------------------------------------------------- reading a dump

# The log output's flush timer (LogOutput's PendingBatches.drainAll): work of
# no request, and at valgrind's pace many times a request. Callgrind names a
# function by its callers where told to (fn'caller), so anything run from
# under it is left out by this part of its name.
BACKGROUND = "8drainAll"


def module_of(name, obj):
    """The target a function's work counts for: the Swift module that defines
    its mangled symbol, except for Sharding (the sharded-lock type below
    both HTTPServer and Axiom), whose work counts for its caller's target."""
    parts = [re.sub(r"'\d+$", "", part) for part in name.split("'")]
    module = defining_module(parts[0], obj)
    if module == "Sharding" and len(parts) > 1:
        return defining_module(parts[1], obj)
    return module


def defining_module(name, obj):
    """The Swift module that defines a mangled symbol (its first identifier,
    or the module of the extension it is in); otherwise the object's name."""
    mangled = re.match(r"^_?\$[sS](.*)", name)
    if not mangled:
        base = os.path.basename(obj or "?")
        return "C:" + (base if "axiom-server" not in base else "axiom-server")
    rest = mangled.group(1)
    first = re.match(r"^(\d+)", rest)
    if first:
        length = int(first.group(1))
        return rest[len(first.group(1)):len(first.group(1)) + length]
    for found in re.finditer(r"(\d+)([A-Za-z_]\w*)", rest):
        length = int(found.group(1))
        identifier = found.group(2)[:length]
        if identifier in ABOVE and found.group(2)[length:length + 1] == "E":
            return identifier
    return "Swift"


def read_dump(path):
    """Self cost per function and call counts per (caller, callee)."""
    names, objects = {}, {}
    self_cost = defaultdict(lambda: [0, 0])
    calls = defaultdict(int)
    events = []
    function = callee = None
    obj = callee_obj = None
    in_call = False

    def named(table, value):
        found = re.match(r"^\((\d+)\)(?: (.*))?$", value)
        if not found:
            return value
        if found.group(2) is not None:
            table[found.group(1)] = found.group(2)
        return table.get(found.group(1), "?")

    with open(path, errors="replace") as lines:
        for line in lines:
            line = line.rstrip("\n")
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("ob="):
                obj = named(objects, line[3:])
            elif line.startswith("cob="):
                callee_obj = named(objects, line[4:])
            elif line.startswith("fn="):
                function = (named(names, line[3:]), obj)
                callee_obj = None
            elif line.startswith("cfn="):
                callee = (named(names, line[4:]), callee_obj or obj)
            elif line.startswith("calls="):
                calls[(function, callee)] += int(line[6:].split()[0])
                in_call = True
                callee_obj = None
            elif line and (line[0].isdigit() or line[0] in "+-*"):
                if in_call:
                    in_call = False
                    continue
                parts = line.split()[1:]
                if function is not None:
                    for index, value in enumerate(parts[:2]):
                        self_cost[function][index] += int(value)
    bus = events.index("Ge") if "Ge" in events else None
    if bus != 1:
        # keep Ge in slot 1 whatever the order
        for cost in self_cost.values():
            cost[1] = cost[bus] if bus is not None else 0
    return self_cost, calls


def demangle(symbols):
    symbols = sorted(symbols)
    if not symbols:
        return {}
    out = subprocess.run(["swift", "demangle"], input="\n".join(symbols), capture_output=True, text=True).stdout
    lines = out.split("\n")
    return {symbol: (lines[i] if i < len(lines) else symbol) for i, symbol in enumerate(symbols)}


def tally(directory):
    phases = json.load(open(os.path.join(directory, "phases.json")))
    results = {}
    for phase, info in phases.items():
        results[phase] = measure(*read_dump(os.path.join(directory, os.path.basename(info["file"]))))
    idle_seconds = phases["idle"]["seconds"]
    table = {}
    for phase in ("put", "checkout"):
        scale = phases[phase]["seconds"] / idle_seconds if idle_seconds else 0
        table[phase] = subtract(results[phase], results["idle"], scale, phases[phase]["requests"])
    checkout = subtract(table["checkout"], table["put"], 1, 1)
    report(table["put"], checkout)


def measure(self_cost, calls):
    """Counters of one dump (per dump, not yet per request)."""
    counters = defaultdict(float)
    symbols = {name for (name, _), _ in self_cost.items()} | {c[0] for (_, c) in calls}
    modules = {}
    for (name, obj) in set(self_cost) | {k for pair in calls for k in pair}:
        modules[(name, obj)] = module_of(name, obj)
    lock_sites = defaultdict(int)
    for (caller, callee), count in calls.items():
        if BACKGROUND in caller[0]:
            continue
        caller_module, callee_module = modules[caller], modules[callee]
        bare = re.sub(r"'\d+$", "", callee[0].split("'")[0])
        counters["calls, all"] += count
        if callee_module in ABOVE:
            counters["calls above HTTPServer"] += count
            counters["calls into " + callee_module] += count
            if callee_module == "Contexts":
                counters["context fn " + re.sub(r"'\d+$", "", callee[0])] += count
        if bare == "_swift_stdlib_gettid" and caller_module != "Synchronization":
            # Mutex.withLock is transparent: even in a debug build its lock
            # (which asks the thread's id, then one compare-exchange) is
            # inlined into the caller, and its unlock runs in a `$defer`
            # function of Synchronization's, not counted here.
            counters["Mutex locks, all"] += count
            if caller_module in ABOVE:
                counters["Mutex locks above HTTPServer"] += count
                lock_sites[caller] += count
        if bare in ("pthread_mutex_lock", "pthread_rwlock_wrlock", "pthread_rwlock_rdlock", "sem_wait",
                    "dispatch_sync", "dispatch_semaphore_wait", "pthread_cond_wait"):
            counters["pthread/dispatch locks, all"] += count
            if caller_module in ABOVE:
                counters["pthread/dispatch locks above HTTPServer"] += count
                lock_sites[caller] += count
        if HOPS.match(bare):
            counters["hop " + bare] += count
            counters["actor hops (swift_task_switch)" if bare == "swift_task_switch" else "job enqueues/runs"] += count
    bus_sites = defaultdict(int)
    for function, (_, bus) in self_cost.items():
        if modules[function] in ABOVE and bus and BACKGROUND not in function[0]:
            bus_sites[function] += bus
            counters["bus events above HTTPServer"] += bus
    counters["atomics above HTTPServer (RMW)"] = counters["bus events above HTTPServer"] - counters[
        "Mutex locks above HTTPServer"]
    for site, count in lock_sites.items():
        counters["lock at " + site[0]] += count
    for site, bus in bus_sites.items():
        # lock-prefixed instructions that are not the locks' own two
        counters["atomic at " + site[0]] += bus - lock_sites.get(site, 0)
    return counters


def subtract(a, b, scale, divide):
    keys = set(a) | set(b)
    return {key: (a.get(key, 0) - scale * b.get(key, 0)) / divide for key in keys}


def report(put, checkout):
    def row(label, key):
        print(f"| {label} | {put.get(key, 0):.1f} | {checkout.get(key, 0):.1f} |")

    print("| per request | PUT /cart/items/{id} | POST /checkout |")
    print("|---|---|---|")
    row("calls into targets above HTTPServer", "calls above HTTPServer")
    targets = lambda r: sorted(k[len("calls into "):] for k, v in r.items() if k.startswith("calls into ") and v >= 0.5)
    print(f"| targets above HTTPServer | {len(targets(put))} | {len(targets(checkout))} |")
    contexts = lambda r: sorted({re.search(r"Contexts\.(\w+)", names.get(k[11:], k)).group(1)
                                 for k, v in r.items() if k.startswith("context fn ") and v >= 0.5
                                 and re.search(r"Contexts\.(\w+)", names.get(k[11:], k))})
    symbols = [part for r in (put, checkout) for k in r if k.startswith(("context fn ", "lock at ", "atomic at "))
               for part in k.split(" ", 2)[2].split("'")]
    names = demangle(set(symbols))
    for key in {k.split(" ", 2)[2] for r in (put, checkout) for k in r if "'" in k}:
        names[key] = " <- ".join(shorten(names.get(part, part)) for part in key.split("'"))
    print(f"| contexts | {len(contexts(put))} | {len(contexts(checkout))} |")
    row("Mutex locks above HTTPServer", "Mutex locks above HTTPServer")
    row("pthread/Dispatch locks above HTTPServer", "pthread/dispatch locks above HTTPServer")
    row("atomic read-modify-writes above HTTPServer", "atomics above HTTPServer (RMW)")
    row("actor hops (swift_task_switch)", "actor hops (swift_task_switch)")
    row("job enqueues and runs", "job enqueues/runs")
    row("Mutex locks, whole process", "Mutex locks, all")
    row("pthread/Dispatch locks, whole process", "pthread/dispatch locks, all")
    row("calls, whole process", "calls, all")
    for label, result in (("PUT /cart/items/{id}", put), ("POST /checkout", checkout)):
        print(f"\n{label}:")
        print("  targets: " + ", ".join(f"{t} {result['calls into ' + t]:.0f}" for t in targets(result)))
        print("  contexts: " + ", ".join(contexts(result)))
        for kind in ("lock at ", "atomic at "):
            sites = sorted(((v, k[len(kind):]) for k, v in result.items() if k.startswith(kind) and abs(v) >= 0.25),
                           reverse=True)
            print(f"  {kind.strip()}:")
            for count, symbol in sites:
                print(f"    {count:5.1f}  {shorten(names.get(symbol, symbol))}")
        hops = sorted((v, k[4:]) for k, v in result.items() if k.startswith("hop ") and abs(v) >= 0.25)
        print("  hops: " + ", ".join(f"{name} {count:.1f}" for count, name in reversed(hops)))


def shorten(name):
    name = re.sub(r" in conformance .*", "", name)
    while True:
        shorter = re.sub(r"<[^<>]*>", "", name)
        if shorter == name:
            break
        name = shorter
    return re.sub(r"\((?:[^()]|\([^()]*\))*\)", "()", name)[:160]


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "drive" and len(sys.argv) == 9:
        drive(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "tally":
        tally(sys.argv[2])
    else:
        sys.exit(__doc__)
