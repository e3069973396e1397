//! The Go policy network's forward pass (issue 44): a residual tower trained by
//! `scripts/train-go-policy` that gives each of the 361 points of a 19×19 board a logit for being
//! the next move. This module reads the exported weights (format `baduk-go-policy 1`, described
//! in `scripts/go-policy/train.py`) and computes the logits from the 17 input planes (version 1,
//! `scripts/go-policy/goboard.py`). The search uses it for the priors of the nodes nearest the
//! root (`priors=net`, [`super::mcts::Tree::with_net`]).
//!
//! The planes are built here from the compact position the Python side stores (board codes and
//! meta, [`planes_from_compact`]); the tests compare both the planes and the logits with a
//! fixture written by PyTorch (`train.py --test-model crates/search/tests/data`).

use super::board::{Colour, FastBoard, Idx, PASS};
use std::fmt;

/// Points of the 19×19 board.
pub const POINTS: usize = 361;
/// Input planes (version 1).
pub const PLANES: usize = 17;
/// The version of the input planes this module builds and accepts.
pub const PLANES_VERSION: u32 = 1;
/// The export format's first line.
pub const FORMAT: &str = "baduk-go-policy 1";
/// "No point" in the compact meta (no ko, no last move or a pass).
pub const NONE: usize = POINTS;

const SIDE: usize = 19;
/// Activations are kept padded by one zero point on every side: 21×21 per channel.
const PSIDE: usize = SIDE + 2;
const PAREA: usize = PSIDE * PSIDE;
/// Zero points after the padded board in every activation buffer, so that a kernel working on
/// runs of consecutive points may read past the last one.
const SLACK: usize = 32;
/// Points of every activation buffer.
const BUF: usize = PAREA + SLACK;

/// A weights file that cannot be used: which file, and what is wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub struct NetError {
    pub file: String,
    pub message: String,
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

impl std::error::Error for NetError {}

/// A 3×3 (or 1×1) convolution with its bias, batch norm folded in by the exporter.
#[derive(Debug, Clone)]
struct Conv {
    cin: usize,
    cout: usize,
    k: usize,
    /// The file's (cout, cin, k, k) weights reordered to (k, k, cin, cout), so that the inner
    /// loop runs over the output channels.
    w: Vec<f32>,
    b: Vec<f32>,
}

/// The network: stem, residual blocks, 1×1 head, and a value head on the same trunk when one
/// is attached ([`PolicyNet::with_value`]).
#[derive(Debug, Clone)]
pub struct PolicyNet {
    channels: usize,
    stem: Conv,
    blocks: Vec<(Conv, Conv)>,
    head: Conv,
    header: Vec<(String, String)>,
    /// The SHA-256 of the file read, in hex: what a value head names as its trunk.
    sha256: String,
    value: Option<ValueHead>,
}

/// One tensor of an export: its name, shape and values.
struct Tensor {
    name: String,
    dims: Vec<usize>,
    values: Vec<f32>,
}

/// Reads an export's header (its `key: value` lines) and tensors, checking the first line is
/// `format` and the data is exactly as long as the tensor lines say.
#[allow(clippy::type_complexity)]
fn read_tensors(
    bytes: &[u8],
    file: &str,
    format: &str,
) -> Result<(Vec<(String, String)>, Vec<Tensor>), NetError> {
    let err = |message: String| NetError {
        file: file.to_string(),
        message,
    };
    let first = bytes
        .iter()
        .position(|&c| c == b'\n')
        .unwrap_or(bytes.len());
    if &bytes[..first] != format.as_bytes() {
        let shown = String::from_utf8_lossy(&bytes[..first.min(40)]).into_owned();
        return Err(err(format!(
            "not a `{format}` file (its first line is {shown:?})"
        )));
    }
    let end = find(bytes, b"\nend\n")
        .ok_or_else(|| err("the header has no `end` line (truncated?)".into()))?
        + 5;
    let head =
        std::str::from_utf8(&bytes[..end]).map_err(|_| err("the header is not UTF-8".into()))?;
    let mut header = Vec::new();
    let mut shapes: Vec<(String, Vec<usize>)> = Vec::new();
    for line in head.lines().skip(1) {
        if let Some(t) = line.strip_prefix("tensor ") {
            let mut parts = t.split_whitespace();
            let name = parts.next().unwrap_or("").to_string();
            let dims: Result<Vec<usize>, _> = parts.map(str::parse).collect();
            let dims = dims.map_err(|_| err(format!("bad tensor line {line:?}")))?;
            shapes.push((name, dims));
        } else if let Some((k, v)) = line.split_once(": ") {
            header.push((k.to_string(), v.to_string()));
        }
    }
    let floats = shapes
        .iter()
        .try_fold(0usize, |acc, (_, d)| {
            d.iter()
                .try_fold(1usize, |a, &x| a.checked_mul(x))
                .and_then(|n| acc.checked_add(n))
        })
        .filter(|&n| n <= bytes.len())
        .ok_or_else(|| err("the tensor lines list more floats than the file holds".into()))?;
    let data = &bytes[end..];
    if data.len() != floats * 4 {
        return Err(err(format!(
            "{} bytes of weights where the header lists {} ({} floats){}",
            data.len(),
            floats * 4,
            floats,
            if data.len() < floats * 4 {
                ": truncated"
            } else {
                ""
            }
        )));
    }
    let mut values = data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    let mut tensors = Vec::new();
    for (name, dims) in shapes {
        let n: usize = dims.iter().product();
        let v: Vec<f32> = values.by_ref().take(n).collect();
        if v.iter().any(|x| !x.is_finite()) {
            return Err(err(format!("tensor {name} has a value that is not finite")));
        }
        tensors.push(Tensor {
            name,
            dims,
            values: v,
        });
    }
    Ok((header, tensors))
}

