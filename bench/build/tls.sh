#!/usr/bin/env bash
# The TLS stack's share of a first build: object_store as zinto takes it (rustls over
# aws-lc-rs) against the same stores over ring, each a release build into an empty target
# folder. Prints wall and CPU seconds of each. About 3 minutes on 2 cores.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for variant in aws-lc ring; do
    mkdir -p "$work/$variant/src"
    cp "$here/tls-$variant.toml" "$work/$variant/Cargo.toml"
    echo 'fn main() {}' > "$work/$variant/src/main.rs"
    (cd "$work/$variant" && /usr/bin/time -f "$variant: %e s wall, %U s user" cargo build --release -q)
done
