//! numpy-like selections: `start:stop`, `:`, `start:`, `:stop`, or a single index per dimension.

use zinto::Region;

/// Parses `sel` against an array of `shape`. Fewer items than dimensions select the rest whole,
/// as in numpy; a single index keeps its dimension with length 1.
pub fn parse(sel: &str, shape: &[u64]) -> Result<Region, String> {
    let items: Vec<&str> = if sel.trim().is_empty() {
        vec![]
    } else {
        sel.split(',').map(str::trim).collect()
    };
    if items.len() > shape.len() {
        return Err(format!(
            "selection {sel:?} has {} items, the array has {} dimensions",
            items.len(),
            shape.len()
        ));
    }
    let mut start = Vec::with_capacity(shape.len());
    let mut size = Vec::with_capacity(shape.len());
    for (dim, &n) in shape.iter().enumerate() {
        let (a, b) = match items.get(dim) {
            None => (0, n),
            Some(item) => item_range(item, n, dim)?,
        };
        start.push(a);
        size.push(b - a);
    }
    Region::new(&start, &size).map_err(|e| e.to_string())
}

fn item_range(item: &str, n: u64, dim: usize) -> Result<(u64, u64), String> {
    let num = |s: &str| -> Result<u64, String> {
        s.trim()
            .parse::<u64>()
            .map_err(|_| format!("{s:?} in dimension {dim} is not a non-negative integer"))
    };
    let (a, b) = match item.split_once(':') {
        None => {
            let i = num(item)?;
            if i >= n {
                return Err(format!(
                    "index {i} is out of range for dimension {dim} of length {n}"
                ));
            }
            (i, i + 1)
        }
        Some((a, b)) => {
            let a = if a.trim().is_empty() { 0 } else { num(a)? };
            let b = if b.trim().is_empty() { n } else { num(b)? };
            (a, b)
        }
    };
    if a > b || b > n {
        return Err(format!(
            "{item:?} is not a range within 0..{n} (dimension {dim})"
        ));
    }
    Ok((a, b))
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn forms() {
        let r = parse("10:200,5:90", &[300, 100]).unwrap();
        assert_eq!((r.start(), r.shape()), (&[10, 5][..], &[190, 85][..]));
        let r = parse(":,3:,:7,4", &[10, 10, 10, 10]).unwrap();
        assert_eq!(r.start(), &[0, 3, 0, 4]);
        assert_eq!(r.shape(), &[10, 7, 7, 1]);
        let r = parse("2", &[5, 6]).unwrap();
        assert_eq!((r.start(), r.shape()), (&[2, 0][..], &[1, 6][..]));
        let r = parse("", &[]).unwrap();
        assert_eq!(r.ndim(), 0);
    }

    #[test]
    fn errors() {
        assert!(parse("1,2,3", &[5, 5]).is_err());
        assert!(parse("5", &[5]).is_err());
        assert!(parse("3:2", &[5]).is_err());
        assert!(parse("0:6", &[5]).is_err());
        assert!(parse("-1", &[5]).is_err());
        assert!(parse("a:b", &[5]).is_err());
    }
}
