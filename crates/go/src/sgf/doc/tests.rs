use super::*;
use crate::rules::Preset;
use proptest::prelude::*;

/// Three levels of variations, comments, every markup kind, an unknown property, a
/// compressed point list and a value with `]` and `\`.
const TREE: &str = "(;GM[1]FF[4]CA[EUC-KR]SZ[9]KM[6.5]PB[Kim]XX[keep me]C[root \\] \\\\ end]\
;B[ee]TR[cc][dd]SQ[ff]CR[gg]MA[hh]LB[ab:A][ba:B]AR[aa:cc]LN[ii:gg]N[start]\
(;W[gc]C[main](;B[gg];W[cg])(;B[cg]C[third level]))\
(;W[cc]TR[aa:bb]))";

fn doc() -> SgfDoc {
    SgfDoc::parse(TREE, 0, &SgfLimits::default()).unwrap()
}

fn japanese() -> Rules {
    Rules::preset(Preset::Japanese).with_size(Size::square(9).unwrap())
}

fn apply(d: &mut SgfDoc, op: Value) -> Result<Applied, OpError> {
    let op = Op::parse(&op, d.size())?;
    d.apply(&op, &japanese(), &SgfLimits::default())
}

/// The tree as (depth, properties) in pre-order: what ids do not change.
fn shape(d: &SgfDoc) -> Vec<(usize, Vec<SgfProp>)> {
    let mut out = Vec::new();
    let mut stack = vec![(0u32, 0usize)];
    while let Some((id, depth)) = stack.pop() {
        let n = d.node(id).unwrap();
        out.push((depth, n.props.clone()));
        for &c in n.children.iter().rev() {
            stack.push((c, depth + 1));
        }
    }
    out
}

#[test]
fn reads_every_node_in_text_order_with_every_property() {
    let d = doc();
    assert_eq!(d.len(), 7);
    assert_eq!(d.next_id(), 7);
    assert_eq!(d.node(0).unwrap().children, [1]);
    assert_eq!(d.node(1).unwrap().children, [2, 6]);
    assert_eq!(d.node(2).unwrap().children, [3, 5]);
    assert_eq!(d.path(5), [0, 1, 2, 5]);
    let root = d.node(0).unwrap();
    assert_eq!(root.prop("XX").unwrap().values, ["keep me"]);
    assert_eq!(root.prop("C").unwrap().values, ["root ] \\ end"]);
    // The text was decoded: the root names UTF-8.
    assert_eq!(root.prop("CA").unwrap().values, ["UTF-8"]);
    d.check().unwrap();
}

#[test]
fn json_names_points_moves_numbers_and_markup() {
    let j = doc().to_json();
    assert_eq!(j["size"], json!({"cols": 9, "rows": 9}));
    assert_eq!(
        (j["root"].clone(), j["next_id"].clone()),
        (json!(0), json!(7))
    );
    let n = &j["nodes"][1];
    assert_eq!(n["move"], json!({"color": "B", "point": "E5"}));
    assert_eq!(n["number"], 1);
    assert_eq!(n["name"], "start");
    assert_eq!(n["markup"]["TR"], json!(["C7", "D6"]));
    assert_eq!(n["markup"]["SQ"], json!(["F4"]));
    assert_eq!(n["markup"]["CR"], json!(["G3"]));
    assert_eq!(n["markup"]["MA"], json!(["H2"]));
    assert_eq!(n["markup"]["LB"], json!([["A8", "A"], ["B9", "B"]]));
    assert_eq!(n["markup"]["AR"], json!([["A9", "C7"]]));
    assert_eq!(n["markup"]["LN"], json!([["J1", "G3"]]));
    assert_eq!(j["nodes"][5]["comment"], "third level");
    assert_eq!(j["nodes"][5]["number"], 3);
    assert_eq!(j["nodes"][0]["move"], Value::Null);
    // A compressed list is expanded.
    assert_eq!(
        j["nodes"][6]["markup"]["TR"],
        json!(["A9", "B9", "A8", "B8"])
    );
    assert_eq!(j["nodes"][0]["parent"], Value::Null);
    assert_eq!(j["nodes"][6]["parent"], 1);
}

