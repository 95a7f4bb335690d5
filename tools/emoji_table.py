#!/usr/bin/env python3
"""Writes Public/emoji.tsv: every fully-qualified RGI emoji with its English and Korean names and
search keywords. The server accepts exactly these as reactions (Sources/wsx-web/Messaging/
EmojiCatalog.swift); the reaction picker (Public/reactions.js) searches the same file.

Run once, and again only to follow a newer Unicode/CLDR (the output is committed):

    apt-get install -y unicode-data unicode-cldr-core      # emoji-test.txt, CLDR annotations
    python3 -m venv /tmp/emoji-venv && /tmp/emoji-venv/bin/pip install emoji==2.16.0
    /tmp/emoji-venv/bin/python tools/emoji_table.py Public/emoji.tsv
    # or: /tmp/emoji-venv/bin/python tools/emoji_table.py > Public/emoji.tsv

Pinned: last run with Debian 12's unicode-data 15.0.0-1 (emoji-test.txt 15.0), unicode-cldr-core
41-0.1 (CLDR 41) and emoji 2.16.0 from PyPI. Other versions work but change the output (a warning
says so); the header of the output names the versions it was made from.

Sources, in order of preference for each field:
- /usr/share/unicode/emoji/emoji-test.txt: which emoji are fully qualified, their order and group;
- CLDR annotations (annotations/ and annotationsDerived/ for en and ko): short names and keywords;
- the `emoji` package: Slack/GitHub-style shortcodes (`thumbsup`, `+1`, `tada`), and names for
  emoji newer than this CLDR (CLDR 41 has no names for Emoji 15.0's 21 new emoji; neither has
  the package in Korean, so those rows carry their English name in the Korean column too);
- EXTRA_KOREAN below: the words Korean teams use for the common reactions.

Lines: comments start with "# " (hash, space; note the keycap #️⃣ row starts with "#" and U+FE0F);
each other line is 7 fields separated by tabs: emoji, group index, English name, English keywords,
Korean name, Korean keywords, shortcodes (keywords and shortcodes separated by "|"). The shortcodes
are the `emoji` package's Slack/GitHub-style names without colons, lower case, each once, its
English name first and then its aliases (`thumbs_up|+1|thumbsup`); the server translates Slack
reaction names with them. A few shortcodes name two emoji (`dog` is the alias of 🐶 and the name
of 🐕, `turkey` the name of 🦃 and an alias of 🇹🇷); the table keeps both and the reader chooses.
A skin-toned row has its names only (its keywords and shortcodes are empty): the picker lists and
searches the base emoji, and the server accepts the toned one.
The output is the same on every run.
"""

import re
import sys
import xml.etree.ElementTree as ElementTree

try:
    import emoji
except ImportError:
    raise SystemExit("the `emoji` package is missing: python3 -m venv /tmp/emoji-venv && "
                     "/tmp/emoji-venv/bin/pip install emoji==2.16.0, then run this with /tmp/emoji-venv/bin/python")

EMOJI_TEST = "/usr/share/unicode/emoji/emoji-test.txt"
CLDR = "/usr/share/unicode/cldr/common"
PINNED = {"emoji-test.txt": "15.0", "CLDR": "41", "emoji package": "2.16.0"}

# Words Korean teams use for the common reactions that CLDR's Korean keywords leave out (CLDR 41
# already has 좋아요 for 👍; it stays here so that 👍 is found by it whatever CLDR says).
EXTRA_KOREAN = {
    "👍": ["좋아요", "최고", "엄지 척"],
    "❤️": ["하트", "사랑"],
    "😂": ["웃김", "ㅋㅋ", "ㅋㅋㅋ"],
    "🎉": ["축하", "파티"],
    "🙏": ["감사", "부탁", "기도"],
    "👀": ["확인중", "보는 중"],
    "✅": ["완료", "확인", "체크"],
    "😮": ["놀람", "헉"],
    "😢": ["슬픔", "눈물"],
}

TONES = set(range(0x1F3FB, 0x1F400))  # skin tone modifiers
HAIR = set(range(0x1F9B0, 0x1F9B4))  # hair components


def bare(text: str) -> str:
    """The emoji without variation selectors (CLDR keys some emoji that way)."""
    return text.replace("\ufe0f", "").replace("\ufe0e", "")