/// A header line's value.
fn header_value<'a>(header: &'a [(String, String)], key: &str) -> Option<&'a str> {
    header
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The next two tensors as the convolution `wname` (out, `cin`, `k`, `k`) with its bias `bname`.
fn take_conv(
    it: &mut impl Iterator<Item = Tensor>,
    wname: &str,
    bname: &str,
    cin: usize,
    k: usize,
) -> Result<Conv, String> {
    let w = it.next().ok_or_else(|| format!("{wname} is missing"))?;
    let b = it.next().ok_or_else(|| format!("{bname} is missing"))?;
    if w.name != wname || b.name != bname {
        return Err(format!(
            "tensors {}, {} where {wname}, {bname} belong",
            w.name, b.name
        ));
    }
    let (wd, bd) = (&w.dims, &b.dims);
    let ok = wd.len() == 4
        && wd[2] == k
        && wd[3] == k
        && wd[1] == cin
        && bd.len() == 1
        && bd[0] == wd[0];
    if !ok {
        return Err(format!(
            "{wname} has shape {wd:?} and {bname} {bd:?}, not (out, {cin}, {k}, {k}) and (out)"
        ));
    }
    let cout = wd[0];
    let mut wt = vec![0.0f32; w.values.len()];
    for o in 0..cout {
        for i in 0..cin {
            for tap in 0..k * k {
                wt[(tap * cin + i) * cout + o] = w.values[(o * cin + i) * k * k + tap];
            }
        }
    }
    Ok(Conv {
        cin,
        cout,
        k,
        w: wt,
        b: b.values,
    })
}

/// The SHA-256 of `bytes` in lower-case hex.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The value head's export format's first line.
pub const VALUE_FORMAT: &str = "baduk-go-value 1";
/// Hidden units of the value head's first fully connected layer.
const VALUE_HIDDEN: usize = 64;

/// A value head trained on a policy network's frozen trunk (`scripts/go-policy/train_value.py`):
/// the logit of "the side to move wins".
#[derive(Debug, Clone)]
pub struct ValueHead {
    /// 1×1, channels → 2.
    conv: Conv,
    /// (64, 722), row-major; the 722 inputs are the two planes of `conv`, plane after plane.
    fc1_w: Vec<f32>,
    fc1_b: Vec<f32>,
    fc2_w: Vec<f32>,
    fc2_b: f32,
    header: Vec<(String, String)>,
}

impl ValueHead {
    /// Reads a value head's file.
    pub fn load(path: &str) -> Result<ValueHead, NetError> {
        let bytes = std::fs::read(path).map_err(|e| NetError {
            file: path.to_string(),
            message: format!("cannot read the value head's file: {e}"),
        })?;
        ValueHead::parse(&bytes, path)
    }

    /// Reads a value head's bytes; `file` names it in errors.
    pub fn parse(bytes: &[u8], file: &str) -> Result<ValueHead, NetError> {
        let err = |message: String| NetError {
            file: file.to_string(),
            message,
        };
        let (header, tensors) = read_tensors(bytes, file, VALUE_FORMAT)?;
        if header_value(&header, "policy-sha256").is_none() {
            return Err(err("the header names no policy-sha256 (its trunk)".into()));
        }
        let mut it = tensors.into_iter().peekable();
        // The trunk's width, as the first tensor (the 1×1 conv's weights) reads it.
        let channels = it.peek().and_then(|t| t.dims.get(1).copied()).unwrap_or(0);
        let conv = take_conv(&mut it, "value.conv.weight", "value.conv.bias", channels, 1)
            .map_err(&err)?;
        if conv.cout != 2 {
            return Err(err(format!("value.conv has {} outputs, not 2", conv.cout)));
        }
        let mut dense = |wname: &str, bname: &str, out: usize, inp: usize| {
            let w = it
                .next()
                .ok_or_else(|| err(format!("{wname} is missing")))?;
            let b = it
                .next()
                .ok_or_else(|| err(format!("{bname} is missing")))?;
            if w.name != wname || b.name != bname || w.dims != [out, inp] || b.dims != [out] {
                return Err(err(format!(
                    "tensors {} {:?}, {} {:?} where {wname} [{out}, {inp}], {bname} [{out}] belong",
                    w.name, w.dims, b.name, b.dims
                )));
            }
            Ok((w.values, b.values))
        };
        let (fc1_w, fc1_b) = dense(
            "value.fc1.weight",
            "value.fc1.bias",
            VALUE_HIDDEN,
            2 * POINTS,
        )?;
        let (fc2_w, fc2_b) = dense("value.fc2.weight", "value.fc2.bias", 1, VALUE_HIDDEN)?;
        if let Some(t) = it.next() {
            return Err(err(format!("unexpected tensor {} after value.fc2", t.name)));
        }
        Ok(ValueHead {
            conv,
            fc1_w,
            fc1_b,
            fc2_w,
            fc2_b: fc2_b[0],
            header,
        })
    }

    /// The value head built into the binary (`models/go-value.bin` at build time), for the
    /// built-in policy network.
    pub fn builtin() -> ValueHead {
        const BUILTIN: &[u8] = include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../models/go-value.bin"
        ));
        ValueHead::parse(BUILTIN, "models/go-value.bin (built in)")
            .expect("the built-in value head reads (checked by a test)")
    }

    /// A header line's value (`recipe`, `held-out`, …).
    pub fn header(&self, key: &str) -> Option<&str> {
        header_value(&self.header, key)
    }

    /// The logit of "the side to move wins" from the trunk's output `a` (padded points, the
    /// channels of a point together).
    fn logit(&self, a: &[f32]) -> f32 {
        let mut out = vec![0.0f32; BUF * 2];
        conv(&self.conv, a, &mut out);
        let mut v = vec![0.0f32; 2 * POINTS];
        for p in 0..POINTS {
            let q = padded(p);
            v[p] = out[q * 2].max(0.0);
            v[POINTS + p] = out[q * 2 + 1].max(0.0);
        }
        let mut y = self.fc2_b;
        for (h, row) in self.fc1_w.chunks_exact(2 * POINTS).enumerate() {
            let mut acc = self.fc1_b[h];
            for (w, x) in row.iter().zip(&v) {
                acc += w * x;
            }
            y += self.fc2_w[h] * acc.max(0.0);
        }
        y
    }
}

