//! Unit tests of thread paths.

use super::*;

fn paths_of(source: &str) -> Vec<Vec<Path>> {
    let test = hazmat_litmus::parse(source).expect("parses");
    let program = crate::front::lower::lower(&test).expect("lowers");
    let pointees = pointees(&program);
    program
        .threads
        .iter()
        .map(|t| {
            thread_paths(t, &pointees, &[], &program.addr_order, &Wide::default()).expect("runs")
        })
        .collect()
}

#[test]
fn a_branch_on_a_read_forks_and_its_dependency_ends_at_the_join() {
    let p = paths_of(
        "C t\n{}\nP0(int *x, int *y, int *z) { int r0; r0 = READ_ONCE(*x); \
         if (r0) { WRITE_ONCE(*y, 1); } WRITE_ONCE(*z, 1); }\nexists (x=0)\n",
    );
    let paths = &p[0];
    assert_eq!(paths.len(), 2);
    let taken = &paths[0];
    assert_eq!(taken.constraints.len(), 1);
    assert!(taken.constraints[0].truth);
    // Read x, write y (in the branch, ctrl-dependent), write z (after it, not).
    assert_eq!(taken.events.len(), 3);
    assert_eq!(taken.events[1].ctrl_dep, 1);
    assert_eq!(taken.events[2].ctrl_dep, 0);
    assert_eq!(paths[1].events.len(), 2);
}

#[test]
fn a_branch_on_a_constant_does_not_fork() {
    let p = paths_of(
        "C t\n{}\nP0(int *x) { int r0 = 1; if (r0 == 1) WRITE_ONCE(*x, 1); }\nexists (x=0)\n",
    );
    assert_eq!(p[0].len(), 1);
    assert_eq!(p[0][0].events.len(), 1);
}

#[test]
fn cmpxchg_succeeds_with_a_write_or_fails_with_a_lone_read() {
    let p = paths_of("C t\n{}\nP0(int *x) { int r0; r0 = cmpxchg(x, 0, 1); }\nexists (x=0)\n");
    let paths = &p[0];
    assert_eq!(paths.len(), 2);
    assert_eq!(paths[0].events.len(), 2);
    assert!(paths[0].events[1].rmw_with_prev);
    assert!(
        paths[0]
            .events
            .iter()
            .all(|e| e.tags.has(Tag::Rmw) && e.tags.has(Tag::Mb))
    );
    assert_eq!(paths[1].events.len(), 1);
    assert!(paths[1].events[0].tags.has(Tag::Rmw));
}

#[test]
fn data_and_address_dependencies_follow_registers() {
    let p = paths_of(
        "C t\n{ int *p = &a; }\nP0(int **p, int *y) { int *r0; int r1; r0 = READ_ONCE(*p); \
         r1 = READ_ONCE(*r0); WRITE_ONCE(*y, r1 + 1); }\nexists (y=0)\n",
    );
    // The address read from p may denote any location whose address the test handles
    // (here a): one path per such location, and one that stops where the address is
    // none of them.
    let paths = &p[0];
    assert_eq!(paths.len(), 2);
    let ev = &paths[0].events;
    assert_eq!(ev[1].addr_dep, 0b1);
    assert_eq!(ev[2].data_dep, 0b10);
    assert_eq!(
        paths[0].constraints.len(),
        1,
        "the address read must be a's"
    );
    assert!(paths[0].escape.is_none());
    let escape = paths[1]
        .escape
        .expect("the second path stops at the address");
    assert!(escape.read);
    assert_eq!(paths[1].events.len(), 1, "it stops before the second read");
    assert!(
        !paths[1].constraints[0].truth,
        "the address must not be a's"
    );
}

#[test]
fn values_are_built_with_herd7s_identities_and_keep_their_dependencies() {
    let p = paths_of(
        "C t\n{}\nP0(int *x, int *y, int *z) { int r0; int r1; r0 = READ_ONCE(*x); \
         r1 = r0 ^ r0; WRITE_ONCE(*(y + r1), r1 + 1); if (r0 == r0) { WRITE_ONCE(*z, 1); } }\n\
         exists (x=0)\n",
    );
    // `r0 ^ r0` is 0 and `r0 == r0` is true before r0 is known: one path, no fork on
    // the address or the branch, yet the write to y has an address and a data
    // dependency on the read, and the write to z a control dependency.
    let paths = &p[0];
    assert_eq!(paths.len(), 1);
    let ev = &paths[0].events;
    assert_eq!(ev.len(), 3);
    assert_eq!(paths[0].constant(ev[1].value), Some(Value::Int(1)));
    assert_eq!((ev[1].addr_dep, ev[1].data_dep), (0b1, 0b1));
    assert_eq!(ev[2].ctrl_dep, 0b1);
    assert!(paths[0].constraints.is_empty());
}

#[test]
fn an_illegal_operation_is_left_for_the_enumeration() {
    // `x * 2` has no meaning, but herd7 only reports it for an execution it allows:
    // the path keeps the operation as a node.
    let p = paths_of("C t\n{}\nP0(int *x) { int r0; r0 = x * 2; }\nexists (0:r0=0)\n");
    let path = &p[0][0];
    let r0 = path.regs[0];
    assert!(matches!(
        path.nodes[r0 as usize],
        Node::Bin(BinOp::Mul, _, _)
    ));
}

#[test]
fn a_nested_lock_marks_the_path_as_breaking_a_lock_axiom() {
    let p = paths_of("C t\n{}\nP0(spinlock_t *l) { spin_lock(l); spin_lock(l); }\nexists (true)\n");
    assert_eq!(p[0].len(), 1);
    assert!(p[0][0].breaks_lock_axiom);
    let p = paths_of(
        "C t\n{}\nP0(spinlock_t *l) { int r0; spin_lock(l); r0 = spin_is_locked(l); }\nexists (true)\n",
    );
    // Inside its own critical section a thread sees the lock held: the RU path breaks
    // nested-is-locked.
    assert_eq!(p[0].len(), 2);
    for path in &p[0] {
        assert_eq!(path.breaks_lock_axiom, path.events[2].tags.has(Tag::Ru));
    }
}