def read_emoji_test():
    """(emoji, group index) for each fully-qualified emoji in order, the group names, the version."""
    groups, rows, version = [], [], ""
    try:
        file = open(EMOJI_TEST, encoding="utf-8")
    except FileNotFoundError:
        raise SystemExit(f"missing {EMOJI_TEST}: apt-get install -y unicode-data")
    with file:
        for line in file:
            if line.startswith("# Version:"):
                version = line.split(":", 1)[1].strip()
            if line.startswith("# group:"):
                groups.append(line.split(":", 1)[1].strip())
                continue
            if not line.strip() or line.startswith("#"):
                continue
            codes, rest = line.split(";", 1)
            if rest.split("#", 1)[0].strip() != "fully-qualified":
                continue
            text = "".join(chr(int(code, 16)) for code in codes.split())
            rows.append((text, len(groups) - 1))
    if not rows or not groups or not version:
        raise SystemExit(f"no emoji, groups or version read from {EMOJI_TEST}")
    return rows, groups, version


def cldr_version() -> str:
    path = f"{CLDR}/dtd/ldml.dtd"
    try:
        with open(path, encoding="utf-8") as file:
            found = re.search(r'cldrVersion\s+CDATA\s+#FIXED\s+"([^"]+)"', file.read())
    except FileNotFoundError:
        raise SystemExit(f"missing {path}: apt-get install -y unicode-cldr-core")
    if not found:
        raise SystemExit(f"no cldrVersion in {path}")
    return found.group(1)


def read_annotations(language: str):
    """{bare emoji: (short name, [keywords])} from CLDR's annotations and derived annotations."""
    names, keywords = {}, {}
    for folder in ("annotations", "annotationsDerived"):
        path = f"{CLDR}/{folder}/{language}.xml"
        try:
            root = ElementTree.parse(path).getroot()
        except FileNotFoundError:
            raise SystemExit(f"missing {path}: apt-get install -y unicode-cldr-core")
        for note in root.iter("annotation"):
            key = bare(note.get("cp"))
            text = (note.text or "").strip()
            if not text or text == "↑↑↑":
                continue
            if note.get("type") == "tts":
                names.setdefault(key, text)
            else:
                keywords.setdefault(key, [word.strip() for word in text.split("|") if word.strip()])
    if len(names) < 1000:
        raise SystemExit(f"only {len(names)} {language} names in {CLDR}/annotations*: is unicode-cldr-core whole?")
    return {key: (names.get(key, ""), keywords.get(key, [])) for key in set(names) | set(keywords)}


def package_data(text: str):
    """The `emoji` package's entry for `text`, or {}."""
    return emoji.EMOJI_DATA.get(text) or emoji.EMOJI_DATA.get(bare(text)) or {}


def shortcodes(data):
    """The package's English shortcode and aliases, without colons (`thumbs_up`, `thumbsup`, `+1`)."""
    codes = [data.get("en", "")] + list(data.get("alias", []))
    return [code.strip(":") for code in codes if code]


def shortcode_column(codes) -> str:
    """The shortcodes field: lower case, each once, in the package's order, "|" separated."""
    seen, result = set(), []
    for code in codes:
        code = code.lower()
        if not code.strip() or re.search(r"[\t\r\n|]", code):
            raise SystemExit(f"bad shortcode {code!r} in {codes!r}")
        if code not in seen:
            seen.add(code)
            result.append(code)
    return "|".join(result)


def package_korean(data) -> str:
    """The package's Korean name without colons, underscores as spaces."""
    return data.get("ko", "").strip(":").replace("_", " ").strip()


def clean(words):
    """Lower case, no tabs, newlines or bars inside a word, each word once, in order."""
    seen, result = set(), []
    for word in words:
        word = re.sub(r"[\t\r\n|]+", " ", word).strip().lower()
        word = re.sub(r" +", " ", word)
        if word and word not in seen:
            seen.add(word)
            result.append(word)
    return result


def field(text: str) -> str:
    return re.sub(r"[\t\r\n]+", " ", text).strip()


def check_versions(versions) -> None:
    for source, version in versions.items():
        if PINNED[source] != version:
            print(f"warning: {source} is {version}, this table was pinned to {PINNED[source]}; "
                  f"the output will differ from the committed one", file=sys.stderr)