impl PolicyNet {
    /// Reads a weights file.
    pub fn load(path: &str) -> Result<PolicyNet, NetError> {
        let bytes = std::fs::read(path).map_err(|e| NetError {
            file: path.to_string(),
            message: format!("cannot read the network file: {e}"),
        })?;
        PolicyNet::parse(&bytes, path)
    }

    /// Reads a weights file's bytes; `file` names it in errors.
    pub fn parse(bytes: &[u8], file: &str) -> Result<PolicyNet, NetError> {
        let err = |message: String| NetError {
            file: file.to_string(),
            message,
        };
        let (header, tensors) = read_tensors(bytes, file, FORMAT)?;
        let get = |k: &str| header_value(&header, k);
        let planes_version = get("planes")
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u32>().ok());
        if planes_version != Some(PLANES_VERSION) {
            return Err(err(format!(
                "input planes version {:?}, this build reads version {PLANES_VERSION}",
                get("planes")
            )));
        }
        let nblocks = tensors
            .iter()
            .filter(|t| t.name.ends_with(".conv1.weight"))
            .count();
        let mut it = tensors.into_iter();
        let mut take = |wname: &str, bname: &str, cin: usize, k: usize| {
            take_conv(&mut it, wname, bname, cin, k).map_err(&err)
        };
        let stem = take("stem.weight", "stem.bias", PLANES, 3)?;
        let ch = stem.cout;
        let mut blocks = Vec::new();
        for i in 0..nblocks {
            let c1 = take(
                &format!("block{i}.conv1.weight"),
                &format!("block{i}.conv1.bias"),
                ch,
                3,
            )?;
            let c2 = take(
                &format!("block{i}.conv2.weight"),
                &format!("block{i}.conv2.bias"),
                ch,
                3,
            )?;
            if c1.cout != ch || c2.cout != ch {
                return Err(err(format!("block {i} does not keep {ch} channels")));
            }
            blocks.push((c1, c2));
        }
        let head = take("head.weight", "head.bias", ch, 1)?;
        if head.cout != 1 {
            return Err(err(format!("the head has {} outputs, not 1", head.cout)));
        }
        if let Some(t) = it.next() {
            return Err(err(format!("unexpected tensor {} after the head", t.name)));
        }
        for (key, want) in [("blocks", nblocks), ("channels", ch)] {
            if let Some(v) = get(key) {
                if v.trim().parse::<usize>().ok() != Some(want) {
                    return Err(err(format!(
                        "the header says {key}: {v}, the tensors have {want}"
                    )));
                }
            }
        }
        Ok(PolicyNet {
            channels: ch,
            stem,
            blocks,
            head,
            header,
            sha256: sha256_hex(bytes),
            value: None,
        })
    }

    /// The network built into the binary (`models/go-policy.bin` at build time).
    pub fn builtin() -> std::sync::Arc<PolicyNet> {
        static NET: std::sync::OnceLock<std::sync::Arc<PolicyNet>> = std::sync::OnceLock::new();
        const BUILTIN: &[u8] = include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../models/go-policy.bin"
        ));
        NET.get_or_init(|| {
            std::sync::Arc::new(
                PolicyNet::parse(BUILTIN, "models/go-policy.bin (built in)")
                    .expect("the built-in network reads (checked by a test)"),
            )
        })
        .clone()
    }

    /// Residual blocks.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Channels of the tower.
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// A header line's value (`recipe`, `data`, `held-out`, …).
    pub fn header(&self, key: &str) -> Option<&str> {
        header_value(&self.header, key)
    }

    /// This network with `value` on its trunk; refused when the head was trained on another
    /// network's (its `policy-sha256` is not this file's) or has another width.
    pub fn with_value(mut self, value: ValueHead, file: &str) -> Result<PolicyNet, NetError> {
        let named = value.header("policy-sha256").unwrap_or("");
        if named != self.sha256 {
            return Err(NetError {
                file: file.to_string(),
                message: format!(
                    "the value head was trained on the network with SHA-256 {named}, not this one ({})",
                    self.sha256
                ),
            });
        }
        if value.conv.cin != self.channels {
            return Err(NetError {
                file: file.to_string(),
                message: format!(
                    "the value head reads {} channels, the network has {}",
                    value.conv.cin, self.channels
                ),
            });
        }
        self.value = Some(value);
        Ok(self)
    }

    /// The value head on this network's trunk, if one is attached.
    pub fn value_head(&self) -> Option<&ValueHead> {
        self.value.as_ref()
    }

    /// The 361 move logits (p = row × 19 + col) of a position given as its 17 × 361 input
    /// planes, plane after plane.
    pub fn forward(&self, planes: &[f32]) -> Vec<f32> {
        self.forward_with(planes, conv, false).0
    }

    /// [`Self::forward`]'s logits and, with a value head, the logit of "the side to move wins"
    /// (its sigmoid is the probability), from one pass of the trunk.
    pub fn forward_value(&self, planes: &[f32]) -> (Vec<f32>, Option<f32>) {
        self.forward_with(planes, conv, true)
    }

    /// The move logits with the convolution `conv`, and the value when `with_value` and a head
    /// is attached.
    fn forward_with(
        &self,
        planes: &[f32],
        conv: fn(&Conv, &[f32], &mut [f32]),
        with_value: bool,
    ) -> (Vec<f32>, Option<f32>) {
        assert_eq!(planes.len(), PLANES * POINTS, "17 planes of 361 points");
        // activations: padded point by padded point, the channels of a point together
        let mut x = vec![0.0f32; BUF * PLANES];
        for c in 0..PLANES {
            for p in 0..POINTS {
                x[padded(p) * PLANES + c] = planes[c * POINTS + p];
            }
        }
        let ch = self.channels;
        let mut a = vec![0.0f32; BUF * ch];
        let mut t = vec![0.0f32; BUF * ch];
        let mut y = vec![0.0f32; BUF * ch];
        conv(&self.stem, &x, &mut a);
        relu(&mut a);
        for (c1, c2) in &self.blocks {
            conv(c1, &a, &mut t);
            relu(&mut t);
            conv(c2, &t, &mut y);
            for (ai, yi) in a.iter_mut().zip(&y) {
                *ai = (*ai + yi).max(0.0);
            }
        }
        let mut out = vec![0.0f32; BUF];
        conv(&self.head, &a, &mut out);
        let logits = (0..POINTS).map(|p| out[padded(p)]).collect();
        let value = self.value.as_ref().filter(|_| with_value);
        (logits, value.map(|v| v.logit(&a)))
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn relu(v: &mut [f32]) {
    for x in v {
        *x = x.max(0.0);
    }
}

/// The index in the padded 21 × 21 board of point `p` (row × 19 + col).
fn padded(p: usize) -> usize {
    (p / SIDE + 1) * PSIDE + p % SIDE + 1
}

/// `out` (21 × 21 points × cout, the border left at zero) = conv(`x`, 21 × 21 points × cin,
/// zero border). PyTorch's cross-correlation with zero padding: out[o][r][c] = b[o] + Σ_i Σ_dy
/// Σ_dx w[o][i][dy][dx] · x[i][r + dy − pad][c + dx − pad], summed input channel by input
/// channel, the taps in order (zero inputs skipped: the planes and the ReLUs' outputs are sparse).
/// On a CPU with AVX2 and FMA (detected at run time) the same loops are compiled for it, with
/// the output channels of a point held in registers.
fn conv(cv: &Conv, x: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if avx512_width(cv.cout) && std::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has just been found to have AVX-512F.
        unsafe { conv_avx512(cv, x, out) };
        return;
    }
    conv_portable(cv, x, out)
}

