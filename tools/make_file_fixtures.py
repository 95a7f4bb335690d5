"""Makes the office, video and audio files of Tests/Fixtures/files/ (run once; they are committed).

Real files from the tools people use (python-docx, openpyxl, python-pptx; ffmpeg with x264,
x265, AAC and LAME from imageio-ffmpeg), plus the two containers no PyPI tool writes, built
to their specifications: an HWP 5 compound file (MS-CFB, with HWP's FileHeader stream) and an
HWPX package (OWPML: a stored `mimetype` first, then the XML parts).

    python3 -m venv /tmp/fx && /tmp/fx/bin/pip install python-docx openpyxl python-pptx imageio-ffmpeg
    /tmp/fx/bin/python tools/make_file_fixtures.py Tests/Fixtures/files
"""
import os
import struct
import subprocess
import sys
import zipfile

import docx
import imageio_ffmpeg
import openpyxl
import pptx

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def path(name):
    return os.path.join(out, name)


# Office documents, as Word, Excel and PowerPoint users send them.
document = docx.Document()
document.add_paragraph("회의록: 분기 계획")
document.save(path("회의록.docx"))
book = openpyxl.Workbook()
book.active["A1"] = "예산"
book.active["B1"] = 1200
book.save(path("예산.xlsx"))
deck = pptx.Presentation()
deck.slides.add_slide(deck.slide_layouts[0]).shapes.title.text = "발표"
deck.save(path("발표.pptx"))

ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
quiet = [ffmpeg, "-y", "-hide_banner", "-loglevel", "error"]

# A DOCX whose first member is a thumbnail larger than what is sniffed (64 KB) and whose
# [Content_Types].xml comes last, as some tools write it: libmagic then answers
# application/zip, and only the zip's directory tells.
picture = path("thumbnail.jpeg")
subprocess.run(quiet + ["-f", "lavfi", "-i", "mandelbrot=size=800x600", "-frames:v", "1", "-q:v", "2", picture], check=True)
with zipfile.ZipFile(path("회의록.docx")) as source, zipfile.ZipFile(path("thumbnail-first.docx"), "w", zipfile.ZIP_DEFLATED) as target:
    with open(picture, "rb") as f:
        target.writestr("docProps/thumbnail.jpeg", f.read(), compress_type=zipfile.ZIP_STORED)
    rest = [n for n in source.namelist() if n not in ("[Content_Types].xml", "docProps/thumbnail.jpeg")]
    for name in rest + ["[Content_Types].xml"]:
        target.writestr(name, source.read(name))
os.remove(picture)

# HWPX (OWPML): the mimetype member stored first, like ODF and EPUB.
with zipfile.ZipFile(path("보고서.hwpx"), "w", zipfile.ZIP_DEFLATED) as package:
    package.writestr(zipfile.ZipInfo("mimetype"), "application/hwp+zip", compress_type=zipfile.ZIP_STORED)
    package.writestr("version.xml", '<?xml version="1.0" encoding="UTF-8"?><hv:HCFVersion xmlns:hv="http://www.hancom.co.kr/hwpml/2011/version" major="5" minor="1"/>')
    package.writestr("META-INF/container.xml", '<?xml version="1.0" encoding="UTF-8"?><ocf:container xmlns:ocf="urn:oasis:names:tc:opendocument:xmlns:container"><ocf:rootfiles><ocf:rootfile full-path="Contents/content.hpf" media-type="application/hwpml-package+xml"/></ocf:rootfiles></ocf:container>')
    package.writestr("Contents/content.hpf", '<?xml version="1.0" encoding="UTF-8"?><opf:package xmlns:opf="http://www.idpf.org/2007/opf/"><opf:manifest><opf:item id="section0" href="Contents/section0.xml" media-type="application/xml"/></opf:manifest></opf:package>')
    package.writestr("Contents/section0.xml", '<?xml version="1.0" encoding="UTF-8"?><hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section" xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph"><hp:p><hp:run><hp:t>보고서</hp:t></hp:run></hp:p></hs:sec>')


# HWP 5 (a compound file, MS-CFB version 3): the root holds FileHeader (256 bytes: the
# signature and version 5.0.3.0) and DocInfo, both in the mini stream.
def hwp5():
    free, end, fat_sector, none = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF
    file_header = b"HWP Document File".ljust(32, b"\0") + struct.pack("<II", 0x05000300, 0) + bytes(256 - 40)
    doc_info = bytes(64)
    mini_stream = file_header + doc_info  # mini sectors 0-3 and 4

    def entry(name, kind, left=none, right=none, child=none, start=0, size=0):
        encoded = (name + "\0").encode("utf-16-le") if name else b""
        # Name, its length, type and colour (black), siblings and child, CLSID, state bits,
        # times, first sector and size: 128 bytes.
        return (encoded.ljust(64, b"\0") + struct.pack("<HBB", len(encoded), kind, 1)
                + struct.pack("<III", left, right, child) + bytes(16 + 4 + 8 + 8)
                + struct.pack("<IQ", start, size))

    directory = (entry("Root Entry", 5, child=1, start=3, size=len(mini_stream))
                 + entry("FileHeader", 2, left=2, start=0, size=len(file_header))
                 + entry("DocInfo", 2, start=4, size=len(doc_info))
                 + entry("", 0, start=0, size=0))
    assert len(directory) == 512
    header = (bytes.fromhex("D0CF11E0A1B11AE1") + bytes(16) + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6)
              + bytes(6) + struct.pack("<IIIIIIIII", 0, 1, 1, 0, 4096, 2, 1, end, 0)
              + struct.pack("<I", 0) + struct.pack("<I", free) * 108)
    assert len(header) == 512
    fat = struct.pack("<IIII", fat_sector, end, end, end) + struct.pack("<I", free) * 124
    mini_fat = struct.pack("<IIIII", 1, 2, 3, end, end) + struct.pack("<I", free) * 123
    return header + fat + directory + mini_fat + mini_stream.ljust(512, b"\0")


with open(path("기안.hwp"), "wb") as f:
    f.write(hwp5())

with open(path("메모.txt"), "w", encoding="utf-8") as f:
    f.write("오늘 할 일\n- 보고서 검토\n- 회의 준비\n")
with open(path("명단.csv"), "w", encoding="utf-8") as f:
    f.write("이름,부서,내선\n김민아,개발,1201\n박서준,디자인,1202\n이지은,영업,1203\n")

# Video and audio: one second of a test pattern and a tone.
pattern = ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=1"]
tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=1"]
h264 = ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-profile:v", "baseline"]
subprocess.run(quiet + pattern + tone + h264 + ["-c:a", "aac", "-shortest", "-movflags", "+faststart", path("clip.mp4")], check=True)
# What an iPhone records: QuickTime, H.264, the moov box after the media.
subprocess.run(quiet + pattern + tone + h264 + ["-c:a", "aac", "-shortest", "-f", "mov", path("iphone.mov")], check=True)
# Newer iPhones' "high efficiency": HEVC in QuickTime, which most browsers cannot play.
subprocess.run(quiet + pattern + ["-c:v", "libx265", "-tag:v", "hvc1", "-x265-params", "log-level=error", "-f", "mov", path("hevc.mov")], check=True)
subprocess.run(quiet + pattern + ["-c:v", "libvpx", "-b:v", "100k", path("clip.webm")], check=True)
subprocess.run(quiet + tone + ["-c:a", "libmp3lame", "-b:a", "32k", path("tone.mp3")], check=True)
subprocess.run(quiet + tone + ["-c:a", "aac", "-b:a", "32k", path("tone.m4a")], check=True)
