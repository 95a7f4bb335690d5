#!/usr/bin/env python3
"""Writes Public/favicon.ico: wsx's icon (a white speech bubble on the sidebar's purple) as a
32×32 PNG inside an ICO, for browsers that ask for /favicon.ico. Pages link the SVG versions
(Public/favicon.svg, and favicon-unread.svg with its dot). Run from the repository root."""

import struct
import zlib

SIZE = 32
PURPLE = (63, 14, 64, 255)
WHITE = (255, 255, 255, 255)
CLEAR = (0, 0, 0, 0)


def inside_rounded(x: float, y: float, left: float, top: float, right: float, bottom: float, radius: float) -> bool:
    cx = min(max(x, left + radius), right - radius)
    cy = min(max(y, top + radius), bottom - radius)
    return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2 and left <= x <= right and top <= y <= bottom


def pixel(x: int, y: int) -> tuple:
    px, py = x + 0.5, y + 0.5
    if not inside_rounded(px, py, 0, 0, SIZE, SIZE, 7):
        return CLEAR
    bubble = inside_rounded(px, py, 7, 8, 25, 21, 4)
    tail = px >= 10 and 20 <= py <= 26 and px <= 15 - (py - 21)
    return WHITE if bubble or tail else PURPLE


def png() -> bytes:
    rows = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(SIZE)) for y in range(SIZE))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def ico(image: bytes) -> bytes:
    return struct.pack("<HHH", 0, 1, 1) + struct.pack("<BBBBHHII", SIZE, SIZE, 0, 0, 1, 32, len(image), 22) + image


if __name__ == "__main__":
    with open("Public/favicon.ico", "wb") as out:
        out.write(ico(png()))
