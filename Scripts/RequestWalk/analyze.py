"""Counts the walk of traced requests for Scripts/request-walk (see its header for what is counted).

analyze.py --binary DRIVER --root REPO [--logs DIR] FORM=TRACE[,TRACE...]...
A trace has one line per function entry: thread, address relative to the executable's load address; thread 0 is
the marker the driver records when the caller has its answer.
"""
import argparse, os, subprocess, sys
from collections import OrderedDict

LIBRARY = "Sources/SimpleNetworking/"


def symbolize(binary, addresses, root):
    """Maps each address to (function, file relative to root), the file None for compiler-generated code (thunks,
    value witnesses, outlined copies) and macro expansions, which have no file of the repository."""
    tool = next(t for t in ("llvm-symbolizer", "/opt/swift/usr/bin/llvm-symbolizer") if subprocess.run(
        ["sh", "-c", f"command -v {t}"], capture_output=True).returncode == 0)
    output = subprocess.run([tool, f"--obj={binary}", "--no-inlines", "--relative-address"],
                            input="\n".join(addresses) + "\n", capture_output=True, text=True, check=True).stdout
    blocks = [b.split("\n") for b in output.strip("\n").split("\n\n")]
    names = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(b[0] for b in blocks)
                           + "\n", capture_output=True, text=True, check=True).stdout.split("\n")
    result = {}
    for address, block, name in zip(addresses, blocks, names):
        path = block[1].rsplit(":", 2)[0] if len(block) > 1 else "??"
        if path.startswith(root + "/"):
            path = path[len(root) + 1:]
        generated = "<compiler-generated>" in path or path == "??" or "/swift-generated-sources/" in path
        result[address] = (name, None if generated else path)
    return result


def compress(sequence):
    """Writes a file sequence with repeated blocks folded: A → (B → C) ×3 → D."""
    parts, i = [], 0
    while i < len(sequence):
        best = (1, 1)  # (block length, repetitions)
        for size in range(2, 7):
            block, reps = sequence[i:i + size], 1
            while len(block) == size and sequence[i + reps * size:i + (reps + 1) * size] == block:
                reps += 1
            if reps > 1 and size * reps > best[0] * best[1]:
                best = (size, reps)
        size, reps = best
        block = " → ".join(sequence[i:i + size])
        parts.append(f"({block}) ×{reps}" if reps > 1 else block)
        i += size * reps
    return " → ".join(parts)


def walk(entries, symbols, ignored=()):
    files = OrderedDict()  # library file → entries, in order of first entry
    seen, sequence, generated, after, answered = set(), [], 0, 0, False
    for thread, address in entries:
        if thread == "0":
            answered = True
            continue
        name, path = symbols[address]
        if path is None:
            generated += 1
            continue
        seen.add(path)
        inside = path[len(LIBRARY):]
        if path.startswith(LIBRARY) and not any(inside == i or (i.endswith("/") and inside.startswith(i)) for i in ignored):
            files[path] = files.get(path, 0) + 1
            sequence.append(path)
            after += answered
    runs = [path for i, path in enumerate(sequence) if i == 0 or sequence[i - 1] != path]
    back = sum(1 for i in range(len(runs) - 2) if runs[i] == runs[i + 2])
    return dict(all=len(seen), core=len(files), switches=len(runs) - 1, back=back, entries=len(sequence),
                generated=generated, after=after, files=files, runs=runs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--logs")
    parser.add_argument("traces", nargs="+", help="FORM=TRACE[,TRACE...] (runs of one form)")
    options = parser.parse_args()
    ignored = set(filter(None, os.environ.get("WALK_IGNORE", "").split(",")))
    traces = [(form, paths.split(",")) for form, paths in (t.split("=", 1) for t in options.traces)]
    entries = {path: [tuple(line.split()) for line in open(path)] for _, paths in traces for path in paths}
    addresses = sorted({address for path in entries for _, address in entries[path]})
    symbols = symbolize(options.binary, addresses, options.root)
    rows = []
    for form, paths in traces:
        # Threads interleave a little differently each run: the run of median switches stands for the form.
        runs = sorted(((walk(entries[path], symbols, ignored), path) for path in paths), key=lambda run: run[0]["switches"])
        result, path = runs[len(runs) // 2]
        spread = {key: "" if len(runs) == 1 else " ({}–{})".format(
            min(r[key] for r, _ in runs), max(r[key] for r, _ in runs)) for key in ("switches", "back")}
        rows.append((form, result, spread))
        short = lambda path: path[len(LIBRARY):]
        print(f"== form {form}: library files in order of first entry (function entries)")
        for file, count in result["files"].items():
            print(f"   {count:5}  {short(file)}")
        print(f"== form {form}: the path between library files ({result['switches']} switches)")
        print("   " + compress([os.path.basename(file) for file in result["runs"]]) + "\n")
        if options.logs:
            with open(os.path.join(options.logs, f"walk-{form}.log"), "w") as log:
                for thread, address in entries[path]:
                    name, file = symbols.get(address, ("-- the caller has its answer --", ""))
                    log.write(f"{thread:>7}  {file or '<compiler-generated>'}  {name}\n")
    print(f"median of {len(traces[0][1])} runs (range)")
    header = ("form", "files entered", "library files", "switches", "back-and-forth", "library entries",
              "after answer", "compiler-generated")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for form, r, spread in rows:
        values = (form, r["all"], r["core"], f"{r['switches']}{spread['switches']}", f"{r['back']}{spread['back']}",
                  r["entries"], r["after"], r["generated"])
        print("| " + " | ".join(str(v) for v in values) + " |")


if __name__ == "__main__":
    sys.exit(main())
