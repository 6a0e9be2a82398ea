#!/usr/bin/env python3
"""Mutation fuzzing of the `appell` program on the shipped scenes.

    tests/fuzz/mutate_cli.py build/appell [COUNT] [SEED]

Each round mutates a shipped scene (values set to extremes, keys removed, types swapped,
array entries repeated, strings extended, then sometimes bytes flipped, deleted or
inserted) and runs `check`, `eval` and `simulate --duration 0.05 --out --summary --forces`
on it.  It reports every run that breaks the promises of docs/scene-format.md ("Errors",
"Outputs"): a status other than 0, 2 or 3; an error that is not one `error:` line; an
output file after status 2; a number that is not finite in any output after status 0;
a run over 20 s.  Exit status 1 when any was found.
"""
import glob, json, math, os, random, shutil, subprocess, sys, tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXTREME = [0, -0.0, 1e308, -1e308, 1e-308, 5e-324, 1e200, 1e-200, -1, 1e16, 1e-16, 3, 0.5,
           1e150, 2**63, -2**63, 2**31]


def paths(j, p=()):
    yield p
    if isinstance(j, dict):
        for k, v in j.items():
            yield from paths(v, p + (k,))
    elif isinstance(j, list):
        for i, v in enumerate(j):
            yield from paths(v, p + (i,))


def parent_of(j, p):
    for k in p[:-1]:
        j = j[k]
    return j


def mutate(rnd, j):
    p = rnd.choice([p for p in paths(j) if p])
    parent = parent_of(j, p)
    v, r = parent[p[-1]], rnd.random()
    if isinstance(v, (int, float)) and not isinstance(v, bool) and r < 0.7:
        parent[p[-1]] = rnd.choice(EXTREME) * rnd.choice([1, 1, -1])
    elif r < 0.75:
        del parent[p[-1]]
    elif r < 0.85:
        parent[p[-1]] = rnd.choice([None, "x", [], {}, True, [0, 0, 0], "world", "a,b", "a\nb"])
    elif r < 0.92 and isinstance(parent, list):
        parent.append(json.loads(json.dumps(v)))
    elif isinstance(v, str):
        parent[p[-1]] = v + rnd.choice(["", "x", "^2", "*1e300", "/0", "(", "~1/"])


def mutate_bytes(rnd, data):
    b = bytearray(data)
    for _ in range(rnd.randint(1, 3)):
        i, op = rnd.randrange(len(b)), rnd.random()
        if op < 0.4:
            b[i] = rnd.randrange(256)
        elif op < 0.7:
            del b[i]
        else:
            b[i:i] = rnd.choice([b"1e400", b"~", b"/", b'"', b",", b"{", b"]", b"NaN", b"9" * 30])
    return bytes(b)


def finite_output(stdout, files):
    """Every number of stdout and of the output files is finite."""
    texts = [stdout] + [open(f, encoding="utf-8", errors="replace").read() for f in files]
    for t in texts:
        try:
            doc = json.loads(t, parse_constant=lambda c: math.nan)
        except ValueError:
            doc = None
        if doc is not None:
            if "null" in t or any(not math.isfinite(x) for x in numbers(doc)):
                return False
            continue
        for line in t.splitlines()[1:]:  # CSV rows after the header
            for cell in line.split(","):
                try:
                    if not math.isfinite(float(cell)):
                        return False
                except ValueError:
                    pass
    return True


def numbers(doc):
    if isinstance(doc, float):
        yield doc
    elif isinstance(doc, dict):
        for v in doc.values():
            yield from numbers(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from numbers(v)


def main():
    program = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    scenes = sorted(glob.glob(os.path.join(ROOT, "scenes", "*", "*.json")))
    work = tempfile.mkdtemp(prefix="appell_mutate_")
    found = 0
    for _ in range(count):
        j = json.load(open(rnd.choice(scenes)))
        for _ in range(rnd.randint(1, 4)):
            mutate(rnd, j)
        data = json.dumps(j).encode()
        if rnd.random() < 0.4:
            data = mutate_bytes(rnd, data)
        shutil.rmtree(work)
        os.makedirs(work)
        scene = os.path.join(work, "s.json")
        open(scene, "wb").write(data)
        outs = ["--out", work + "/t.csv", "--summary", work + "/u.json", "--forces", work + "/f.csv"]
        for args in (["check"], ["eval"], ["simulate", "--duration", "0.05"] + outs):
            try:
                p = subprocess.run([program, args[0], scene] + args[1:], capture_output=True,
                                   timeout=20)
            except subprocess.TimeoutExpired:
                found += 1
                print("TIMEOUT", args[0], data[:2000])
                continue
            err = p.stderr.decode("utf-8", "replace")
            files = [os.path.join(work, f) for f in os.listdir(work) if f != "s.json"]
            problem = None
            if p.returncode not in (0, 2, 3):
                problem = "status %d" % p.returncode
            elif p.returncode and (err.count("\n") != 1 or not err.startswith("error: ")):
                problem = "not one error line"
            elif p.returncode == 2 and files:
                problem = "output files after status 2"
            elif p.returncode == 0 and not finite_output(p.stdout.decode(), files):
                problem = "a number that is not finite"
            if problem:
                found += 1
                print("PROBLEM", problem, args[0], repr(err[:300]), data[:2000])
    shutil.rmtree(work)
    print("%d runs of %d scenes, %d problems" % (3 * count, count, found))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