/// [`conv`] without AVX-512: AVX2 and FMA where the CPU has them, plain loops otherwise.
fn conv_portable(cv: &Conv, x: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has just been found to have both features.
        unsafe { conv_avx2(cv, x, out) };
        return;
    }
    conv_sized::<false>(cv, x, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn conv_avx2(cv: &Conv, x: &[f32], out: &mut [f32]) {
    conv_sized::<true>(cv, x, out)
}

/// [`conv`] for the usual widths with the output channels as a fixed-size array.
#[inline(always)]
fn conv_sized<const FMA: bool>(cv: &Conv, x: &[f32], out: &mut [f32]) {
    match cv.cout {
        1 => conv_n::<1, FMA>(cv, x, out),
        8 => conv_n::<8, FMA>(cv, x, out),
        16 => conv_n::<16, FMA>(cv, x, out),
        32 => conv_n::<32, FMA>(cv, x, out),
        48 => conv_n::<48, FMA>(cv, x, out),
        64 => conv_n::<64, FMA>(cv, x, out),
        _ => conv_any(cv, x, out),
    }
}

#[inline(always)]
fn conv_n<const CO: usize, const FMA: bool>(cv: &Conv, x: &[f32], out: &mut [f32]) {
    let (k, cin) = (cv.k, cv.cin);
    let pad = k / 2;
    let bias: [f32; CO] = cv.b[..CO].try_into().expect("cout biases");
    let fma = |a: f32, v: f32, w: f32| if FMA { v.mul_add(w, a) } else { a + v * w };
    // Two neighbouring points of a row at once: each weight row read serves both.
    for r in 0..SIDE {
        for c in (0..SIDE).step_by(2) {
            let pp = (r + 1) * PSIDE + c + 1;
            let two = c + 1 < SIDE;
            let (mut a0, mut a1) = (bias, bias);
            for tap in 0..k * k {
                let (dy, dx) = (tap / k, tap % k);
                let q = pp + dy * PSIDE + dx - pad * PSIDE - pad;
                let x0 = &x[q * cin..(q + 1) * cin];
                // (a row's last point alone: the second is itself, and dropped)
                let q1 = if two { q + 1 } else { q };
                let x1 = &x[q1 * cin..(q1 + 1) * cin];
                let wt = &cv.w[tap * cin * CO..(tap + 1) * cin * CO];
                for ((&v0, &v1), w) in x0.iter().zip(x1).zip(wt.chunks_exact(CO)) {
                    if v0 == 0.0 && v1 == 0.0 {
                        continue;
                    }
                    let w: &[f32; CO] = w.try_into().expect("cout weights");
                    for j in 0..CO {
                        a0[j] = fma(a0[j], v0, w[j]);
                        a1[j] = fma(a1[j], v1, w[j]);
                    }
                }
            }
            out[pp * CO..(pp + 1) * CO].copy_from_slice(&a0);
            if two {
                out[(pp + 1) * CO..(pp + 2) * CO].copy_from_slice(&a1);
            }
        }
    }
}

/// Whether the AVX-512 kernel takes convolutions of `cout` output channels (two to four
/// 16-lane registers a point).
#[cfg(target_arch = "x86_64")]
fn avx512_width(cout: usize) -> bool {
    matches!(cout, 32 | 48 | 64)
}

/// [`conv`] with AVX-512: the output channels of a point in `V` 16-lane registers, a run of
/// `24 / V` consecutive padded points at once, so that each weight loaded serves them all. The
/// runs cover the padded board from its first point to its last, border columns included (then
/// zeroed), reading at most a run's length into [`SLACK`]. The sums run in [`conv_n`]'s order
/// (bias, then tap by tap, input channel by input channel, fused multiply-adds), so the outputs
/// are the same to the bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn conv_avx512(cv: &Conv, x: &[f32], out: &mut [f32]) {
    match cv.cout {
        32 => conv_runs::<2, 12>(cv, x, out),
        48 => conv_runs::<3, 8>(cv, x, out),
        64 => conv_runs::<4, 6>(cv, x, out),
        _ => unreachable!("avx512_width"),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn conv_runs<const V: usize, const P: usize>(cv: &Conv, x: &[f32], out: &mut [f32]) {
    use std::arch::x86_64::*;
    let (k, cin, co) = (cv.k, cv.cin, V * 16);
    assert!(cv.cout == co && P <= SLACK);
    assert!(x.len() >= BUF * cin && out.len() >= BUF * co && cv.b.len() == co);
    assert!(cv.w.len() == k * k * cin * co);
    let pad = k / 2;
    // the padded board's first and last points
    let (first, last) = (PSIDE + 1, SIDE * PSIDE + SIDE);
    let xp = x.as_ptr();
    let wp = cv.w.as_ptr();
    let mut bias = [_mm512_setzero_ps(); V];
    for (v, b) in bias.iter_mut().enumerate() {
        // SAFETY: cv.b has co = V × 16 floats (asserted).
        *b = unsafe { _mm512_loadu_ps(cv.b.as_ptr().add(v * 16)) };
    }
    let mut pp = first;
    while pp <= last {
        let mut acc = [bias; P];
        for tap in 0..k * k {
            let (dy, dx) = (tap / k, tap % k);
            // the run's first point's neighbour at this tap; the run's are the next P − 1
            let q = pp + dy * PSIDE + dx - pad * PSIDE - pad;
            for i in 0..cin {
                // SAFETY: tap < k², i < cin: inside cv.w (asserted length). q + P − 1 ≤
                // last + PSIDE + 1 + P − 1 < PAREA + SLACK = BUF, inside x (asserted length).
                unsafe {
                    let wr = wp.add((tap * cin + i) * co);
                    let mut w = [_mm512_setzero_ps(); V];
                    for (v, wv) in w.iter_mut().enumerate() {
                        *wv = _mm512_loadu_ps(wr.add(v * 16));
                    }
                    for (p, a) in acc.iter_mut().enumerate() {
                        let s = _mm512_set1_ps(*xp.add((q + p) * cin + i));
                        for v in 0..V {
                            a[v] = _mm512_fmadd_ps(s, w[v], a[v]);
                        }
                    }
                }
            }
        }
        for (p, a) in acc.iter().enumerate() {
            if pp + p > last {
                break;
            }
            for (v, av) in a.iter().enumerate() {
                // SAFETY: pp + p ≤ last < BUF points, inside out (asserted length).
                unsafe { _mm512_storeu_ps(out.as_mut_ptr().add((pp + p) * co + v * 16), *av) };
            }
        }
        pp += P;
    }
    // The runs wrote the border columns between the rows: zero them again.
    for r in 1..=SIDE {
        for c in [0, PSIDE - 1] {
            let b = r * PSIDE + c;
            out[b * co..(b + 1) * co].fill(0.0);
        }
    }
}

/// [`conv`] for any width.
fn conv_any(cv: &Conv, x: &[f32], out: &mut [f32]) {
    let (k, cin, cout) = (cv.k, cv.cin, cv.cout);
    let pad = k / 2;
    for p in 0..POINTS {
        let pp = padded(p);
        let acc = &mut out[pp * cout..(pp + 1) * cout];
        acc.copy_from_slice(&cv.b);
        for dy in 0..k {
            for dx in 0..k {
                let q = pp + dy * PSIDE + dx - pad * PSIDE - pad;
                let xs = &x[q * cin..(q + 1) * cin];
                let tap = dy * k + dx;
                let wt = &cv.w[tap * cin * cout..(tap + 1) * cin * cout];
                for (i, &v) in xs.iter().enumerate() {
                    if v == 0.0 {
                        continue;
                    }
                    for (a, &w) in acc.iter_mut().zip(&wt[i * cout..(i + 1) * cout]) {
                        *a += v * w;
                    }
                }
            }
        }
    }
}

/// The 17 input planes (version 1) of a 19×19 position of the search's board, `recent` its last
/// four moves (most recent first; [`PASS`] for a pass or none) and `komi` the game's; `None` for
/// another size.
pub fn planes_of(b: &FastBoard, recent: &[Idx; 4], komi: f32) -> Option<Vec<f32>> {
    if (b.width(), b.height()) != (SIDE, SIDE) {
        return None;
    }
    let point = |i: Idx| -> i32 {
        if i == PASS || !b.on_board(i) {
            NONE as i32
        } else {
            let (x, y) = b.xy(i);
            (y * SIDE + x) as i32
        }
    };
    let mut board = vec![0u8; POINTS];
    for i in b.points() {
        if let Some(c) = b.stone(i) {
            let libs = b.liberties_upto(i, 3) as u8;
            let base = if c == Colour::Black { 0 } else { 3 };
            board[point(i) as usize] = base + libs.clamp(1, 3);
        }
    }
    let to_move = if b.to_move() == Colour::Black { 1 } else { 2 };
    let meta = [
        to_move,
        point(b.ko()),
        point(recent[0]),
        point(recent[1]),
        point(recent[2]),
        point(recent[3]),
        (komi * 2.0).round() as i32,
    ];
    Some(planes_from_compact(&board, &meta))
}

/// The 17 input planes (version 1) of a compact position, as `goboard.planes()` builds them:
/// `board[p]` 0 empty, 1–3 a Black stone whose chain has 1, 2, ≥3 liberties, 4–6 the same for
/// White; `meta` = [to move (1 Black, 2 White), ko point, last, second-last, third-last,
/// fourth-last move (361 = none or a pass), komi × 2].
pub fn planes_from_compact(board: &[u8], meta: &[i32; 7]) -> Vec<f32> {
    assert_eq!(board.len(), POINTS);
    let mut out = vec![0.0f32; PLANES * POINTS];
    let to_move = meta[0] as u8;
    let mut set = |plane: usize, p: usize, v: f32| out[plane * POINTS + p] = v;
    for (p, &code) in board.iter().enumerate() {
        if code == 0 {
            set(2, p, 1.0);
            continue;
        }
        let col = if code <= 3 { 1 } else { 2 };
        let libs = (code - (col - 1) * 3) as usize;
        if col == to_move {
            set(0, p, 1.0);
            set(2 + libs, p, 1.0);
        } else {
            set(1, p, 1.0);
            set(5 + libs, p, 1.0);
        }
    }
    for (plane, &q) in (9..14).zip(&meta[1..6]) {
        if (q as usize) < NONE {
            set(plane, q as usize, 1.0);
        }
    }
    let k = if to_move == 2 { meta[6] } else { -meta[6] };
    let kv = k as f32 / 20.0;
    for p in 0..POINTS {
        set(14, p, 1.0);
        set(15, p, if to_move == 1 { 1.0 } else { 0.0 });
        set(16, p, kv);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NET: &[u8] = include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/go-policy-test.bin"
    ));
    const FIXTURE: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/go-policy-test-fixture.txt"
    ));

    struct Pos {
        board: Vec<u8>,
        meta: [i32; 7],
        planes: Vec<String>,
        plane16: f32,
        logits: Vec<f32>,
    }

    fn fixture() -> Vec<Pos> {
        parse_fixture(FIXTURE)
    }

    fn parse_fixture(text: &str) -> Vec<Pos> {
        let mut out = Vec::new();
        let mut cur: Option<Pos> = None;
        for line in text.lines() {
            let (k, v) = match line.split_once(": ") {
                Some(kv) => kv,
                None => {
                    if line.starts_with("position ") {
                        if let Some(p) = cur.take() {
                            out.push(p);
                        }
                        cur = Some(Pos {
                            board: vec![],
                            meta: [0; 7],
                            planes: vec![],
                            plane16: f32::NAN,
                            logits: vec![],
                        });
                    }
                    continue;
                }
            };
            let Some(p) = cur.as_mut() else { continue };
            match k {
                "board" => p.board = v.bytes().map(|c| c - b'0').collect(),
                "meta" => {
                    for (m, s) in p.meta.iter_mut().zip(v.split(' ')) {
                        *m = s.parse().unwrap();
                    }
                }
                "plane16" => p.plane16 = v.parse().unwrap(),
                "logits" => p.logits = v.split(' ').map(|s| s.parse().unwrap()).collect(),
                _ if k.starts_with("plane") => p.planes.push(v.to_string()),
                _ => {}
            }
        }
        out.extend(cur);
        out
    }

    #[test]
    fn the_built_in_network_reads_and_states_its_data_and_accuracy() {
        let net = PolicyNet::builtin();
        assert_eq!((net.blocks(), net.channels()), (6, 48));
        assert!(net.header("data").unwrap().contains("computer-go-dataset"));
        assert!(net.header("held-out").unwrap().starts_with("top1 0.4"));
        assert!(net
            .header("recipe")
            .unwrap()
            .contains("scripts/train-go-policy"));
    }

    #[test]
    fn planes_of_the_search_board_match_the_compact_ones() {
        // Black D4, White C3 pressed by Black C2 and B3 (two liberties left); Black played
        // last, so White is to move.
        let mut b = FastBoard::new(19, 19);
        let at = |b: &FastBoard, x, y| b.idx(x, y);
        for (x, y, c) in [
            (3, 3, Colour::Black),
            (2, 2, Colour::White),
            (2, 1, Colour::Black),
            (1, 2, Colour::Black),
        ] {
            let i = at(&b, x, y);
            b.play(i, c);
        }
        let recent = [at(&b, 1, 2), at(&b, 2, 1), at(&b, 2, 2), PASS];
        let pl = planes_of(&b, &recent, 7.5).unwrap();
        let p = |x: usize, y: usize| y * SIDE + x;
        let v = |plane: usize, q: usize| pl[plane * POINTS + q];
        assert_eq!(b.to_move(), Colour::White);
        // White (to move) has one stone with two liberties; Black three stones.
        assert_eq!(v(0, p(2, 2)), 1.0);
        assert_eq!(v(4, p(2, 2)), 1.0, "two liberties");
        assert_eq!(pl[POINTS..2 * POINTS].iter().sum::<f32>(), 3.0);
        assert_eq!(v(8, p(3, 3)), 1.0, "three or more liberties");
        assert_eq!(v(10, p(1, 2)), 1.0, "the last move");
        assert_eq!(v(11, p(2, 1)), 1.0, "the one before");
        assert_eq!(
            pl[13 * POINTS..14 * POINTS].iter().sum::<f32>(),
            0.0,
            "a pass"
        );
        assert_eq!(v(15, 0), 0.0, "White to move");
        assert_eq!(v(16, 0), 0.75, "komi 7.5 for the side to move, / 10");
        assert!(planes_of(&FastBoard::new(9, 9), &recent, 7.5).is_none());
    }

    /// The AVX-512 kernel against the portable loops (AVX2 and FMA here, or plain) on random
    /// weights and ReLU-like sparse inputs of every width it takes: the same sums, the border
    /// left at zero. Says so and passes on a CPU without AVX-512.
    #[test]
    fn the_avx512_kernel_gives_the_portable_sums() {
        #[cfg(target_arch = "x86_64")]
        {
            if !std::is_x86_feature_detected!("avx512f") {
                eprintln!("no AVX-512 on this CPU: the portable kernel alone is used");
                return;
            }
            let mut rng = baduk_rng::Rng::new(44);
            let mut r = move || rng.unit() as f32 * 2.0 - 1.0;
            for (cin, cout, k) in [
                (17, 48, 3),
                (48, 48, 3),
                (32, 32, 3),
                (64, 64, 3),
                (48, 64, 1),
            ] {
                let cv = Conv {
                    cin,
                    cout,
                    k,
                    w: (0..k * k * cin * cout).map(|_| r()).collect(),
                    b: (0..cout).map(|_| r()).collect(),
                };
                let mut x = vec![0.0f32; BUF * cin];
                for p in 0..POINTS {
                    for c in 0..cin {
                        let v = r();
                        x[padded(p) * cin + c] = v.max(0.0);
                    }
                }
                let (mut fast, mut slow) = (vec![0.0f32; BUF * cout], vec![0.0f32; BUF * cout]);
                // SAFETY: the CPU has AVX-512F (checked above).
                unsafe { conv_avx512(&cv, &x, &mut fast) };
                conv_portable(&cv, &x, &mut slow);
                assert!(avx512_width(cout));
                for (i, (a, b)) in fast.iter().zip(&slow).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-5 * b.abs().max(1.0),
                        "cin {cin} cout {cout} k {k}: element {i}: {a} vs {b}"
                    );
                }
            }
            // The built-in network, whole, on positions of a random game.
            let net = PolicyNet::builtin();
            let mut b = FastBoard::new(19, 19);
            let mut rng = baduk_rng::Rng::new(45);
            for n in 0..12 {
                for _ in 0..15 {
                    let c = b.to_move();
                    let moves: Vec<Idx> = b.points().filter(|&i| b.is_simple_legal(i, c)).collect();
                    b.play(moves[rng.below(moves.len())], c);
                }
                let pl = planes_of(&b, &[b.last_move(), PASS, PASS, PASS], 7.5).unwrap();
                let (fast, slow) = (
                    net.forward(&pl),
                    net.forward_with(&pl, conv_portable, false).0,
                );
                for (a, s) in fast.iter().zip(&slow) {
                    assert!((a - s).abs() <= 1e-4, "position {n}: {a} vs {s}");
                }
            }
        }
    }

    #[test]
    fn reads_the_test_network() {
        let net = PolicyNet::parse(NET, "test.bin").unwrap();
        assert_eq!((net.blocks(), net.channels()), (2, 8));
        assert!(net.header("recipe").unwrap().contains("untrained"));
    }

    #[test]
    fn planes_match_the_python_reference() {
        let fx = fixture();
        assert_eq!(fx.len(), 3);
        for (n, p) in fx.iter().enumerate() {
            let pl = planes_from_compact(&p.board, &p.meta);
            for (i, want) in p.planes.iter().enumerate() {
                let got: String = pl[i * POINTS..(i + 1) * POINTS]
                    .iter()
                    .map(|&v| if v == 1.0 { '1' } else { '0' })
                    .collect();
                assert_eq!(&got, want, "position {n} plane {i}");
            }
            assert!(pl[16 * POINTS..].iter().all(|&v| v == p.plane16));
        }
    }

    #[test]
    fn logits_match_pytorch() {
        let net = PolicyNet::parse(NET, "test.bin").unwrap();
        check_logits(&net, &fixture());
    }

    /// With GO_POLICY_EXPORT=DIR (what `scripts/train-go-policy` exports to, /work/nn/export),
    /// the trained network there against its own fixture, and the forward pass's time.
    #[test]
    fn exported_network_matches_its_fixture() {
        let Ok(dir) = std::env::var("GO_POLICY_EXPORT") else {
            return;
        };
        let net = PolicyNet::load(&format!("{dir}/go-policy.bin")).unwrap();
        let text = std::fs::read_to_string(format!("{dir}/go-policy-fixture.txt")).unwrap();
        let fx = parse_fixture(&text);
        check_logits(&net, &fx);
        let planes = planes_from_compact(&fx[fx.len() - 1].board, &fx[fx.len() - 1].meta);
        // CPU time of this thread (Linux), not the wall clock: the figure holds on a busy machine.
        let cpu_ns = || {
            std::fs::read_to_string("/proc/thread-self/schedstat")
                .ok()
                .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        };
        let (t, c) = (std::time::Instant::now(), cpu_ns());
        let n = 100;
        for _ in 0..n {
            std::hint::black_box(net.forward(&planes));
        }
        let cpu = match (c, cpu_ns()) {
            (Some(a), Some(b)) => format!("{:.2} ms of CPU", (b - a) / 1e6 / n as f64),
            _ => "CPU time unknown".into(),
        };
        eprintln!(
            "{}x{}: {} positions checked, {:.2} ms a forward pass ({cpu})",
            net.blocks(),
            net.channels(),
            fx.len(),
            t.elapsed().as_secs_f64() * 1000.0 / n as f64
        );
    }

    fn check_logits(net: &PolicyNet, fx: &[Pos]) {
        for (n, p) in fx.iter().enumerate() {
            let got = net.forward(&planes_from_compact(&p.board, &p.meta));
            assert_eq!(got.len(), POINTS);
            for (q, (g, w)) in got.iter().zip(&p.logits).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-4 * (1.0 + w.abs()),
                    "position {n} point {q}: {g} where PyTorch has {w}"
                );
            }
        }
    }

    const VALUE: &[u8] = include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/go-value-test.bin"
    ));
    const VALUE_FIXTURE: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/go-value-test-fixture.txt"
    ));

    /// A value fixture's positions: their planes (replayed on the search's board from the moves)
    /// and the value logit PyTorch computed.
    fn value_fixture(text: &str) -> Vec<(Vec<f32>, f32)> {
        let mut out = Vec::new();
        let mut moves = String::new();
        let mut komi2 = 0i32;
        for line in text.lines() {
            if let Some(m) = line.strip_prefix("moves: ") {
                moves = m.to_string();
            } else if line == "moves:" {
                moves.clear();
            } else if let Some(k) = line.strip_prefix("komi2: ") {
                komi2 = k.parse().unwrap();
            } else if let Some(v) = line.strip_prefix("value-logit: ") {
                let mut b = FastBoard::new(19, 19);
                let mut played = Vec::new();
                for m in moves.split_whitespace() {
                    let c = if m.starts_with('B') {
                        Colour::Black
                    } else {
                        Colour::White
                    };
                    assert_eq!(b.to_move(), c, "{m}");
                    let xy = m.as_bytes();
                    if xy.len() == 5 {
                        let i = b.idx((xy[2] - b'a') as usize, (xy[3] - b'a') as usize);
                        b.play(i, c);
                        played.push(i);
                    } else {
                        b.pass();
                        played.push(PASS);
                    }
                }
                let mut recent = [PASS; 4];
                for (r, m) in recent.iter_mut().zip(played.iter().rev()) {
                    *r = *m;
                }
                let planes = planes_of(&b, &recent, komi2 as f32 / 2.0).unwrap();
                out.push((planes, v.parse().unwrap()));
            }
        }
        out
    }

    fn check_value(net: &PolicyNet, fx: &[(Vec<f32>, f32)]) {
        for (n, (planes, want)) in fx.iter().enumerate() {
            let (logits, v) = net.forward_value(planes);
            assert_eq!(logits, net.forward(planes), "the same move logits");
            let v = v.expect("a value head is attached");
            assert!(
                (v - want).abs() <= 1e-4 * (1.0 + want.abs()),
                "position {n}: value logit {v} where PyTorch has {want}"
            );
        }
    }

    #[test]
    fn the_value_head_matches_pytorch() {
        let net = PolicyNet::parse(NET, "test.bin").unwrap();
        assert!(net.forward_value(&vec![0.0; PLANES * POINTS]).1.is_none());
        let head = ValueHead::parse(VALUE, "value.bin").unwrap();
        let net = net.with_value(head, "value.bin").unwrap();
        let fx = value_fixture(VALUE_FIXTURE);
        assert_eq!(fx.len(), 3);
        // The replay from the moves gives the planes of the policy fixture's same position.
        let p = &fixture()[1];
        assert_eq!(fx[1].0, planes_from_compact(&p.board, &p.meta));
        check_value(&net, &fx);
    }

    #[test]
    fn the_built_in_value_head_fits_the_built_in_network() {
        let net = (*PolicyNet::builtin())
            .clone()
            .with_value(ValueHead::builtin(), "built in")
            .unwrap();
        let head = net.value_head().unwrap();
        assert!(head.header("held-out").unwrap().starts_with("accuracy 0."));
        assert!(head.header("recipe").unwrap().contains("train_value.py"));
        assert!(PolicyNet::builtin().value_head().is_none());
    }

    /// With GO_VALUE_EXPORT=DIR (what `scripts/train-go-value` exports to), the trained head
    /// there on the built-in network against its own fixture.
    #[test]
    fn exported_value_head_matches_its_fixture() {
        let Ok(dir) = std::env::var("GO_VALUE_EXPORT") else {
            return;
        };
        let file = format!("{dir}/go-value.bin");
        let head = ValueHead::load(&file).unwrap();
        let net = (*PolicyNet::builtin())
            .clone()
            .with_value(head, &file)
            .unwrap();
        let text = std::fs::read_to_string(format!("{dir}/go-value-fixture.txt")).unwrap();
        let fx = value_fixture(&text);
        check_value(&net, &fx);
        eprintln!("{} positions checked", fx.len());
    }

    #[test]
    fn refuses_a_value_head_that_is_not_for_the_network() {
        let head = ValueHead::parse(VALUE, "value.bin").unwrap();
        let e = (*PolicyNet::builtin())
            .clone()
            .with_value(head, "value.bin")
            .unwrap_err();
        assert!(
            e.to_string().starts_with(
                "value.bin: the value head was trained on the network with SHA-256 64641f"
            ),
            "{e}"
        );
        let e = ValueHead::parse(NET, "policy.bin").unwrap_err();
        assert!(e.message.contains("not a `baduk-go-value 1` file"), "{e}");
        let e = ValueHead::parse(&VALUE[..VALUE.len() - 4], "short.bin").unwrap_err();
        assert!(e.message.contains("truncated"), "{e}");
        let cut = find(VALUE, b"\nend\n").unwrap();
        let text = String::from_utf8_lossy(&VALUE[..cut]).replace(
            "tensor value.fc1.weight 64 722",
            "tensor value.fc1.weight 722 64",
        );
        let mut shape = text.into_bytes();
        shape.extend_from_slice(&VALUE[cut..]);
        let e = ValueHead::parse(&shape, "shape.bin").unwrap_err();
        assert!(e.message.contains("value.fc1.weight [64, 722]"), "{e}");
        let text = String::from_utf8_lossy(&VALUE[..cut]).replace(
            "tensor value.fc1.weight 64 722",
            "tensor value.fc1.weight 4611686018427387904 4",
        );
        let mut huge = text.into_bytes();
        huge.extend_from_slice(&VALUE[cut..]);
        let e = ValueHead::parse(&huge, "huge.bin").unwrap_err();
        assert!(e.message.contains("more floats than the file holds"), "{e}");
        let e = ValueHead::load("/nonexistent/value.bin").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/value.bin: cannot read"),
            "{e}"
        );
    }

    #[test]
    fn refuses_bad_files_naming_them() {
        let e = PolicyNet::parse(b"hello\n", "x.bin").unwrap_err();
        assert!(e
            .to_string()
            .starts_with("x.bin: not a `baduk-go-policy 1` file"));
        let e = PolicyNet::parse(&NET[..NET.len() - 10], "short.bin").unwrap_err();
        assert!(e.message.contains("truncated"), "{e}");
        let cut = find(NET, b"\nend\n").unwrap();
        let e = PolicyNet::parse(&NET[..cut], "head.bin").unwrap_err();
        assert!(e.message.contains("no `end` line"), "{e}");
        let text = String::from_utf8_lossy(&NET[..cut]).replace("planes: 1 ", "planes: 2 ");
        let mut v2 = text.into_bytes();
        v2.extend_from_slice(&NET[cut..]);
        let e = PolicyNet::parse(&v2, "v2.bin").unwrap_err();
        assert!(e.message.contains("planes version"), "{e}");
        let text = String::from_utf8_lossy(&NET[..cut])
            .replace("tensor stem.weight 8 17 3 3", "tensor stem.weight 8 16 3 3");
        let mut shape = text.into_bytes();
        shape.extend_from_slice(&NET[cut..]);
        let e = PolicyNet::parse(&shape, "shape.bin").unwrap_err();
        assert!(
            e.message.contains("bytes of weights") || e.message.contains("shape"),
            "{e}"
        );
        let e = PolicyNet::load("/nonexistent/net.bin").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/net.bin: cannot read"),
            "{e}"
        );
    }
}