#[test]
fn written_back_it_reads_as_the_same_tree() {
    let d = doc();
    let text = d.to_sgf();
    let back = SgfDoc::parse(&text, 0, &SgfLimits::default()).unwrap();
    assert_eq!(back, d, "{text}");
    assert!(text.contains("C[root \\] \\\\ end]"), "{text}");
    assert!(text.contains("XX[keep me]"), "{text}");
    assert!(text.contains("TR[aa:bb]"), "{text}");
}

#[test]
fn a_snapshot_keeps_ids_and_properties() {
    let mut d = doc();
    apply(&mut d, json!({"op": "delete", "node": 3})).unwrap();
    let a = apply(
        &mut d,
        json!({"op": "move", "parent": 2, "color": "B", "point": "A1"}),
    )
    .unwrap();
    assert_eq!(a.node, Some(7));
    let back = SgfDoc::from_snapshot(&d.snapshot()).unwrap();
    assert_eq!(back, d);
    assert!(SgfDoc::from_snapshot("{}").is_err());
    let broken = d.snapshot().replace("\"parent\":2", "\"parent\":6");
    assert!(SgfDoc::from_snapshot(&broken).is_err());
}

#[test]
fn a_move_makes_a_new_last_child_once() {
    let mut d = doc();
    let a = apply(
        &mut d,
        json!({"op": "move", "parent": 2, "color": "B", "point": "D4"}),
    )
    .unwrap();
    assert_eq!(
        a,
        Applied {
            node: Some(7),
            changed: true
        }
    );
    assert_eq!(d.node(2).unwrap().children, [3, 5, 7]);
    assert_eq!(
        d.move_of(7),
        Some((Color::Black, Move::Play(Point::new(3, 3))))
    );
    let again = apply(
        &mut d,
        json!({"op": "move", "parent": 2, "color": "B", "point": "D4"}),
    )
    .unwrap();
    assert_eq!(
        again,
        Applied {
            node: Some(7),
            changed: false
        }
    );
    // An existing child from the file is found too.
    let found = apply(
        &mut d,
        json!({"op": "move", "parent": 2, "color": "B", "point": "G3"}),
    )
    .unwrap();
    assert_eq!(found.node, Some(3));
    let pass = apply(
        &mut d,
        json!({"op": "move", "parent": 7, "color": "W", "point": "pass"}),
    )
    .unwrap();
    assert_eq!(d.node(pass.node.unwrap()).unwrap().props[0].values, [""]);
    assert_eq!(d.to_json()["nodes"][8]["number"], 4);
}

#[test]
fn illegal_moves_are_refused_with_the_rules_reason() {
    // Occupied.
    let mut d = SgfDoc::parse("(;SZ[5];B[bb];W[cb])", 0, &SgfLimits::default()).unwrap();
    let before = d.clone();
    let e = apply(
        &mut d,
        json!({"op": "move", "parent": 2, "color": "B", "point": "B4"}),
    )
    .unwrap_err();
    assert_eq!((e.status, e.code), (422, "review.illegal"), "{e}");
    assert!(e.message.contains("occupied"), "{e}");
    assert_eq!(d, before);
    // Suicide: W at A5 with no liberty and no capture.
    let mut s = SgfDoc::parse("(;SZ[5];B[ba];W[];B[ab])", 0, &SgfLimits::default()).unwrap();
    let e = apply(
        &mut s,
        json!({"op": "move", "parent": 3, "color": "W", "point": "A5"}),
    )
    .unwrap_err();
    assert!(e.message.contains("suicide"), "{e}");
}

