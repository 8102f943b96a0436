//! A first check that the parser builds the tree the checker expects.

use hazmat_litmus::ast::*;
use hazmat_litmus::parse;

const MP: &str = "C MP+test
\"a doc string\"
(*
 * Result: Never
 * Result(sc): Never DATARACE
 *)
{
\tx=1; int *p=&y; 0:r1=0; atomic_t v = ATOMIC_INIT(2);
}

P0(int *x, spinlock_t *l)
{
\tint r0;
\tWRITE_ONCE(*x, 1);
\tif (r0 != 0) r0 = 1; else { *x = -2; }
}

locations [x; 0:r0;]
exists (0:r0=1 /\\ ~x=y \\/ [x]!=0:r0)
";

#[test]
fn parses_the_parts_the_checker_reads() {
    let t = parse(MP).unwrap();
    assert_eq!(t.name.name, "MP+test");
    assert_eq!(t.doc.as_deref(), Some("a doc string"));
    assert_eq!(t.expectations.len(), 2);
    assert_eq!(t.expectations[0].model, None);
    assert_eq!(t.expectations[0].outcome, Some(Outcome::Never));
    assert_eq!(t.expectations[1].model.as_deref(), Some("sc"));
    assert!(t.expectations[1].data_race());
    assert_eq!(t.init.len(), 4);
    assert_eq!(
        t.init[1].value,
        Some(InitValue::Addr(Ident::new("y", Span::DUMMY)))
    );
    assert_eq!(t.init[3].value, Some(InitValue::AtomicInit(2)));
    assert_eq!(t.threads.len(), 1);
    assert_eq!(t.threads[0].params.len(), 2);
    assert_eq!(t.threads[0].body.len(), 3);
    assert_eq!(t.locations.as_ref().map(Vec::len), Some(2));
    let cond = t.condition.unwrap();
    assert_eq!(cond.quantifier, Quantifier::Exists);
    assert!(matches!(cond.prop.kind, PropKind::Or(..)));
    let span = t.threads[0].name_span;
    assert_eq!(span.line_col(MP), (11, 1));
}