def build():
    """The header lines and the data lines."""
    rows, groups, test_version = read_emoji_test()
    versions = {"emoji-test.txt": test_version, "CLDR": cldr_version(), "emoji package": emoji.__version__}
    check_versions(versions)
    english, korean = read_annotations("en"), read_annotations("ko")
    written = {text for text, _ in rows}
    for text in EXTRA_KOREAN:
        if text not in written:
            raise SystemExit(f"EXTRA_KOREAN names {text!r}, which is not a fully-qualified emoji")

    header = [
        "Emoji for reactions: every fully-qualified RGI emoji, in Unicode's order (emoji-test.txt).",
        f"Generated by tools/emoji_table.py from Unicode emoji-test.txt {versions['emoji-test.txt']}, "
        f"CLDR {versions['CLDR']} annotations (en, ko)",
        f"and the emoji package {versions['emoji package']} (shortcodes). Do not edit by hand.",
        "Columns (tab separated): emoji, group index, English name, English keywords, Korean name, "
        "Korean keywords, shortcodes; keywords and shortcodes are | separated.",
        "Shortcodes are Slack/GitHub-style names without colons (thumbs_up|+1|thumbsup), "
        "the package's English name first.",
        "Comment lines start with '# '; a skin-toned row has names only (the picker searches its base emoji).",
        "groups: " + "|".join(groups),
    ]
    names = {}  # bare emoji -> (English name, Korean name), for naming toned emoji CLDR lacks
    lines = []
    for text, group in rows:
        scalars = [ord(c) for c in text]
        if len(scalars) == 1 and (scalars[0] in TONES or scalars[0] in HAIR):
            continue  # a lone skin tone or hair style is a component, not an emoji to react with
        key = bare(text)
        data = package_data(text)
        codes = shortcodes(data)
        en_name, en_words = english.get(key, ("", []))
        ko_name, ko_words = korean.get(key, ("", []))
        tones = [chr(s) for s in scalars if s in TONES]
        if tones and (not en_name or not ko_name):
            # Newer than this CLDR: "base: tone, tone", as CLDR's derived names read.
            base_en, base_ko = names.get(bare("".join(c for c in text if ord(c) not in TONES)), ("", ""))
            if base_en and not en_name:
                en_name = base_en + ": " + ", ".join(english[t][0] for t in tones)
            if base_ko and not ko_name and base_ko != base_en:
                ko_name = base_ko + ": " + ", ".join(korean[t][0] for t in tones)
        if not en_name:
            en_name = (codes[0] if codes else "").replace("_", " ")
        if not ko_name:
            ko_name = package_korean(data)
        en_name = field(en_name).lower()
        if not en_name:
            raise SystemExit(f"no English name for {text!r} {[hex(s) for s in scalars]}")
        ko_name = field(ko_name) or en_name
        names[key] = (en_name, ko_name)
        if tones:
            en_keywords, ko_keywords, code_field = [], [], ""
        else:
            en_keywords = [w for w in clean(codes + en_words) if w != en_name]
            ko_keywords = [w for w in clean(ko_words + EXTRA_KOREAN.get(text, []) + [package_korean(data)])
                           if w != ko_name.lower()]
            code_field = shortcode_column(codes)
        lines.append([text, str(group), en_name, "|".join(en_keywords), ko_name, "|".join(ko_keywords),
                      code_field])
    check(rows, lines)
    return header, lines


def check(rows, lines) -> None:
    """Fails on a table the server or the picker would misread."""
    expected = sum(1 for text, _ in rows if not (len(text) == 1 and ord(text) in TONES | HAIR))
    if len(lines) != expected or len({line[0] for line in lines}) != len(lines):
        raise SystemExit(f"{len(lines)} rows written for {expected} fully-qualified emoji, or a row twice")
    for line in lines:
        if len(line) != 7 or any("\t" in f or "\n" in f or "\r" in f for f in line) \
                or not all(line[i] for i in (0, 1, 2, 4)):
            raise SystemExit(f"bad row {line!r}")
        codes = line[6].split("|") if line[6] else []
        if len(set(codes)) != len(codes) or any(not code or code != code.strip().lower() for code in codes):
            raise SystemExit(f"bad shortcodes in row {line!r}")
        if line[0].startswith("# "):
            raise SystemExit(f"row {line!r} would read as a comment")
    thumbs = next(line for line in lines if line[0] == "👍")
    if "좋아요" not in thumbs[5].split("|"):
        raise SystemExit("👍 lost its Korean keyword 좋아요")
    for text, code in (("👍", "+1"), ("✅", "white_check_mark"), ("🎉", "tada"), ("❤️", "heart")):
        if code not in next(line for line in lines if line[0] == text)[6].split("|"):
            raise SystemExit(f"{text} lost its shortcode {code}")


def main() -> None:
    if len(sys.argv) > 2:
        raise SystemExit("usage: tools/emoji_table.py [OUTPUT.tsv]   (standard output without one)")
    header, lines = build()
    text = "".join("# " + line + "\n" for line in header) + "".join("\t".join(line) + "\n" for line in lines)
    if len(sys.argv) == 2:
        with open(sys.argv[1], "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
    else:
        sys.stdout.reconfigure(encoding="utf-8", newline="\n")
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
