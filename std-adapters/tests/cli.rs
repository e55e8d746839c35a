//! Drives the built `zinto` binary on the example data: output bytes and exit codes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a panic is a failed test

use std::path::PathBuf;
use std::process::{Command, Output};

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data")
        .join(name)
}

fn zinto(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zinto"))
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn info_describes_the_array() {
    let dir = example("legacy_v2.zarr");
    let out = zinto(&["info", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    for expected in [
        "Zarr v2",
        "shape:        [100, 80]",
        "int32",
        "chunk shape:  [32, 32]",
        "zlib",
        "\nchunks:       12 in all, 12 present",
        "compression ratio",
    ] {
        assert!(s.contains(expected), "missing {expected:?} in:\n{s}");
    }
    let dir = example("sharded.zarr");
    let s = text(&zinto(&["info", dir.to_str().unwrap()]).stdout);
    assert!(s.contains("shard shape:  [256, 256]"), "{s}");
    assert!(s.contains("chunk shape:  [64, 64]"), "{s}");
}

#[test]
fn read_with_a_selection_writes_the_selected_bytes() {
    // legacy_v2.zarr holds (i * 80 + j) % 977 as int32 (examples/data/generate.py).
    let dir = example("legacy_v2.zarr");
    let file = std::env::temp_dir().join(format!("zinto-cli-{}.bin", std::process::id()));
    let out = zinto(&[
        "read",
        dir.to_str().unwrap(),
        "--select",
        "10:20,5:9",
        "--out",
        file.to_str().unwrap(),
        "--threads",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("read 160 bytes"),
        "{}",
        text(&out.stderr)
    );
    let bytes = std::fs::read(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    let expected: Vec<u8> = (10..20)
        .flat_map(|i: i32| (5..9).map(move |j| (i * 80 + j) % 977))
        .flat_map(i32::to_ne_bytes)
        .collect();
    assert_eq!(bytes, expected);

    // A single index keeps its dimension in raw bytes; `-` writes to stdout.
    let out = zinto(&[
        "read",
        dir.to_str().unwrap(),
        "--select",
        "3,:2",
        "--out",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let expected: Vec<u8> = [240i32, 241].iter().flat_map(|v| v.to_ne_bytes()).collect();
    assert_eq!(out.stdout, expected);
}

#[test]
fn json_summary_has_the_documented_keys() {
    let dir = example("temperature.zarr");
    let out = zinto(&["read", dir.to_str().unwrap(), "--json", "--threads", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["bytes"], 360 * 720 * 4);
    assert_eq!(v["threads"], 1);
    assert_eq!(v["chunks"], 24);
    assert!(v["seconds"].as_f64().unwrap() > 0.0);
    assert!(v["mb_per_s"].as_f64().unwrap() > 0.0);
    assert!(v["peak_rss_bytes"].as_u64().unwrap() > 360 * 720 * 4);
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn bad_selection_is_a_usage_error() {
    let dir = example("temperature.zarr");
    for sel in ["400,:", "-361", "1,2,3", "x", "::0", "...,...", "1:2:3:4"] {
        let out = zinto(&["read", dir.to_str().unwrap(), "--select", sel]);
        assert_eq!(out.status.code(), Some(2), "{sel}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(err.starts_with("zinto: usage error:"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let out = zinto(&["read", dir.to_str().unwrap(), "--bogus"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn missing_array_is_an_error_in_one_line() {
    let out = zinto(&["read", "/nonexistent/array.zarr"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("/nonexistent/array.zarr"), "{err}");

    // A directory that is not an array.
    let dir = example("");
    let out = zinto(&["info", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no zarr.json, .zarray or .zgroup"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn corrupt_chunk_names_the_chunk_and_exits_1() {
    let src = example("temperature.zarr");
    let dir = std::env::temp_dir().join(format!("zinto-cli-corrupt-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("c/0")).unwrap();
    std::fs::copy(src.join("zarr.json"), dir.join("zarr.json")).unwrap();
    std::fs::write(dir.join("c/0/0"), b"not zstd at all").unwrap();
    let out = zinto(&["read", dir.to_str().unwrap(), "--select", "0:10,0:10"]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("chunk c/0/0"), "{err}");
}

#[test]
fn help_explains_the_options() {
    let out = zinto(&["read", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let s = text(&out.stdout);
    for opt in ["--select", "--threads", "--out", "--json", "Example"] {
        assert!(s.contains(opt), "help lacks {opt}:\n{s}");
    }
}

#[test]
fn absurd_shape_is_an_error_not_an_abort() {
    let dir = std::env::temp_dir().join(format!("zinto-cli-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("zarr.json"),
        r#"{"zarr_format": 3, "node_type": "array", "shape": [1152921504606846976],
        "data_type": "float32", "fill_value": 0,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1048576]}},
        "chunk_key_encoding": {"name": "default"}, "codecs": [{"name": "bytes",
        "configuration": {"endian": "little"}}]}"#,
    )
    .unwrap();
    let out = zinto(&["read", dir.to_str().unwrap()]);
    let info = zinto(&["info", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("cannot allocate"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // info does not ask the store about 2^40 chunks.
    assert_eq!(info.status.code(), Some(0));
    assert!(
        text(&info.stdout).contains("present ones not counted"),
        "{}",
        text(&info.stdout)
    );
}

fn spectra() -> Vec<String> {
    (0..5)
        .map(|i| {
            example(&format!("spectra/scan{i}.zst"))
                .to_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// The example chunks decoded and concatenated, as 24-byte records.
fn spectra_records() -> Vec<[u8; 24]> {
    spectra()
        .iter()
        .flat_map(|f| zstd::decode_all(std::fs::File::open(f).unwrap()).unwrap())
        .collect::<Vec<u8>>()
        .chunks(24)
        .map(|r| r.try_into().unwrap())
        .collect()
}

fn mz(r: &[u8]) -> f64 {
    f64::from_le_bytes(r[8..16].try_into().unwrap())
}

#[test]
fn merge_concatenates_and_sorts_the_records() {
    let dir = std::env::temp_dir().join(format!("zinto-cli-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut expected = spectra_records();
    expected.sort_by(|a, b| mz(a).total_cmp(&mz(b))); // stable; no NaNs in the example
    for stable in [false, true] {
        let out = dir.join("merged.bin");
        let mut args = vec!["merge", "--record-size", "24", "--key", "f64@8"];
        if stable {
            args.push("--stable");
        }
        args.extend(["--out", out.to_str().unwrap()]);
        let files = spectra();
        args.extend(files.iter().map(String::as_str));
        let run = zinto(&args);
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
        assert!(
            text(&run.stderr).contains("5850 records"),
            "{}",
            text(&run.stderr)
        );
        // 140 KB of records: the process outweighs them, so no ratio, as `read` says it.
        assert!(
            !text(&run.stderr).contains("x the output") && text(&run.stderr).contains("peak RSS"),
            "{}",
            text(&run.stderr)
        );
        let got = std::fs::read(&out).unwrap();
        if stable {
            assert!(
                got == expected.concat(),
                "stable merge differs from a stable sort"
            );
        } else {
            assert!(
                got.chunks(24)
                    .zip(got.chunks(24).skip(1))
                    .all(|(a, b)| mz(a) <= mz(b))
            );
            let mut a: Vec<&[u8]> = got.chunks(24).collect();
            let mut b: Vec<&[u8]> = expected.iter().map(|r| &r[..]).collect();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "not a permutation of the input records");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn merge_refuses_bad_keys_and_partial_records() {
    let files = spectra();
    let with = |extra: &[&str]| {
        let mut args = vec!["merge"];
        args.extend_from_slice(extra);
        args.extend(files.iter().map(String::as_str));
        zinto(&args)
    };
    for (args, code, says) in [
        (
            &["--record-size", "24", "--key", "f16@8"][..],
            2,
            "--key \"f16@8\": unknown key type",
        ),
        (
            &["--record-size", "24", "--key", "f64@20"][..],
            2,
            "does not fit in a 24-byte record",
        ),
        (
            &["--record-size", "24", "--key", "f64"][..],
            2,
            "expected TYPE@OFFSET",
        ),
        (
            &["--record-size", "7"][..],
            1,
            "not a whole number of 7-byte records",
        ),
        (&["--record-size", "24", "--codec", "gzip"][..], 1, "gzip"),
    ] {
        let run = with(args);
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    }
    let run = zinto(&["merge", "--record-size", "24", "no/such/file.zst"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        text(&run.stderr).contains("no/such/file.zst"),
        "{}",
        text(&run.stderr)
    );
}

#[test]
fn info_says_when_the_data_size_overflows_u64() {
    // 2^96 bytes of data in one chunk: info shows the metadata and says the size overflows,
    // instead of wrapping to "0 bytes of data" (or panicking on the product).
    let dir = std::env::temp_dir().join(format!("zinto-cli-2e96-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("zarr.json"),
        r#"{"zarr_format": 3, "node_type": "array",
        "shape": [4294967296, 4294967296, 4294967296], "data_type": "uint8", "fill_value": 0,
        "chunk_grid": {"name": "regular",
            "configuration": {"chunk_shape": [4294967296, 4294967296, 4294967296]}},
        "chunk_key_encoding": {"name": "default"}, "codecs": [{"name": "bytes"}]}"#,
    )
    .unwrap();
    let info = zinto(&["info", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(info.status.code(), Some(0), "{}", text(&info.stderr));
    let s = text(&info.stdout);
    assert!(
        s.contains("shape:        [4294967296, 4294967296, 4294967296]"),
        "{s}"
    );
    assert!(s.contains("1 in all, 0 present"), "{s}");
    assert!(
        s.contains("stored:       0 bytes for 2^64 bytes or more (overflows u64) of data"),
        "{s}"
    );
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/data")
        .join(name)
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("zinto-cli-{}-{name}", std::process::id()))
}

/// A `.npy` file's type string, shape and data (the header parsed strictly).
fn parse_npy(bytes: &[u8]) -> (String, Vec<u64>, Vec<u8>) {
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + len) % 64, 0, "data aligned to 64 bytes");
    let header = std::str::from_utf8(&bytes[10..10 + len]).unwrap();
    assert!(header.ends_with('\n'));
    assert!(header.contains("'fortran_order': False"), "{header}");
    let descr = header
        .split("'descr': '")
        .nth(1)
        .unwrap()
        .split('\'')
        .next()
        .unwrap();
    let shape = header
        .split("'shape': (")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let shape = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    (descr.to_owned(), shape, bytes[10 + len..].to_vec())
}

#[test]
fn info_on_a_group_prints_its_tree() {
    let dir = example("weather.zarr");
    let out = zinto(&["info", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    for expected in [
        "(group, Zarr v3, consolidated metadata)",
        "title: \"Hourly weather at six stations (synthetic)\"",
        "├── lat  float64 [6]",
        "station  string [6]",
        "temperature  float32 [48, 6]  chunks [24, 3]",
        "(time, station)",
        "units: \"degC\"",
    ] {
        assert!(s.contains(expected), "missing {expected:?} in:\n{s}");
    }
    // On an array, info shows its dimension names and attributes too.
    let s = text(&zinto(&["info", dir.join("temperature").to_str().unwrap()]).stdout);
    assert!(s.contains("dimensions:   time, station"), "{s}");
    assert!(s.contains("long_name: \"air temperature at 2 m\""), "{s}");
}

#[test]
fn info_json_lists_every_array_of_the_xarray_datasets() {
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("../manifest_datasets.json")).unwrap())
            .unwrap();
    for root in [
        "ds_xarray_v2.zarr",
        "ds_xarray_v3.zarr",
        "ds_nested_v3.zarr",
    ] {
        let out = zinto(&["info", "--json", fixture(root).to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let tree: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(tree["node_type"], "group");
        // Every array below the root, by its path, from the nested members.
        let mut arrays = std::collections::BTreeMap::new();
        let mut stack = vec![(String::new(), &tree)];
        while let Some((prefix, node)) = stack.pop() {
            for m in node["members"].as_array().unwrap() {
                let path = format!("{prefix}{}", m["name"].as_str().unwrap());
                if m["node_type"] == "group" {
                    stack.push((format!("{path}/"), m));
                } else {
                    arrays.insert(path, m);
                }
            }
        }
        let mut checked = 0;
        for entry in manifest.as_array().unwrap() {
            let name = entry["name"].as_str().unwrap();
            let Some(rel) = name.strip_prefix(&format!("{root}/")) else {
                continue;
            };
            if entry["kind"] != "array" {
                continue;
            }
            let got = arrays
                .get(rel)
                .unwrap_or_else(|| panic!("{name} not listed"));
            assert_eq!(got["shape"], entry["shape"], "{name}");
            assert_eq!(got["attributes"], entry["attributes"], "{name}");
            assert_eq!(got["dimension_names"], entry["dimension_names"], "{name}");
            let numpy = entry["numpy_dtype"].as_str().unwrap();
            let dtype = got["dtype"].as_str().unwrap();
            let same = match numpy {
                "StringDType()" => dtype == "string",
                "bool" => dtype == "bool",
                _ => dtype == numpy,
            };
            assert!(same, "{name}: {dtype} for NumPy's {numpy}");
            checked += 1;
        }
        assert_eq!(
            checked,
            arrays.len(),
            "{root}: every listed array is checked"
        );
        assert!(checked >= 4, "{root}");
    }
}

#[test]
fn npy_output_loads_as_numpy_would() {
    let dir = example("temperature.zarr");
    let file = temp("part.npy");
    let out = zinto(&[
        "read",
        dir.to_str().unwrap(),
        "--select",
        "-10:,3",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (descr, shape, data) = parse_npy(&std::fs::read(&file).unwrap());
    std::fs::remove_file(&file).unwrap();
    let native = if cfg!(target_endian = "little") {
        "<f4"
    } else {
        ">f4"
    };
    assert_eq!(descr, native);
    assert_eq!(shape, [10], "the index dropped its dimension");
    // The same values as raw bytes of rows 350..360, column 3.
    let raw = zinto(&[
        "read",
        dir.to_str().unwrap(),
        "--select",
        "350:,3:4",
        "--out",
        "-",
    ]);
    assert_eq!(data, raw.stdout);

    // Strings are fixed-width UTF-32, as wide as the longest selected.
    let file = temp("station.npy");
    let station = example("weather.zarr/station");
    let out = zinto(&[
        "read",
        station.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (descr, shape, data) = parse_npy(&std::fs::read(&file).unwrap());
    std::fs::remove_file(&file).unwrap();
    assert_eq!(
        &descr[1..],
        "U9",
        "São Paulo and Reykjavík have 9 characters"
    );
    assert_eq!(shape, [6]);
    let first: String = data[..36]
        .chunks_exact(4)
        .map(|c| char::from_u32(u32::from_ne_bytes(c.try_into().unwrap())).unwrap())
        .take_while(|&c| c != '\0')
        .collect();
    assert_eq!(first, "Zürich");

    // Dates keep their unit.
    let file = temp("dates.npy");
    let dates = fixture("ds_types_v3.zarr/dt_ns");
    let out = zinto(&[
        "read",
        dates.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (descr, shape, _) = parse_npy(&std::fs::read(&file).unwrap());
    std::fs::remove_file(&file).unwrap();
    assert_eq!((&descr[1..], shape), ("M8[ns]", vec![10]));
}

#[test]
fn json_output_gives_nested_lists_with_iso_dates() {
    let station = example("weather.zarr/station");
    let out = zinto(&[
        "read",
        station.to_str().unwrap(),
        "--select",
        "1:3",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v, serde_json::json!(["São Paulo", "Tōkyō"]));

    let dates = fixture("ds_types_v3.zarr/dt_s");
    let out = zinto(&[
        "read",
        dates.to_str().unwrap(),
        "--select",
        "0,:",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = v.as_array().unwrap();
    assert_eq!(row.len(), 5, "the index dropped its dimension: {v}");
    assert!(
        row.iter()
            .any(|d| d.as_str().is_some_and(|s| s.len() == 19 && s.contains('T'))),
        "seconds print as YYYY-MM-DDTHH:MM:SS: {v}"
    );

    let temperature = example("weather.zarr/temperature");
    let out = zinto(&[
        "read",
        temperature.to_str().unwrap(),
        "--select",
        "-1,-2:",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2, "{v}");
    // The summary prints no ratio for a read this small.
    assert!(
        !text(&out.stderr).contains("x the output"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_output_is_checked_before_the_read_and_never_left_half_written() {
    let dir = example("temperature.zarr");
    let missing = temp("no/such/folder/x.npy");
    let out = zinto(&[
        "read",
        dir.to_str().unwrap(),
        "--out",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("does not exist") && !err.contains("read "),
        "{err}"
    );

    // A read that fails leaves neither the file nor a partial one.
    let corrupt = temp("corrupt");
    std::fs::create_dir_all(corrupt.join("c/0")).unwrap();
    std::fs::copy(dir.join("zarr.json"), corrupt.join("zarr.json")).unwrap();
    std::fs::write(corrupt.join("c/0/0"), b"not zstd").unwrap();
    let target = temp("out-of-corrupt.npy");
    let out = zinto(&[
        "read",
        corrupt.to_str().unwrap(),
        "--out",
        target.to_str().unwrap(),
    ]);
    std::fs::remove_dir_all(&corrupt).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!target.exists());
    let leftovers: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .contains("out-of-corrupt.npy.zinto-partial-")
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn paths_that_are_not_arrays_say_what_they_are() {
    let weather = example("weather.zarr");
    let out = zinto(&["read", weather.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("is a group (members: lat, lon, station, temperature, time, wind_speed)"),
        "{err}"
    );
    let file = weather.join("zarr.json");
    let err = text(&zinto(&["info", file.to_str().unwrap()]).stderr);
    assert!(err.contains("is a file; pass the directory"), "{err}");
    let err = text(&zinto(&["info", "ftp://host/data.zarr"]).stderr);
    assert!(err.contains("not a store zinto reads"), "{err}");
    let err = text(
        &zinto(&[
            "read",
            weather.join("station").to_str().unwrap(),
            "--out",
            temp("s.bin").to_str().unwrap(),
        ])
        .stderr,
    );
    assert!(err.contains("raw bytes cannot hold"), "{err}");
}

/// `--out -` with stdout on a terminal: binary formats are refused before anything is read,
/// JSON is printed. The terminal is a pseudo-terminal made by util-linux's `script`.
#[cfg(target_os = "linux")]
#[test]
fn binary_output_to_a_terminal_is_refused() {
    let run = |args: &str| {
        let cmd = format!("{} {args}", env!("CARGO_BIN_EXE_zinto"));
        let out = Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .output()
            .expect("util-linux `script` makes the terminal for this test");
        (out.status.code(), text(&out.stdout))
    };
    let dir = example("temperature.zarr");
    let (code, shown) = run(&format!("read {} --select 0,0:3 --out -", dir.display()));
    assert_eq!(code, Some(2), "{shown}");
    assert!(
        shown.contains("would write binary data to the terminal"),
        "{shown}"
    );
    let (code, shown) = run(&format!(
        "read {} --select 0,0:3 --out - --format json",
        dir.display()
    ));
    assert_eq!(code, Some(0), "{shown}");
    // The terminal also shows stderr (progress bar, summary): find the printed list in it.
    let list = shown
        .rfind('[')
        .and_then(|a| Some(&shown[a..=a + shown[a..].find(']')?]))
        .unwrap_or_default();
    let values: Vec<f32> = serde_json::from_str(list).unwrap_or_default();
    assert_eq!(values.len(), 3, "{shown}");
}

fn segments(sub: &str) -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/segments");
    let mut files: Vec<String> = std::fs::read_dir(dir.join(sub))
        .unwrap()
        .map(|e| e.unwrap().path().to_str().unwrap().to_owned())
        .collect();
    files.sort();
    files
}

#[test]
fn merge_of_npy_and_msgpack_segments_writes_what_numpy_would() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/segments");
    let expected = std::fs::read(dir.join("expected_by_col1.npy")).unwrap();
    let tmp = std::env::temp_dir().join(format!("zinto-merge-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for sub in ["npy", "msgpack"] {
        let out = tmp.join(format!("{sub}.npy"));
        let files = segments(sub);
        let mut args = vec!["merge", "--key", "col=1", "--stable", "--json", "--out"];
        args.push(out.to_str().unwrap());
        args.extend(files.iter().map(String::as_str));
        let run = zinto(&args);
        assert_eq!(run.status.code(), Some(0), "{sub}: {}", text(&run.stderr));
        // The whole file, header included, is the one np.save wrote for the same rows.
        assert!(
            std::fs::read(&out).unwrap() == expected,
            "{sub}: other bytes than NumPy's"
        );
        let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        assert_eq!(summary["dtype"], "<f8");
        assert_eq!(summary["shape"], serde_json::json!([121, 3]));
        assert_eq!(summary["records"], 121);
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn merge_refusals_name_the_file_or_the_option() {
    let npy = segments("npy");
    let odd = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/segments/odd");
    let odd = |f: &str| odd.join(f).to_str().unwrap().to_owned();
    for (args, code, expected) in [
        (vec!["--record-size", "16", &npy[0]], 2, "rows of 24 bytes"),
        (vec!["--key", "col=3", &npy[0]], 2, "rows have 3 columns"),
        (
            vec![
                "--out",
                "/tmp/zinto-never.npy",
                "--record-size",
                "8",
                &odd("small.npy"),
            ],
            2,
            "",
        ),
        (vec![&odd("small.npy"), &odd("int32.npy")], 1, "<i4"),
        (vec![&odd("fortran.npy")], 1, "Fortran-ordered"),
        (vec![&odd("strings.npy")], 1, "not a fixed-width number"),
    ] {
        let mut all = vec!["merge"];
        all.extend(args.iter().copied());
        let run = zinto(&all);
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
    // Raw chunks still need --record-size, and cannot be written as .npy.
    let raw = std::env::temp_dir().join(format!("zinto-raw-{}.bin", std::process::id()));
    std::fs::write(&raw, [0u8; 48]).unwrap();
    let r = raw.to_str().unwrap();
    let run = zinto(&["merge", r]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
    assert!(text(&run.stderr).contains("--record-size is needed"));
    let run = zinto(&[
        "merge",
        "--record-size",
        "8",
        "--out",
        "/tmp/zinto-never.npy",
        r,
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("carry their type"),
        "{}",
        text(&run.stderr)
    );
    std::fs::remove_file(&raw).unwrap();
}

/// The harness's Range-capable file server (shared with tests/, std only).
#[cfg(feature = "remote")]
#[path = "../../tests/src/http.rs"]
#[allow(dead_code, clippy::unwrap_used, clippy::expect_used, missing_docs)]
mod http;

#[cfg(feature = "remote")]
#[test]
fn info_and_read_work_on_a_url_as_on_a_directory() {
    let server = http::FileServer::start(example("")).unwrap();
    let url = format!("{}/temperature.zarr", server.url());
    let local = example("temperature.zarr");
    let info = text(&zinto(&["info", &url]).stdout);
    assert!(info.contains("shape:        [360, 720]"), "{info}");
    assert!(
        info.contains("remote store: present ones not counted"),
        "{info}"
    );
    let read = |path: &str| {
        let out = zinto(&["read", path, "--select", "10:200,5:90", "--format", "json"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert_eq!(read(&url), read(local.to_str().unwrap()));
    // Every chunk of the read was one GET, and nothing asked a HEAD.
    assert!(server.requests().iter().all(|r| r.method == "GET"));
    let group = text(&zinto(&["info", &format!("{}/weather.zarr", server.url())]).stdout);
    assert!(group.contains("temperature  float32 [48, 6]"), "{group}");
    let missing = zinto(&["read", &format!("{}/nothing.zarr", server.url())]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        text(&missing.stderr).contains("/nothing.zarr: no zarr.json"),
        "{}",
        text(&missing.stderr)
    );
}

/// Without credentials, an S3 read says so and what to set (or `--anonymous`), not the
/// instance-metadata probe object_store made; an Azure URL without an account likewise. The
/// metadata endpoint is pointed at a closed port so the probe fails at once on any machine.
#[cfg(feature = "remote")]
#[test]
fn missing_credentials_say_what_to_set() {
    let run = |url: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_zinto"));
        for (k, _) in std::env::vars() {
            if k.starts_with("AWS_") || k.starts_with("AZURE_") || k.starts_with("GOOGLE_") {
                cmd.env_remove(k);
            }
        }
        let out = cmd
            .args(["info", url])
            .env("AWS_METADATA_ENDPOINT", "http://127.0.0.1:9")
            .env("AWS_REGION", "us-east-1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{url}");
        text(&out.stderr)
    };
    let said = run("s3://no-such-bucket-zinto/x.zarr");
    for part in ["no credentials found", "AWS_ACCESS_KEY_ID", "--anonymous"] {
        assert!(said.contains(part), "{part}: {said}");
    }
    assert!(!said.contains("api/token"), "{said}");
    let said = run("az://container/x.zarr");
    assert!(said.contains("AZURE_STORAGE_ACCOUNT_NAME"), "{said}");
}

/// A URL's password and a presigned URL's signature are never printed: not by `info` or
/// `read` failing (text or `--json`), not by `merge`; the URL is named with them as `***`.
#[cfg(feature = "remote")]
#[test]
fn secrets_in_urls_are_never_printed() {
    let server = http::FileServer::start(example("")).unwrap();
    let host = server.url().replacen("http://", "", 1);
    let urls = [
        format!("http://alice:hunter2secret@{host}/nothing.zarr"),
        "http://alice:hunter2secret@127.0.0.1:9/data.zarr".to_owned(),
        "https://127.0.0.1:9/data.zarr?X-Amz-Credential=AKIAcred&X-Amz-Signature=sigsecret1"
            .to_owned(),
        "https://127.0.0.1:9/c/data.zarr?sv=2022&sig=azuresassig".to_owned(),
    ];
    for url in &urls {
        for args in [
            vec!["info", url.as_str()],
            vec!["info", url.as_str(), "--json"],
            vec!["read", url.as_str()],
            vec!["merge", url.as_str(), "--key", "x", "--out", "-"],
            // clap's own usage error quotes the argument it did not expect.
            vec!["info", "somewhere", url.as_str()],
        ] {
            let out = zinto(&args);
            assert_ne!(out.status.code(), Some(0), "{args:?}");
            let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
            for secret in ["hunter2secret", "AKIAcred", "sigsecret1", "azuresassig"] {
                assert!(!said.contains(secret), "{args:?} printed {secret}: {said}");
            }
            // merge names a missing segment by its key, without the URL.
            assert!(
                said.contains("***") || args[0] == "merge",
                "{args:?}: {said}"
            );
        }
    }
    // And where it works: info names the array by its printable URL.
    let url = format!("http://alice:hunter2secret@{host}/temperature.zarr");
    for args in [
        vec!["info", url.as_str()],
        vec!["info", url.as_str(), "--json"],
    ] {
        let out = zinto(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(!said.contains("hunter2secret"), "{args:?}: {said}");
    }
    let shown = text(&zinto(&["info", &url]).stdout);
    assert!(
        shown.contains(&format!("http://***@{host}/temperature.zarr")),
        "{shown}"
    );
}

#[cfg(feature = "remote")]
#[test]
fn merge_reads_segments_from_urls_as_from_files() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/segments");
    let expected = std::fs::read(dir.join("expected_by_col1.npy")).unwrap();
    let server = http::FileServer::start(&dir).unwrap();
    let tmp = std::env::temp_dir().join(format!("zinto-merge-url-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for sub in ["npy", "msgpack"] {
        let out = tmp.join(format!("{sub}.npy"));
        let urls: Vec<String> = segments(sub)
            .iter()
            .map(|f| {
                let name = PathBuf::from(f)
                    .file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_owned();
                format!("{}/{sub}/{name}", server.url())
            })
            .collect();
        let mut args = vec!["merge", "--key", "col=1", "--stable", "--out"];
        args.push(out.to_str().unwrap());
        args.extend(urls.iter().map(String::as_str));
        let run = zinto(&args);
        assert_eq!(run.status.code(), Some(0), "{sub}: {}", text(&run.stderr));
        assert!(
            std::fs::read(&out).unwrap() == expected,
            "{sub}: other bytes"
        );
    }
    // URLs on two servers, or URLs mixed with files, are refused by name.
    let mixed = zinto(&[
        "merge",
        "--out",
        "-",
        &format!("{}/npy/a.npy", server.url()),
        "x.npy",
    ]);
    assert_eq!(mixed.status.code(), Some(2), "{}", text(&mixed.stderr));
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn outputs_over_four_mib_read_into_mapped_memory_the_same_bytes() {
    // 1,100 x 1,024 uint32 = 4.5 MB: the command maps its output (huge pages asked for).
    let dir = std::env::temp_dir().join(format!("zinto-big-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a/c/0")).unwrap();
    std::fs::write(
        dir.join("a/zarr.json"),
        r#"{"zarr_format": 3, "node_type": "array", "shape": [1100, 1024], "data_type": "uint32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [600, 1024]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 7,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}"#,
    )
    .unwrap();
    let values: Vec<u8> = (0..600u32 * 1024).flat_map(u32::to_le_bytes).collect();
    std::fs::write(dir.join("a/c/0/0"), &values).unwrap();
    // Chunk (1, 0) is missing: its rows read as the fill value.
    let out = dir.join("out.bin");
    let run = zinto(&[
        "read",
        dir.join("a").to_str().unwrap(),
        "--format",
        "raw",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let got = std::fs::read(&out).unwrap();
    assert_eq!(got.len(), 1100 * 1024 * 4);
    assert!(got[..values.len()] == values[..]);
    assert!(
        got[values.len()..]
            .chunks_exact(4)
            .all(|v| v == 7u32.to_ne_bytes())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A reader that closes stdout early (`zinto info | head`) ends `zinto` quietly: exit 0, no
/// panic, nothing on stderr. The pipe's read end is closed before `zinto` starts, so every
/// write fails with a broken pipe.
#[test]
fn a_closed_stdout_ends_zinto_quietly() {
    let group = example("weather.zarr");
    let array = group.join("temperature");
    let (g, a) = (group.to_str().unwrap(), array.to_str().unwrap());
    for args in [
        &["info", g][..],
        &["info", g, "--json"],
        &["info", a],
        &["read", a, "--out", "-", "--format", "npy"],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_zinto"))
            .args(args)
            .stdout(writer)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stderr), "", "{args:?}");
    }
}

/// `info --json` on a group whose member cannot be opened still lists it, with its path as
/// every other entry has.
#[test]
fn a_broken_member_carries_its_path() {
    let dir = temp("broken_member.zarr");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub/bad")).unwrap();
    let group = r#"{"zarr_format": 3, "node_type": "group"}"#;
    std::fs::write(dir.join("zarr.json"), group).unwrap();
    std::fs::write(dir.join("sub/zarr.json"), group).unwrap();
    let broken = r#"{"zarr_format": 3, "node_type": "array"}"#;
    std::fs::write(dir.join("sub/bad/zarr.json"), broken).unwrap();
    let out = zinto(&["info", dir.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bad = &v["members"][0]["members"][0];
    assert_eq!(bad["name"], "bad", "{v}");
    assert_eq!(bad["path"], "sub/bad", "{v}");
    assert!(bad["error"].is_string(), "{v}");
}

/// A hierarchy nested deeper than info descends (here 100 groups, one in another) is an
/// error naming the group, text and `--json`, not a stack overflow; a shallower one is shown.
#[test]
fn info_refuses_a_hierarchy_nested_too_deep() {
    let dir = temp("deep.zarr");
    let nest = |levels: usize| {
        let _ = std::fs::remove_dir_all(&dir);
        let mut at = dir.clone();
        for _ in 0..=levels {
            std::fs::create_dir_all(&at).unwrap();
            std::fs::write(
                at.join("zarr.json"),
                r#"{"zarr_format": 3, "node_type": "group"}"#,
            )
            .unwrap();
            at.push("a");
        }
    };
    let path = dir.to_str().unwrap();
    nest(100);
    for args in [vec!["info", path], vec!["info", path, "--json"]] {
        let out = zinto(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            text(&out.stderr).contains("deeper than 64 levels"),
            "{}",
            text(&out.stderr)
        );
    }
    nest(10);
    let out = zinto(&["info", path]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An array whose metadata claims 2,000,001 chunks of one element: `info` counts none of them
/// (one stat each would be two million), and `--format json` refuses the selection before
/// reading it; both say the limit.
#[test]
fn claims_of_millions_of_chunks_are_not_walked() {
    let dir = temp("millions.zarr");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let meta = r#"{"zarr_format": 2, "shape": [2000001], "chunks": [1], "dtype": "|u1",
        "compressor": null, "fill_value": 0, "filters": null, "order": "C"}"#;
    std::fs::write(dir.join(".zarray"), meta).unwrap();
    let path = dir.to_str().unwrap();
    let out = zinto(&["info", path]);
    assert!(
        text(&out.stdout).contains("2000001 in all (more than 1000000: present ones not counted)"),
        "{}",
        text(&out.stdout)
    );
    let out = zinto(&["read", path, "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("more than 1000000"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A named pipe where a chunk belongs is refused at once (an open would wait for a writer
/// forever), naming the chunk, never read as missing.
#[cfg(unix)]
#[test]
fn a_fifo_where_a_chunk_belongs_is_refused() {
    let dir = temp("fifo.zarr");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("c/0")).unwrap();
    std::fs::copy(
        example("temperature.zarr").join("zarr.json"),
        dir.join("zarr.json"),
    )
    .unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.join("c/0/0"))
        .status()
        .unwrap();
    assert!(made.success());
    let out = zinto(&["read", dir.to_str().unwrap(), "--select", "0:1,0:1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("\"c/0/0\" is not a regular file"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--no-symlinks` refuses a symbolic link inside the array (here its metadata, moved out
/// and linked back), which is followed by default.
#[cfg(unix)]
#[test]
fn no_symlinks_refuses_links_inside_the_array() {
    let dir = temp("linked.zarr");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let outside = temp("linked-meta.json");
    std::fs::copy(example("temperature.zarr").join("zarr.json"), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("zarr.json")).unwrap();
    let path = dir.to_str().unwrap();
    let out = zinto(&["info", path]);
    assert!(
        text(&out.stdout).contains("[360, 720]"),
        "{}",
        text(&out.stderr)
    );
    let out = zinto(&["info", path, "--no-symlinks"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("symbolic link"),
        "{}",
        text(&out.stderr)
    );
}

/// A v2 array whose chunks were written nested (`0/0`, zarr-python 2's `NestedDirectoryStore`)
/// while `.zarray` states no `dimension_separator` reads as that store read it: its chunks
/// under `/`. Where `.zarray` does state `.`, the chunks are looked for there only, and `info`
/// warns of the ones under the other separator rather than only counting no chunk present.
#[test]
fn nested_chunks_read_unless_the_metadata_states_otherwise() {
    let dir = temp("nested_without_separator.zarr");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("0")).unwrap();
    let meta = r#"{"zarr_format": 2, "shape": [2, 2], "chunks": [2, 2], "dtype": "|i1",
        "compressor": null, "fill_value": 0, "filters": null, "order": "C"}"#;
    std::fs::write(dir.join(".zarray"), meta).unwrap();
    std::fs::write(dir.join("0/0"), [1u8, 2, 3, 4]).unwrap();
    let path = dir.to_str().unwrap();
    let out = zinto(&["read", path, "--format", "json"]);
    assert_eq!(
        text(&out.stdout).trim(),
        "[[1,2],[3,4]]",
        "{}",
        text(&out.stderr)
    );
    let s = text(&zinto(&["info", path]).stdout);
    assert!(s.contains("1 present") && !s.contains("warning"), "{s}");
    // Stated, the separator is the metadata's: the nested chunk is not read.
    let stated = meta.replace(
        r#""order": "C""#,
        r#""order": "C", "dimension_separator": ".""#,
    );
    std::fs::write(dir.join(".zarray"), stated).unwrap();
    let out = zinto(&["read", path, "--format", "json"]);
    assert_eq!(text(&out.stdout).trim(), "[[0,0],[0,0]]");
    let s = text(&zinto(&["info", path]).stdout);
    assert!(
        s.contains("0 present") && s.contains("chunks under '/'"),
        "{s}"
    );
    let out = zinto(&["info", path, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["chunks_under_other_separator"], "/", "{v}");
    // Stored as the metadata says, no warning.
    std::fs::remove_dir_all(dir.join("0")).unwrap();
    std::fs::write(dir.join("0.0"), [1u8, 2, 3, 4]).unwrap();
    let s = text(&zinto(&["info", path]).stdout);
    assert!(s.contains("1 present") && !s.contains("warning"), "{s}");
}

/// `zinto create` killed (SIGKILL) at 50 moments through its run leaves every chunk whole:
/// each reads (a torn gzip stream would not) as either the old values or the new ones.
#[test]
#[allow(clippy::cast_possible_truncation)] // microseconds and offsets of a 1 MB array
fn a_write_killed_at_any_moment_leaves_no_torn_chunk() {
    use std::time::{Duration, Instant};
    let dir = std::env::temp_dir().join(format!("zinto-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (old, new) = (dir.join("old.npy"), dir.join("new.npy"));
    let src = example("temperature.zarr");
    let out = zinto(&[
        "read",
        src.to_str().unwrap(),
        "--out",
        old.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The same array with every value's sign flipped.
    let mut bytes = std::fs::read(&old).unwrap();
    let data_at = bytes.len() - 360 * 720 * 4;
    for f in bytes[data_at..].chunks_exact_mut(4) {
        f[3] ^= 0x80;
    }
    std::fs::write(&new, &bytes).unwrap();
    let dst = dir.join("t.zarr");
    let create = |from: &PathBuf| {
        Command::new(env!("CARGO_BIN_EXE_zinto"))
            .args([
                "create",
                dst.to_str().unwrap(),
                "--from",
                from.to_str().unwrap(),
            ])
            .args([
                "--chunks",
                "10,720",
                "--codec",
                "gzip:9",
                "--threads",
                "1",
                "--overwrite",
            ])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let started = Instant::now();
    assert!(create(&old).wait().unwrap().success());
    let full = started.elapsed();
    let values = |p: &PathBuf| std::fs::read(p).unwrap()[data_at..].to_vec();
    let (old_values, new_values) = (values(&old), values(&new));
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut killed = 0;
    for round in 0..50 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut child = create(if round % 2 == 0 { &new } else { &old });
        std::thread::sleep(Duration::from_micros(x % (full.as_micros() as u64 + 1)));
        if child.try_wait().unwrap().is_none() {
            killed += 1;
        }
        let _ = child.kill();
        child.wait().unwrap();
        let array = zinto::Array::open(zinto::FileStore::new(&dst), "").unwrap();
        for row in 0..36u64 {
            let region = zinto::Region::new(&[row * 10, 0], &[10, 720]).unwrap();
            let got = array
                .read_to_vec(&region)
                .unwrap_or_else(|e| panic!("round {round}, rows {}: {e}", row * 10));
            let at = (row * 10 * 720 * 4) as usize;
            let want = |v: &[u8]| got == v[at..at + got.len()];
            // --overwrite removes the array's old chunks first (a stale one would read as
            // data): a chunk not yet written again reads as the fill value, 0, which no
            // temperature row is.
            let unwritten = got.iter().all(|&b| b == 0);
            assert!(
                want(&old_values) || want(&new_values) || unwritten,
                "round {round}: chunk {row} is neither old, new nor unwritten"
            );
        }
    }
    assert!(
        killed >= 25,
        "only {killed} of 50 runs were killed before they ended"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `zinto convert` of the v2 example (zlib) into v3 zstd, in slabs of one chunk row, reads
/// back as the source does; a `--memory` below one slab is a usage error that says so.
#[test]
fn convert_reencodes_v2_into_v3_equal_to_the_source() {
    let dir = std::env::temp_dir().join(format!("zinto-convert-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let src = example("legacy_v2.zarr");
    let dst = dir.join("v3.zarr");
    let (src, dst_s) = (src.to_str().unwrap(), dst.to_str().unwrap());
    // One row of 32 x 32 int32 chunks across 80 columns: 32 x 80 x 4 bytes.
    let out = zinto(&["convert", src, dst_s, "--memory", "10240", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["bytes"], 100 * 80 * 4);
    let info = text(&zinto(&["info", dst_s]).stdout);
    assert!(
        info.contains("Zarr v3") && info.contains("zstd(level 3)"),
        "{info}"
    );
    let read = |p: &str| zinto(&["read", p, "--format", "raw", "--out", "-"]).stdout;
    assert!(read(src) == read(dst_s), "the converted array differs");
    let out = zinto(&[
        "convert",
        src,
        dir.join("small.zarr").to_str().unwrap(),
        "--memory",
        "10000",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--memory 10000: one slab"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--chunks '[[...], n]'` makes a rectilinear grid (zarr-python 3.4's spelling): the
/// example's (360, 720) temperatures in rows of 100, 200 and 60 (the 200 given as two
/// runs' worth, `[100, 100]`, stored as a run) and columns of 250, in slabs of a
/// `--memory` under the whole (slabs end on the grid's edges); it reads back equal, states
/// the edges compactly, and converts into another grid; bad edges are usage errors.
#[test]
fn create_and_convert_take_rectilinear_edges() {
    let dir = temp("rect-create");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let npy = dir.join("t.npy");
    let src = example("temperature.zarr");
    let out = zinto(&[
        "read",
        src.to_str().unwrap(),
        "--out",
        npy.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let dst = dir.join("rect.zarr");
    let dst_s = dst.to_str().unwrap();
    let out = zinto(&[
        "create",
        dst_s,
        "--from",
        npy.to_str().unwrap(),
        "--chunks",
        "[[100,100,100,60],250]",
        "--memory",
        "300000",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dst.join("zarr.json")).unwrap()).unwrap();
    assert_eq!(
        meta["chunk_grid"],
        serde_json::json!({"name": "rectilinear", "configuration": {
            "kind": "inline", "chunk_shapes": [[[100, 3], 60], 250]}})
    );
    assert!(dst.join("c/3/2").exists(), "the last chunk is stored");
    let read = |p: &str| zinto(&["read", p, "--format", "raw", "--out", "-"]).stdout;
    assert!(
        read(src.to_str().unwrap()) == read(dst_s),
        "the rectilinear copy differs"
    );
    let info = text(&zinto(&["info", dst_s]).stdout);
    assert!(info.contains("rectilinear"), "{info}");
    let again = dir.join("again.zarr");
    let out = zinto(&[
        "convert",
        dst_s,
        again.to_str().unwrap(),
        "--chunks",
        "[[7,353],[360,360]]",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        read(dst_s) == read(again.to_str().unwrap()),
        "the converted copy differs"
    );
    // Shards on a rectilinear grid: the edges go to --shards, --chunks is the inner chunk.
    let sharded = dir.join("sharded.zarr");
    let convert = |to: &std::path::Path, chunks: &str, shards: &str| {
        let to = to.to_str().unwrap();
        zinto(&["convert", dst_s, to, "--chunks", chunks, "--shards", shards])
    };
    let out = convert(&sharded, "20,50", "[[40,120,200],500]");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sharded.join("zarr.json")).unwrap()).unwrap();
    assert_eq!(
        meta["chunk_grid"]["configuration"]["chunk_shapes"],
        serde_json::json!([[40, 120, 200], 500])
    );
    assert!(
        read(dst_s) == read(sharded.to_str().unwrap()),
        "the sharded copy differs"
    );
    let info = text(&zinto(&["info", sharded.to_str().unwrap()]).stdout);
    assert!(info.contains("shard edges:  [40, 120, 200] x "), "{info}");
    for (chunks, shards, says) in [
        (
            "[[20,340],50]",
            "40,500",
            "give the rectilinear grid to --shards",
        ),
        (
            "20,50",
            "[[30,330],500]",
            "not a multiple of the inner chunk's 20",
        ),
    ] {
        let out = convert(&dir.join("bad.zarr"), chunks, shards);
        let err = text(&out.stderr);
        assert!(err.contains(says), "{chunks} {shards}: {err}");
        assert!(!dir.join("bad.zarr").join("zarr.json").exists());
    }
    for bad in [
        "[[100,100],250]",
        "[[0,360],250]",
        "[[360]]",
        "[[360],[250,\"x\"]]",
    ] {
        let out = zinto(&[
            "create",
            dir.join("bad.zarr").to_str().unwrap(),
            "--from",
            npy.to_str().unwrap(),
            "--chunks",
            bad,
        ]);
        assert_ne!(out.status.code(), Some(0), "{bad} was taken");
        let err = text(&out.stderr);
        assert!(
            err.contains("--chunks") || err.contains("chunk edges"),
            "{bad}: {err}"
        );
        assert!(
            !dir.join("bad.zarr").join("zarr.json").exists(),
            "{bad} left metadata"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A rectilinear source (zarr-python 3.4.2's `z34_rect_2d`) converts with the chunk shape
/// given, read back equal; without `--chunks` the command says why it stops and writes
/// nothing (it writes regular grids, and does not pick one silently).
#[test]
fn convert_of_a_rectilinear_array_asks_for_the_chunk_shape() {
    let dir = std::env::temp_dir().join(format!("zinto-convert-rect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let src = fixture("z34_rect_2d");
    let src = src.to_str().unwrap();
    let refused = dir.join("refused.zarr");
    let out = zinto(&["convert", src, refused.to_str().unwrap()]);
    assert_ne!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(
        err.contains("rectilinear") && err.contains("--chunks"),
        "{err}"
    );
    assert!(
        !refused.exists(),
        "a refused convert left {}",
        refused.display()
    );
    let dst = dir.join("regular.zarr");
    let dst = dst.to_str().unwrap();
    let out = zinto(&["convert", src, dst, "--chunks", "30,25"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let read = |p: &str| zinto(&["read", p, "--format", "raw", "--out", "-"]).stdout;
    assert!(read(src) == read(dst), "the converted array differs");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A group converts whole: its attributes, its arrays (each read back equal) and the group
/// below it, v3 into v2.
#[test]
fn convert_takes_a_group_and_everything_below_it() {
    use zinto::{ArrayBuilder, DataType, FileStore, Group, Region, ZarrFormat};
    let dir = std::env::temp_dir().join(format!("zinto-convert-group-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let src = dir.join("src.zarr");
    let mut attrs = serde_json::Map::new();
    attrs.insert("title".into(), "two arrays".into());
    Group::create(FileStore::new(&src), "", ZarrFormat::V3, attrs).unwrap();
    Group::create(
        FileStore::new(&src),
        "inner",
        ZarrFormat::V3,
        serde_json::Map::new(),
    )
    .unwrap();
    let values: Vec<u8> = (0..60u16).flat_map(u16::to_ne_bytes).collect();
    for path in ["a", "inner/b"] {
        let array = ArrayBuilder::new(&[6, 10], DataType::UInt16, &[4, 4])
            .zstd(1)
            .create(FileStore::new(&src), path)
            .unwrap();
        array
            .write_from(&Region::whole(&[6, 10]).unwrap(), &values)
            .unwrap();
    }
    let dst = dir.join("dst.zarr");
    let out = zinto(&[
        "convert",
        src.to_str().unwrap(),
        dst.to_str().unwrap(),
        "--zarr-format",
        "2",
        "--codec",
        "zlib:1",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let group = Group::open(FileStore::new(&dst), "").unwrap();
    assert_eq!(group.format(), ZarrFormat::V2);
    assert_eq!(group.attributes().unwrap()["title"], "two arrays");
    for path in ["a", "inner/b"] {
        let array = zinto::Array::open(FileStore::new(&dst), path).unwrap();
        assert_eq!(
            array
                .read_to_vec(&Region::whole(&[6, 10]).unwrap())
                .unwrap(),
            values,
            "{path}"
        );
        assert!(dst.join(path).join(".zarray").exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `zinto create --from FILE --dtype T --shape S` takes a raw file of C-order values: the array
/// reads back as the same values the `.npy` import gives; a file of another length, or an
/// unknown type, is refused by name before any metadata is written.
#[test]
fn create_from_a_raw_file_with_dtype_and_shape() {
    let dir = temp("raw-create");
    std::fs::create_dir_all(&dir).unwrap();
    let npy = dir.join("t.npy");
    let src = example("temperature.zarr");
    let out = zinto(&[
        "read",
        src.to_str().unwrap(),
        "--out",
        npy.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (_, _, data) = parse_npy(&std::fs::read(&npy).unwrap());
    let raw = dir.join("t.raw");
    std::fs::write(&raw, &data).unwrap();
    let dst = dir.join("r.zarr");
    let create = |shape: &str, dtype: &str| {
        zinto(&[
            "create",
            dst.to_str().unwrap(),
            "--from",
            raw.to_str().unwrap(),
            "--dtype",
            dtype,
            "--shape",
            shape,
            "--chunks",
            "90,120",
            "--codec",
            "zstd:3",
            "--memory",
            "259200", // one row of chunks: four slabs
        ])
    };
    let out = create("360,720", "float32");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let back = zinto::Array::open(zinto::FileStore::new(&dst), "").unwrap();
    let whole = zinto::Region::whole(&[360, 720]).unwrap();
    assert!(
        back.read_to_vec(&whole).unwrap() == data,
        "the raw import reads back otherwise"
    );
    std::fs::remove_dir_all(&dst).unwrap();
    let out = create("360,721", "float32");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains("holds 1036800 bytes; --dtype float32 and --shape state 1038240"),
        "{}",
        text(&out.stderr)
    );
    let out = create("360,720", "float31");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--dtype float31: not a number type"));
    assert!(!dst.exists(), "a refused import wrote metadata");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A 0-d array through the slab paths: `read --out` writes its one element after the header,
/// `create` takes it back from that `.npy`, `convert` copies it; each reads back the value.
#[test]
fn a_scalar_goes_through_read_create_and_convert() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/data/v3_scalar");
    let dir = temp("scalar");
    std::fs::create_dir_all(&dir).unwrap();
    let npy = dir.join("s.npy");
    let out = zinto(&[
        "read",
        src.to_str().unwrap(),
        "--out",
        npy.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (descr, shape, data) = parse_npy(&std::fs::read(&npy).unwrap());
    assert_eq!((descr.as_str(), shape.len(), data.len()), ("<f8", 0, 8));
    let value = zinto::Array::open(zinto::FileStore::new(&src), "")
        .unwrap()
        .read_to_vec(&zinto::Region::whole(&[]).unwrap())
        .unwrap();
    assert_eq!(data, value);
    for (what, args) in [
        (
            "create",
            vec![
                "create",
                "DST",
                "--from",
                npy.to_str().unwrap(),
                "--chunks",
                "",
            ],
        ),
        (
            "convert",
            vec![
                "convert",
                src.to_str().unwrap(),
                "DST",
                "--zarr-format",
                "2",
            ],
        ),
    ] {
        let dst = dir.join(format!("{what}.zarr"));
        let args: Vec<&str> = args
            .iter()
            .map(|a| {
                if *a == "DST" {
                    dst.to_str().unwrap()
                } else {
                    a
                }
            })
            .collect();
        let out = zinto(&args);
        assert_eq!(out.status.code(), Some(0), "{what}: {}", text(&out.stderr));
        let back = zinto::Array::open(zinto::FileStore::new(&dst), "")
            .unwrap()
            .read_to_vec(&zinto::Region::whole(&[]).unwrap())
            .unwrap();
        assert_eq!(back, value, "{what}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A read in slabs that fails in its last slab (a corrupt chunk in the last row of chunks)
/// leaves neither the output file nor its temporary one.
#[test]
fn a_read_failing_in_a_later_slab_leaves_no_file() {
    let dir = temp("late-failure");
    let arr = dir.join("t.zarr");
    std::fs::create_dir_all(arr.join("c/3")).unwrap();
    let src = example("temperature.zarr");
    std::fs::copy(src.join("zarr.json"), arr.join("zarr.json")).unwrap();
    for row in 0..4 {
        std::fs::create_dir_all(arr.join(format!("c/{row}"))).unwrap();
        for col in 0..6 {
            let key = format!("c/{row}/{col}");
            let _ = std::fs::copy(src.join(&key), arr.join(&key));
        }
    }
    std::fs::write(arr.join("c/3/5"), b"not zstd at all").unwrap();
    let npy = dir.join("out.npy");
    let out = zinto(&[
        "read",
        arr.to_str().unwrap(),
        "--out",
        npy.to_str().unwrap(),
        "--memory",
        "259200", // one row of chunks: the corrupt chunk is in the fourth slab
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("c/3/5"), "{}", text(&out.stderr));
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["t.zarr"], "files left behind");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Strings read without `--out` (a timed read, the data discarded) are read, not refused for
/// the raw format no file asked for; `--format raw` into a file still is.
#[test]
fn strings_read_without_an_output_are_read() {
    let strings = fixture("ds_types_v3.zarr/vlen_str_zstd");
    let out = zinto(&["read", strings.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(summary["bytes"].as_u64().unwrap() > 0, "{summary}");
    let file = temp("strings.raw");
    let out = zinto(&[
        "read",
        strings.to_str().unwrap(),
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(!file.exists());
}

/// `--select` with lists and steps (issue 62): each dimension on its own, in any order with
/// repeats, gathered as NumPy's `a[np.ix_(rows, cols)]` gives it.
#[test]
fn select_takes_lists_and_steps() {
    // legacy_v2.zarr holds (i * 80 + j) % 977 as int32.
    let dir = example("legacy_v2.zarr");
    let value = |i: i32, j: i32| (i * 80 + j) % 977;
    for (sel, rows, cols) in [
        ("[10,3,3],5:9", vec![10, 3, 3], vec![5, 6, 7, 8]),
        ("::-40,[0,-1]", vec![99, 59, 19], vec![0, 79]),
        ("[-1],1:80:26", vec![99], vec![1, 27, 53, 79]),
    ] {
        let out = zinto(&[
            "read",
            dir.to_str().unwrap(),
            "--select",
            sel,
            "--out",
            "-",
            "--format",
            "raw",
        ]);
        assert_eq!(out.status.code(), Some(0), "{sel}: {}", text(&out.stderr));
        let want: Vec<u8> = rows
            .iter()
            .flat_map(|&i| cols.iter().map(move |&j| value(i, j)))
            .flat_map(i32::to_ne_bytes)
            .collect();
        assert_eq!(out.stdout, want, "{sel}");
    }
    let out = zinto(&["read", dir.to_str().unwrap(), "--select", "[100]"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("out of bounds for axis 0"),
        "{}",
        text(&out.stderr)
    );
}
