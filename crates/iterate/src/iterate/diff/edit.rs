//! Shortest edit scripts (Myers, bounded) over two sequences, and the side-by-side rows and
//! character-level diff a request diff shows from them.

use super::*;

/// The side-by-side rows of two sequences from index `start` on: a shortest edit script over
/// their elements, adjacent removals and additions paired as changes; `left` and `right` show
/// the element at an index of each side.
pub(crate) fn rows_with<T: PartialEq>(
    (from, to): (&[T], &[T]),
    start: usize,
    left: impl Fn(usize) -> DiffMessage,
    right: impl Fn(usize) -> DiffMessage,
) -> Vec<DiffRow> {
    let a = &from[start.min(from.len())..];
    let b = &to[start.min(to.len())..];
    let (edits, _) = edit_script(a, b);
    let mut rows = Vec::new();
    let (mut i, mut j) = (0usize, 0usize);
    let mut removed: Vec<usize> = Vec::new();
    let mut added: Vec<usize> = Vec::new();
    let flush = |removed: &mut Vec<usize>, added: &mut Vec<usize>, rows: &mut Vec<DiffRow>| {
        let pairs = removed.len().max(added.len());
        for k in 0..pairs {
            let from = removed.get(k).map(|&x| left(start + x));
            let to = added.get(k).map(|&y| right(start + y));
            let op = match (&from, &to) {
                (Some(_), Some(_)) => DiffOp::Changed,
                (Some(_), None) => DiffOp::Removed,
                _ => DiffOp::Added,
            };
            rows.push(DiffRow { op, from, to });
        }
        removed.clear();
        added.clear();
    };
    for edit in edits {
        match edit {
            Edit::Same => {
                flush(&mut removed, &mut added, &mut rows);
                rows.push(DiffRow {
                    op: DiffOp::Same,
                    from: Some(left(start + i)),
                    to: Some(right(start + j)),
                });
                i += 1;
                j += 1;
            }
            Edit::Delete => {
                removed.push(i);
                i += 1;
            }
            Edit::Insert => {
                added.push(j);
                j += 1;
            }
        }
    }
    flush(&mut removed, &mut added, &mut rows);
    rows
}

pub(crate) fn character_diff(message: u64, a: &Message, b: &Message) -> CharacterDiff {
    let left: Vec<char> = a.content.chars().collect();
    let right: Vec<char> = b.content.chars().collect();
    let head = common_prefix(&left, &right);
    let tail = left[head..]
        .iter()
        .rev()
        .zip(right[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let middle_a = &left[head..left.len() - tail];
    let middle_b = &right[head..right.len() - tail];
    let mut segments: Vec<TextSegment> = Vec::new();
    let mut push = |op: DiffOp, c: &[char]| {
        if c.is_empty() {
            return;
        }
        match segments.last_mut() {
            Some(last) if last.op == op => last.text.extend(c),
            _ => segments.push(TextSegment {
                op,
                text: c.iter().collect(),
            }),
        }
    };
    push(DiffOp::Same, &left[..head]);
    let coarse = if middle_a.len().max(middle_b.len()) > MAX_CHARACTER_DIFF {
        push(DiffOp::Removed, middle_a);
        push(DiffOp::Added, middle_b);
        true
    } else {
        let (edits, coarse) = edit_script(middle_a, middle_b);
        let (mut i, mut j) = (0usize, 0usize);
        for edit in edits {
            match edit {
                Edit::Same => {
                    push(DiffOp::Same, &middle_a[i..=i]);
                    i += 1;
                    j += 1;
                }
                Edit::Delete => {
                    push(DiffOp::Removed, &middle_a[i..=i]);
                    i += 1;
                }
                Edit::Insert => {
                    push(DiffOp::Added, &middle_b[j..=j]);
                    j += 1;
                }
            }
        }
        coarse
    };
    push(DiffOp::Same, &left[left.len() - tail..]);
    CharacterDiff {
        message,
        from_role: a.role,
        to_role: b.role,
        segments,
        coarse,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Edit {
    Same,
    Delete,
    Insert,
}

/// A shortest edit script (Myers), or, past `MAX_EDIT_DISTANCE`, every element of `a`
/// removed and every element of `b` added; the flag says which.
pub(super) fn edit_script<T: PartialEq>(a: &[T], b: &[T]) -> (Vec<Edit>, bool) {
    match myers(a, b, MAX_EDIT_DISTANCE) {
        Some(edits) => (edits, false),
        None => {
            let mut edits = vec![Edit::Delete; a.len()];
            edits.extend(std::iter::repeat_n(Edit::Insert, b.len()));
            (edits, true)
        }
    }
}

/// Myers' O((N+M)·D) shortest edit script, or none when it needs more than `max_d` edits. Each
/// round keeps only the diagonals it can reach (`-d-1 ..= d+1`) for the walk back.
pub(super) fn myers<T: PartialEq>(a: &[T], b: &[T], max_d: usize) -> Option<Vec<Edit>> {
    let (n, m) = (a.len() as i64, b.len() as i64);
    let limit = ((n + m) as usize).min(max_d) as i64;
    let centre = limit + 1;
    let mut v = vec![0i64; (2 * limit + 3) as usize];
    let mut trace: Vec<Vec<i64>> = Vec::new();
    let at = |v: &[i64], k: i64| v[(k + centre) as usize];
    for d in 0..=limit {
        let lo = (centre - d - 1) as usize;
        let hi = (centre + d + 1) as usize;
        trace.push(v[lo..=hi].to_vec());
        let mut k = -d;
        while k <= d {
            let mut x = if k == -d || (k != d && at(&v, k - 1) < at(&v, k + 1)) {
                at(&v, k + 1)
            } else {
                at(&v, k - 1) + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[(k + centre) as usize] = x;
            if x >= n && y >= m {
                return Some(walk_back(&trace, d, n, m));
            }
            k += 2;
        }
    }
    None
}

fn walk_back(trace: &[Vec<i64>], last: i64, n: i64, m: i64) -> Vec<Edit> {
    let mut edits = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (0..=last).rev() {
        let v = &trace[d as usize];
        // trace[d] holds diagonals -d-1 ..= d+1 as they were before round d.
        let at = |k: i64| v[(k + d + 1) as usize];
        let k = x - y;
        let previous_k = if k == -d || (k != d && at(k - 1) < at(k + 1)) {
            k + 1
        } else {
            k - 1
        };
        let previous_x = at(previous_k);
        let previous_y = previous_x - previous_k;
        while x > previous_x && y > previous_y {
            edits.push(Edit::Same);
            x -= 1;
            y -= 1;
        }
        if d > 0 {
            edits.push(if x == previous_x {
                Edit::Insert
            } else {
                Edit::Delete
            });
        }
        x = previous_x;
        y = previous_y;
    }
    edits.reverse();
    edits
}
