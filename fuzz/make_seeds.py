"""Builds the fuzz seed corpora in fuzz/seeds/<target>/ from the conformance fixtures.

The fixtures (tests/fixtures/data/) were written by zarr-python 3.1.6 and tensorstore; each seed
wraps real metadata or a real chunk in the input layout its harness reads
(tests/src/harness/). `cargo test` replays every seed (tests/tests/fuzz_regressions.rs).

Run from the repository root: python3 fuzz/make_seeds.py   (pip install numcodecs)
"""

import gzip
import json
import shutil
import struct
import zlib
from pathlib import Path

from numcodecs import Zstd

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests/fixtures/data"
SEEDS = ROOT / "fuzz/seeds"
MAX = 65535


def u16(n):
    return struct.pack("<H", n)


def write(target, name, data):
    d = SEEDS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def chunk_files(array_dir):
    skip = {"zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata"}
    return sorted(p for p in array_dir.rglob("*") if p.is_file() and p.name not in skip)


def codecs_of(array_dir):
    """'gzip', 'zlib', 'zstd', 'crc32c', 'raw', or None (sharded, transposed, mixed)."""
    if (array_dir / "zarr.json").exists():
        m = json.loads((array_dir / "zarr.json").read_text())
        names = [c["name"] for c in m["codecs"]]
        if names == ["bytes"]:
            return "raw"
        if len(names) == 2 and names[0] == "bytes" and names[1] in ("gzip", "zstd", "crc32c"):
            return names[1]
        return None
    m = json.loads((array_dir / ".zarray").read_text())
    if m.get("filters"):
        return None
    c = m.get("compressor")
    return "raw" if c is None else c["id"] if c["id"] in ("gzip", "zlib", "zstd") else None


def decoded(kind, stored):
    if kind == "gzip":
        return gzip.decompress(stored)
    if kind == "zlib":
        return zlib.decompress(stored)
    if kind == "zstd":
        return bytes(Zstd().decode(stored))
    if kind == "crc32c":
        return stored[:-4]
    return stored


def chunk_key(meta, coords):
    if "zarr_format" in meta and meta["zarr_format"] == 3:
        enc = meta["chunk_key_encoding"]
        sep = enc.get("configuration", {}).get("separator", "/" if enc["name"] == "default" else ".")
        if enc["name"] == "default":
            return sep.join(["c"] + [str(c) for c in coords])
        return sep.join(str(c) for c in coords) or "0"
    sep = meta.get("dimension_separator", ".")
    return sep.join(str(c) for c in coords) or "0"