#[test]
fn simple_ko_cannot_be_retaken_at_once() {
    // Black takes the ko at C4; White may not retake at B4 at once, but may after a move
    // elsewhere.
    let ko = "(;SZ[5]AB[ba][ab][bc]AW[ca][bb][db][cc])";
    let mut d = SgfDoc::parse(ko, 0, &SgfLimits::default()).unwrap();
    let take = apply(
        &mut d,
        json!({"op": "move", "parent": 0, "color": "B", "point": "C4"}),
    )
    .unwrap();
    let at = take.node.unwrap();
    assert!(d
        .position(at, &japanese())
        .unwrap()
        .board()
        .get(Point::new(1, 3))
        .is_none());
    let before = d.clone();
    let e = apply(
        &mut d,
        json!({"op": "move", "parent": at, "color": "W", "point": "B4"}),
    )
    .unwrap_err();
    assert_eq!(e.code, "review.illegal");
    assert!(e.message.contains("ko"), "{e}");
    assert_eq!(d, before);
    let w = apply(
        &mut d,
        json!({"op": "move", "parent": at, "color": "W", "point": "E1"}),
    )
    .unwrap();
    let b = apply(
        &mut d,
        json!({"op": "move", "parent": w.node.unwrap(), "color": "B",
                                 "point": "E2"}),
    )
    .unwrap();
    apply(
        &mut d,
        json!({"op": "move", "parent": b.node.unwrap(), "color": "W", "point": "B4"}),
    )
    .unwrap();
}

#[test]
fn delete_promote_and_the_root() {
    let mut d = doc();
    apply(&mut d, json!({"op": "promote", "node": 6})).unwrap();
    assert_eq!(d.node(1).unwrap().children, [6, 2]);
    let a = apply(&mut d, json!({"op": "promote", "node": 6})).unwrap();
    assert!(!a.changed);
    apply(&mut d, json!({"op": "delete", "node": 2})).unwrap();
    assert_eq!(d.len(), 3);
    assert!(d.node(5).is_none());
    assert_eq!(d.node(1).unwrap().children, [6]);
    // Ids are never reused.
    let a = apply(
        &mut d,
        json!({"op": "move", "parent": 1, "color": "W", "point": "G7"}),
    )
    .unwrap();
    assert_eq!(a.node, Some(7));
    for op in ["delete", "promote"] {
        let e = apply(&mut d, json!({"op": op, "node": 0})).unwrap_err();
        assert_eq!((e.status, e.code), (422, "review.root"));
    }
    let e = apply(&mut d, json!({"op": "delete", "node": 2})).unwrap_err();
    assert_eq!((e.status, e.code), (404, "review.no_node"));
    d.check().unwrap();
}

#[test]
fn comments_names_marks_labels_and_lines() {
    let mut d = doc();
    apply(
        &mut d,
        json!({"op": "comment", "node": 3, "text": "a]b\\c\nd"}),
    )
    .unwrap();
    apply(&mut d, json!({"op": "name", "node": 3, "text": "here"})).unwrap();
    apply(
        &mut d,
        json!({"op": "mark", "node": 1, "kind": "TR", "point": "A1", "on": true}),
    )
    .unwrap();
    apply(
        &mut d,
        json!({"op": "mark", "node": 1, "kind": "TR", "point": "C7", "on": false}),
    )
    .unwrap();
    apply(
        &mut d,
        json!({"op": "mark", "node": 6, "kind": "TR", "point": "A9", "on": false}),
    )
    .unwrap();
    apply(
        &mut d,
        json!({"op": "label", "node": 1, "point": "A8", "text": "Z"}),
    )
    .unwrap();
    apply(
        &mut d,
        json!({"op": "label", "node": 1, "point": "B9", "text": ""}),
    )
    .unwrap();
    apply(
        &mut d,
        json!({"op": "line", "node": 1, "kind": "AR", "from": "A9", "to": "C7",
                         "on": false}),
    )
    .unwrap();
    apply(
        &mut d,
        json!({"op": "line", "node": 1, "kind": "LN", "from": "A1", "to": "J9",
                         "on": true}),
    )
    .unwrap();
    let a = apply(
        &mut d,
        json!({"op": "mark", "node": 1, "kind": "TR", "point": "A1",
                                 "on": true}),
    )
    .unwrap();
    assert!(!a.changed);
    let j = d.to_json();
    assert_eq!(j["nodes"][3]["comment"], "a]b\\c\nd");
    assert_eq!(j["nodes"][3]["name"], "here");
    let m = &j["nodes"][1]["markup"];
    assert_eq!(m["TR"], json!(["D6", "A1"]));
    assert_eq!(m["LB"], json!([["A8", "Z"]]));
    assert_eq!(m["AR"], json!([]));
    assert_eq!(m["LN"], json!([["J1", "G3"], ["A1", "J9"]]));
    assert_eq!(j["nodes"][6]["markup"]["TR"], json!(["B9", "A8", "B8"]));
    // Empty removes the property.
    apply(&mut d, json!({"op": "comment", "node": 3, "text": ""})).unwrap();
    assert!(d.node(3).unwrap().prop("C").is_none());
    let back = SgfDoc::parse(&d.to_sgf(), 0, &SgfLimits::default()).unwrap();
    assert_eq!(shape(&back), shape(&d));
}

