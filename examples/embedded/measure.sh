#!/usr/bin/env bash
# Flash per decoder and stack per case, for docs/embedded.md: builds the firmware with no case,
# then with each case alone, at opt-level "s" (profile release) and 3 (release-o3), and prints
# the ELF's flash (text + rodata: code and the chunks in flash) with llvm-size
# (`rustup component add llvm-tools`); then runs the full firmware once under QEMU for the
# stack figures.
set -euo pipefail
cd "$(dirname "$0")"
size="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-size"
elf=target/thumbv7em-none-eabihf
flash() { # profile features -> text+rodata bytes
    cargo build -q --profile "$1" --no-default-features ${2:+--features "$2"}
    local dir=$1
    [ "$1" = dev ] && dir=debug
    "$size" -A "$elf/$dir/zinto-embedded-example" |
        awk '$1 == ".text" || $1 == ".rodata" || $1 == ".vector_table" { n += $2 } END { print n }'
}
# The chunk bytes each case holds in flash (data, not code).
data() {
    local files
    case $1 in
        gzip) files=data/chunks/grid_0_0.gz ;;
        zlib) files=data/chunks/zlib_0.zlib ;;
        crc32c) files=data/chunks/crc_0.crc32c ;;
        shard) files=data/chunks/shard_0_0.shard ;;
        blosc) files=data/chunks/blosc_0.blosc ;;
        region) files=data/chunks/grid_*.gz ;;
    esac
    cat $files | wc -c
}
echo "| case | flash, opt-level s | flash, opt-level 3 | of which chunk data |"
echo "|---|---:|---:|---:|"
base_s=$(flash release "")
base_3=$(flash release-o3 "")
echo "| (no case: runtime, semihosting, the harness) | $base_s | $base_3 | 0 |"
for case in gzip zlib crc32c shard blosc region; do
    s=$(flash release "$case")
    o3=$(flash release-o3 "$case")
    echo "| + $case | +$((s - base_s)) | +$((o3 - base_3)) | $(data "$case") |"
done
all_s=$(flash release "gzip,zlib,crc32c,shard,blosc,region")
all_3=$(flash release-o3 "gzip,zlib,crc32c,shard,blosc,region")
echo "| all six | $all_s | $all_3 | $(cat data/chunks/* | wc -c) |"
echo
cargo run -q --release