def first_coords(shape, chunks, count):
    grid = [-(-s // c) if c else 0 for s, c in zip(shape, chunks)]
    out = []
    for i in range(count):
        coords, rest = [], i
        for g in reversed(grid):
            if g == 0:
                return out
            coords.append(rest % g)
            rest //= g
        if rest:
            break
        out.append(list(reversed(coords)))
    return out


def node_type(d):
    """'array', 'group' or None for a directory, by its metadata document."""
    if (d / "zarr.json").exists():
        return json.loads((d / "zarr.json").read_bytes()).get("node_type")
    if (d / ".zarray").exists():
        return "array"
    if (d / ".zgroup").exists():
        return "group"
    return None


def nodes():
    """Every array and group under DATA (groups' members included), as (name, dir, type)."""
    out = []
    for d in sorted(p for p in DATA.rglob("*") if p.is_dir()):
        kind = node_type(d)
        if kind is not None:
            out.append((str(d.relative_to(DATA)).replace("/", "__"), d, kind))
    return out


def group_seeds(name, group_dir):
    """metadata seeds for a group: v3 zarr.json (flags 2), or v2 .zmetadata (flags 3)."""
    if (group_dir / "zarr.json").exists():
        write("metadata", name, bytes([2]) + (group_dir / "zarr.json").read_bytes())
    elif (group_dir / ".zmetadata").exists():
        write("metadata", name, bytes([3]) + (group_dir / ".zmetadata").read_bytes())


def main():
    shutil.rmtree(SEEDS, ignore_errors=True)
    for name, array_dir, kind in nodes():
        if kind == "group":
            group_seeds(name, array_dir)
            continue
        v3 = (array_dir / "zarr.json").exists()
        meta_path = array_dir / ("zarr.json" if v3 else ".zarray")
        meta_bytes = meta_path.read_bytes()
        meta = json.loads(meta_bytes)

        # metadata: [flags, json (+ \0 + .zattrs for v2)]
        text = meta_bytes
        attrs = array_dir / ".zattrs"
        if not v3 and attrs.exists():
            text += b"\0" + attrs.read_bytes()
        write("metadata", name, bytes([0 if v3 else 1]) + text)

        # array_read: [flags, meta, count, chunks..., selection]
        if len(meta_bytes) <= MAX:
            shape = meta["shape"]
            chunks = (meta["chunk_grid"]["configuration"]["chunk_shape"] if v3 else meta["chunks"])
            coords = first_coords(shape, chunks, 3)
            body = b""
            for c in coords:
                f = array_dir / chunk_key(meta, c)
                data = f.read_bytes() if f.exists() else b""
                body += u16(min(len(data), MAX)) + data[:MAX]
            selection = bytes(b for _ in shape for b in (1, 255))
            write("array_read", name, bytes([0 if v3 else 1]) + u16(len(meta_bytes)) + meta_bytes
                  + bytes([len(coords)]) + body + selection)

        kind = codecs_of(array_dir)
        if kind is None:
            continue
        files = [f for f in chunk_files(array_dir) if f.stat().st_size <= MAX][:2]
        for i, f in enumerate(files):
            stored = f.read_bytes()
            plain = decoded(kind, stored)
            if len(plain) > MAX:
                continue
            head = bytes([0x40]) + u16(len(plain))
            if kind in ("gzip", "zlib", "zstd", "crc32c"):
                write(f"decode_{kind}", f"{name}_{i}", head + stored)
            if kind == "zstd":
                write("zstd_differential", f"{name}_{i}", head + stored)
            # roundtrip: [kind, level, piece, plain]: gzip, zlib, zstd with checksum
            for k, tag in ((1, "gzip"), (2, "zlib"), (3 | 0x20, "zstd")):
                write("roundtrip", f"{name}_{i}_{tag}", bytes([k, 5, 0x40]) + plain[:4096])
        # concat: [kind, count, chunks...]
        concat_kind = {"raw": 0, "gzip": 1, "zstd": 2}.get(kind)
        if concat_kind is not None and files:
            body = b"".join(u16(f.stat().st_size) + f.read_bytes() for f in files)
            write("concat", name, bytes([concat_kind, len(files)]) + body)

    # records_sort: [size, offset, type, endian, scratch, records]: m/z-like f64 records,
    # a NaN and signed zeros among them.
    recs = b""
    for i, mz in enumerate([512.5, 101.25, float("nan"), -0.0, 0.0, 250.0, 101.25, 1999.0]):
        recs += struct.pack("<ddd", i, mz, 1.0)
    write("records_sort", "f64_at_8", bytes([24, 8, 1, 0, 3]) + recs)
    write("records_sort", "u32_be_at_0", bytes([8, 0, 4, 1, 0]) + bytes(range(64)))
    # layout: [ndim, wide flags, elem, (shape, chunk, start, len)*ndim, order...]
    write("layout", "3d_transposed", bytes([3, 0, 4, 20, 7, 3, 15, 13, 5, 0, 13, 9, 4, 2, 6, 2, 0, 1]))
    write("layout", "2d_edge", bytes([2, 0, 8, 23, 10, 5, 18, 17, 8, 16, 1, 0, 1]))
    # shard_index: [a, b, flags, len, index]: a 4x4 shard of 2x2 chunks, index at the end.
    index = b"".join(struct.pack("<QQ", 16 * i, 16) for i in range(4))
    write("shard_index", "4_chunks", bytes([1, 1, 0, 2]) + index)
    write("zstd_frame_header", "empty_frame", Zstd().encode(b""))
    blosc_seeds()
    segment_seeds()
    write_seeds()
    blosc_written_seeds()
    array_to_array_seeds()
    n = sum(1 for _ in SEEDS.rglob("*") if _.is_file())
    size = sum(p.stat().st_size for p in SEEDS.rglob("*") if p.is_file())
    print(f"wrote {n} seeds, {size} bytes, to {SEEDS}")


def segment_seeds():
    """segment_header: [format, file...]; the segment fixtures NumPy and msgpack-numpy wrote."""
    seg = ROOT / "tests/fixtures/segments"
    for f in sorted(seg.rglob("*.npy")) + sorted(seg.rglob("*.msgpack")):
        fmt = 1 if f.suffix == ".msgpack" else 0
        write("segment_header", f"{f.parent.name}_{f.stem}", bytes([fmt]) + f.read_bytes())


def blosc_streams(chunk):
    """The (stream, decoded length) pairs of a non-memcpyed Blosc chunk, per c-blosc 1.21."""
    flags, typesize = chunk[2], chunk[3]
    nbytes, blocksize, cbytes = struct.unpack("<III", chunk[4:16])
    if flags & 0x02 or nbytes == 0:
        return []
    nblocks = -(-nbytes // blocksize)
    starts = struct.unpack(f"<{nblocks}i", chunk[16:16 + 4 * nblocks])
    out = []
    for j, start in enumerate(starts):
        bsize = blocksize if j + 1 < nblocks or nbytes % blocksize == 0 else nbytes % blocksize
        split = not flags & 0x10 and typesize <= 16 and blocksize // typesize >= 128 and bsize == blocksize
        n = typesize if split else 1
        at = start
        for _ in range(n):
            (size,) = struct.unpack("<i", chunk[at:at + 4])
            out.append((chunk[at + 4:at + 4 + size], bsize // n))
            at += 4 + size
    return out


def blosc_seeds():
    """decode_blosc, blosc_differential: real Blosc chunks (numcodecs / c-blosc 1.21);
    decode_lz4, decode_blosclz: the LZ4 and BloscLZ streams inside them, and numcodecs LZ4."""
    for array in sorted(DATA.glob("nc_*")):
        zarray = array / ".zarray"
        if not zarray.exists():
            continue
        m = json.loads(zarray.read_text())
        c = m.get("compressor") or {}
        for i, f in enumerate(chunk_files(array)[:2]):
            stored = f.read_bytes()
            if c.get("id") == "blosc" and not m.get("filters"):
                (nbytes,) = struct.unpack("<I", stored[4:8])
                if nbytes > MAX:
                    continue
                name = f"{array.name}_{i}"
                write("decode_blosc", name, bytes([0x31]) + u16(nbytes) + stored)
                write("blosc_differential", name, stored)
                code = stored[2] >> 5
                target = {0: "decode_blosclz", 1: "decode_lz4"}.get(code)
                for k, (stream, size) in enumerate(blosc_streams(stored)[:2]):
                    if target and len(stream) < size:
                        write(target, f"{name}_{k}", u16(size) + stream)
            elif c.get("id") == "lz4":
                (size,) = struct.unpack("<i", stored[:4])
                if size <= MAX:
                    write("decode_lz4", f"{array.name}_{i}", u16(size) + stored[4:])


def write_seeds():
    """write_roundtrip: [ndim, dims.., chunks.., shard flags, chain, writes], then the writes'
    corners, extents and values (harness/write.rs), one seed per kind of chain."""
    import random

    rng = random.Random(28)
    cases = {
        "2d_raw_f32_edge": [1, 9, 6, 3, 4, 0, 2, 2],
        "3d_zstd_sharded_crc": [2, 7, 5, 4, 2, 3, 2, 0x06, 0x0A, 3],
        "1d_gzip_bool_fill": [0, 11, 4, 0x08, 0x14, 2],
        "2d_v2_zlib_forder_be": [1, 8, 10, 3, 4, 0, 0x80 | 0x40 | 0x20 | 0x18 | 3, 3],
        "3d_complex_transposed_shards": [2, 5, 6, 7, 1, 2, 3, 0x44, 0x45, 2],
        "2d_blosc_blosclz_shuffle_f32": [1, 9, 6, 3, 4, 0xA0, 14, 2],
        "2d_v2_lz4": [1, 9, 6, 3, 4, 0x02, 0x80, 2],
    }
    for name, head in cases.items():
        write("write_roundtrip", name, bytes(head) + bytes(rng.randrange(256) for _ in range(3000)))


def blosc_written_seeds():
    """blosc_written: [cname, shuffle and type, blocksize / 64, clevel], then the bytes
    (harness/blosc.rs): each inner compressor and shuffle over smooth numbers, runs and noise,
    in one block and in several."""
    import math
    import random

    rng = random.Random(41)
    smooth = b"".join(struct.pack("<f", math.sin(i / 50.0)) for i in range(3000))
    noise = bytes(rng.randrange(256) for _ in range(5000))
    runs = bytes(i // 700 for i in range(6000))
    names = ["lz4", "lz4hc", "blosclz", "zstd", "zlib"]
    for c, cname in enumerate(names):
        for shuffle, type_bits, label in [(1, 2 << 2, "shuffle_u32"), (2, 1 << 2, "bitshuffle_u16"),
                                          (0, 0, "noshuffle_u8")]:
            for bs, data, what in [(0, smooth, "smooth"), (16, runs, "runs_4blocks"),
                                   (8, noise, "noise")]:
                head = bytes([c, shuffle | type_bits, bs, 5])
                write("blosc_written", f"{cname}_{label}_{what}", head + data)



def array_to_array_seeds():
    """array_to_array: [codec, from, to, rounding, out_of_range, offset (8), scale (8), n,
    payload]; types index int8..uint64 (0-7), float16/32/64 (8-10). scale_offset over int16
    and float64, cast_value float64 -> int16 with clamp and float32 -> float16 towards-zero."""
    import math

    floats = b"".join(struct.pack("<d", math.sin(i / 7.0) * 40000) for i in range(32))
    floats += struct.pack("<ddd", float("nan"), float("inf"), -0.0)
    ints = b"".join(struct.pack("<h", (i * 997) % 65536 - 32768) for i in range(64))
    head = lambda codec, f, t, r, o, off, sc, n: (bytes([codec, f, t, r, o]) + off + sc
                                                   + bytes([n]))
    small = lambda i: struct.pack("<q", i)
    write("array_to_array", "scale_offset_int16", head(0, 1, 1, 0, 0, small(5), small(3), 64) + ints)
    write("array_to_array", "scale_offset_float64",
          head(0, 10, 10, 0, 0, struct.pack("<d", 10.0), struct.pack("<d", 100.0), 35) + floats)
    write("array_to_array", "cast_value_f8_i2_clamp",
          head(1, 10, 1, 0, 1, small(0), small(1), 35) + floats)
    write("array_to_array", "cast_value_f4_f2_towards_zero",
          head(1, 9, 8, 1, 0, small(0), small(1), 64) + floats)


if __name__ == "__main__":
    main()
