#!/usr/bin/env python3
"""Writes Tests/Fixtures/commonmark-examples.json: the CommonMark spec's examples (markdown and
expected HTML) from the sections whose constructs messages use, for MarkdownTests. The spec
comes from the `commonmark` source package on PyPI (its spec.txt, version 0.29). Run from the
repository root with the test venv: .venv/bin/python tools/commonmark_examples.py"""

import json
import pathlib
import subprocess
import tarfile
import tempfile

SECTIONS = {"Tabs", "Backslash escapes", "Code spans", "Emphasis and strong emphasis", "Fenced code blocks",
            "Block quotes", "List items", "Lists", "Paragraphs", "Blank lines", "Hard line breaks",
            "Soft line breaks", "Textual content", "Raw HTML", "Autolinks", "Entity and numeric character references"}
FENCE = "`" * 32


def spec_text() -> str:
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "commonmark==0.9.2", "-d", folder],
                       check=True)
        archive = next(pathlib.Path(folder).glob("commonmark-*.tar.gz"))
        with tarfile.open(archive) as tar:
            return tar.extractfile("commonmark-0.9.2/spec.txt").read().decode()


def examples(text: str) -> list[dict]:
    found, section, lines = [], None, text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("## ") or line.startswith("# "):
            section = line.lstrip("#").strip()
        if line.startswith(FENCE + " example"):
            body = []
            index += 1
            while not lines[index].startswith(FENCE):
                body.append(lines[index])
                index += 1
            joined = "\n".join(body).replace("→", "\t")
            markdown, _, html = joined.partition("\n.\n") if "\n.\n" in joined else joined.partition(".\n")
            if markdown.startswith(".") and joined.startswith(".\n"):
                markdown, html = "", joined[2:]
            if section in SECTIONS:
                found.append({"section": section, "markdown": markdown, "html": html})
        index += 1
    return found


if __name__ == "__main__":
    out = pathlib.Path("Tests/Fixtures/commonmark-examples.json")
    chosen = examples(spec_text())
    out.write_text(json.dumps(chosen, ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {len(chosen)} examples to {out}")