#[test]
fn bad_ops_name_why_and_change_nothing() {
    let mut d = doc();
    let before = d.clone();
    let long = "x".repeat(MAX_COMMENT + 1);
    for (op, status, code) in [
        (
            json!({"op": "mark", "node": 1, "kind": "TR", "point": "K10", "on": true}),
            422,
            "review.off_board",
        ),
        (
            json!({"op": "mark", "node": 1, "kind": "TR", "point": "Z", "on": true}),
            422,
            "review.off_board",
        ),
        (
            json!({"op": "mark", "node": 1, "kind": "XX", "point": "A1", "on": true}),
            400,
            "review.op",
        ),
        (
            json!({"op": "comment", "node": 1, "text": long}),
            422,
            "review.comment_too_long",
        ),
        (
            json!({"op": "comment", "node": 1, "text": "a\u{7}b"}),
            422,
            "review.text",
        ),
        (
            json!({"op": "label", "node": 1, "point": "A1", "text": "123456789"}),
            422,
            "review.label",
        ),
        (
            json!({"op": "label", "node": 1, "point": "A1", "text": "a\nb"}),
            422,
            "review.text",
        ),
        (
            json!({"op": "name", "node": 1, "text": "n".repeat(MAX_NAME + 1)}),
            422,
            "review.name",
        ),
        (
            json!({"op": "line", "node": 1, "kind": "AR", "from": "A1", "to": "A1", "on": true}),
            422,
            "review.line",
        ),
        (
            json!({"op": "move", "parent": 99, "color": "B", "point": "A1"}),
            404,
            "review.no_node",
        ),
        (
            json!({"op": "move", "parent": 1, "color": "X", "point": "A1"}),
            400,
            "review.op",
        ),
        (
            json!({"op": "move", "parent": 1, "color": "W", "point": "E5"}),
            422,
            "review.illegal",
        ),
        (json!({"op": "fly", "node": 1}), 400, "review.op"),
        (
            json!({"op": "delete", "node": 1, "extra": 1}),
            400,
            "review.op",
        ),
        (json!({"op": "delete", "node": -1}), 400, "review.op"),
        (
            json!({"op": "delete", "node": 5_000_000_000u64}),
            400,
            "review.op",
        ),
        (json!(["delete"]), 400, "review.op"),
    ] {
        let e = apply(&mut d, op.clone()).unwrap_err();
        assert_eq!((e.status, e.code), (status, code), "{op}: {e}");
        assert_eq!(d, before, "{op}");
    }
}

#[test]
fn ops_past_the_readers_limits_are_refused() {
    let mut d = doc();
    let before = d.clone();
    let tiny = SgfLimits {
        max_nodes: 7,
        max_value_bytes: 120,
        ..SgfLimits::default()
    };
    let op = Op::parse(
        &json!({"op": "move", "parent": 5, "color": "W", "point": "A1"}),
        d.size(),
    )
    .unwrap();
    let e = d.apply(&op, &japanese(), &tiny).unwrap_err();
    assert_eq!((e.status, e.code), (413, "review.nodes"));
    let op = Op::parse(
        &json!({"op": "comment", "node": 5, "text": "y".repeat(200)}),
        d.size(),
    )
    .unwrap();
    let e = d.apply(&op, &japanese(), &tiny).unwrap_err();
    assert_eq!((e.status, e.code), (413, "review.value_bytes"));
    assert_eq!(d, before);
}

