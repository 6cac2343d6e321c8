#!/usr/bin/env python3
"""Rewrites the op list of docs/ops.md ("## Every op type (N, ...)" and the names below it)
and the count in README.md from what the built registry says:

  build/apps/graph/actorflow-graph ops | python3 scripts/update_ops_doc.py

Run from the repository root after adding op types."""
import re
import sys


def main():
    names = sorted({line.split()[0] for line in sys.stdin if line.strip()})
    public = [n for n in names if not n.startswith("_")]
    internal = ", ".join("`%s`" % n for n in names if n.startswith("_"))
    lines, line = [], ""
    for i, n in enumerate(public):
        word = "`%s`" % n + ("," if i + 1 < len(public) else "")
        if line and len(line) + 1 + len(word) > 100:
            lines.append(line)
            line = word
        else:
            line = word if not line else line + " " + word
    lines.append(line)
    doc = open("docs/ops.md").read()
    head = "## Every op type (%d, and the internal %s)\n\n" % (len(public), internal)
    doc, n = re.subn(r"## Every op type \(.*?\n\n.*?\n\n(?=## )", lambda m: head + "\n".join(lines) + "\n\n",
                     doc, count=1, flags=re.S)
    assert n == 1, "no op list in docs/ops.md"
    open("docs/ops.md", "w").write(doc)
    readme = open("README.md").read()
    readme, n = re.subn(r"actorflow runs \d+ of TensorFlow's op types",
                        "actorflow runs %d of TensorFlow's op types" % len(public), readme)
    assert n == 1, "no op count in README.md"
    open("README.md", "w").write(readme)
    print(len(public), "op types")


if __name__ == "__main__":
    main()