#[test]
fn a_line_reads_as_a_record() {
    let d = doc();
    let g = d.line_game(5).unwrap();
    assert_eq!(g.moves.len(), 3);
    assert_eq!(g.komi.map(|k| k.as_f64()), Some(6.5));
    assert_eq!(d.position(5, &japanese()).unwrap().move_count(), 3);
    let e = d.position(42, &japanese()).unwrap_err();
    assert_eq!(e.code, "review.no_node");
}

#[test]
fn a_long_line_costs_no_stack() {
    let moves: String = (0..20_000)
        .map(|i| if i % 2 == 0 { ";B[]" } else { ";W[]" })
        .collect();
    let d = SgfDoc::parse(&format!("(;SZ[9]{moves})"), 0, &SgfLimits::default()).unwrap();
    assert_eq!(d.len(), 20_001);
    let back = SgfDoc::parse(&d.to_sgf(), 0, &SgfLimits::default()).unwrap();
    assert_eq!(back.len(), 20_001);
    assert_eq!(d.to_json()["nodes"][20_000]["number"], 20_000);
    let mut d = d;
    apply(&mut d, json!({"op": "delete", "node": 1})).unwrap();
    assert_eq!(d.len(), 1);
}

/// A random op on a node of `d` chosen by `pick`, with texts that need escapes.
fn random_op(d: &SgfDoc, kind: u8, pick: usize, x: u32, y: u32, on: bool, t: u8) -> Value {
    let ids: Vec<u32> = d.ids().collect();
    let node = ids[pick % ids.len()];
    let p = Point::new(x % 9, y % 9).to_string();
    let q = Point::new((x + 3) % 9, (y + 1) % 9).to_string();
    let texts = ["", "A", "]", "\\", "a:b", "\\]", "é"];
    let text = texts[t as usize % texts.len()];
    let color = if on { "B" } else { "W" };
    match kind % 9 {
        0 | 1 => json!({"op": "move", "parent": node, "color": color, "point": p}),
        2 => json!({"op": "delete", "node": node}),
        3 => json!({"op": "promote", "node": node}),
        4 => json!({"op": "comment", "node": node, "text": text}),
        5 => {
            json!({"op": "mark", "node": node, "kind": MARKS[t as usize % 4], "point": p, "on": on})
        }
        6 => json!({"op": "label", "node": node, "point": p, "text": text}),
        7 => {
            json!({"op": "line", "node": node, "kind": LINES[t as usize % 2], "from": p, "to": q, "on": on})
        }
        _ => json!({"op": "name", "node": node, "text": text}),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_ops_keep_the_tree_whole_and_it_reads_back_the_same(
        ops in proptest::collection::vec(
            (any::<u8>(), any::<usize>(), 0u32..9, 0u32..9, any::<bool>(), any::<u8>()), 0..60)
    ) {
        let mut d = doc();
        for (kind, pick, x, y, on, t) in ops {
            let op = random_op(&d, kind, pick, x, y, on, t);
            let before = d.clone();
            match apply(&mut d, op.clone()) {
                Ok(a) => {
                    if !a.changed {
                        prop_assert_eq!(&d, &before, "{}", op);
                    }
                }
                Err(e) => {
                    prop_assert!(e.status >= 400 && e.status < 500, "{}: {}", op, e);
                    prop_assert_eq!(&d, &before, "{}", op);
                }
            }
            prop_assert!(d.check().is_ok(), "{}: {:?}", op, d.check());
            prop_assert!(d.next_id() >= before.next_id());
        }
        let text = d.to_sgf();
        let back = SgfDoc::parse(&text, 0, &SgfLimits::default()).unwrap();
        prop_assert_eq!(shape(&back), shape(&d), "{}", text);
        prop_assert_eq!(SgfDoc::from_snapshot(&d.snapshot()).unwrap(), d);
    }
}
