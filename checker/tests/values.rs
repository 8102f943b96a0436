//! Values as herd7 computes them, end to end: the identities it applies before it knows a
//! value, dependencies that follow registers rather than values, arithmetic on addresses,
//! accesses at addresses that are no location, and the errors herd7 stops on.
//!
//! Every expected output here is herd7 7.58's, apart from the `Time` and `Hash` lines; the
//! errors are hazmat's wording of herd7's refusals.
//! Snapshots are refreshed with `UPDATE_EXPECT=1 cargo test -p hazmat-checker --test values`.

use expect_test::{Expect, expect};
use hazmat_checker::{Checked, Options, check_source, model};

fn run(source: &str) -> Result<Checked, String> {
    let m = model("lkmm").expect("the model exists");
    check_source(source, m.as_ref(), &Options::default()).map_err(|e| e.render("t.litmus", source))
}

/// herd7's text without the `Time` and `Hash` lines.
fn text(c: &Checked) -> String {
    c.herd_text()
        .lines()
        .filter(|l| !l.starts_with("Time ") && !l.starts_with("Hash="))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn check(source: &str, expect: Expect) {
    expect.assert_eq(&text(&run(source).expect("the test checks")));
}

fn error(source: &str, expect: Expect) {
    match run(source) {
        Ok(c) => panic!("expected an error, got\n{}", text(&c)),
        Err(e) => expect.assert_eq(&e),
    }
}

/// herd7 simplifies `r0 ^ r0` to 0 before it knows r0: the write goes to c, with an address dependency on the read of b.
#[test]
fn xor_addr() {
    check(
        r#"C xor-address-dependency
{}
P0(int *a, int *b)
{
	WRITE_ONCE(*a, 2);
	WRITE_ONCE(*b, 1);
}
P1(int *a, int *b, int *c)
{
	int r0;
	int r1;
	r0 = READ_ONCE(*b);
	r1 = r0 ^ r0;
	WRITE_ONCE(*(c + r1), 1);
	WRITE_ONCE(*a, 1);
}
exists ([a]=2 /\ 1:r0=1)
"#,
        expect![[r#"
            Test xor-address-dependency Allowed
            States 4
            1:r0=0; [a]=1;
            1:r0=0; [a]=2;
            1:r0=1; [a]=1;
            1:r0=1; [a]=2;
            Ok
            Witnesses
            Positive: 1 Negative: 3
            Condition exists ([a]=2 /\ 1:r0=1)
            Observation xor-address-dependency Sometimes 1 3

        "#]],
    );
}

/// `r1 = r0 ^ r0; r1 = r1 + 1` is the constant 1 with a data dependency: plain load buffering is allowed, and races.
#[test]
fn plain_lb() {
    check(
        r#"C plain-lb-constant-data
{}
P0(int *a, int *b)
{
	int r0;
	int r1;
	r0 = *a;
	r1 = r0 ^ r0;
	r1 = r1 + 1;
	*b = r1;
}
P1(int *a, int *b)
{
	int r0;
	int r1;
	r0 = *b;
	r1 = r0 ^ r0;
	r1 = r1 + 1;
	*a = r1;
}
exists (0:r0=1 /\ 1:r0=1)
"#,
        expect![[r#"
            Test plain-lb-constant-data Allowed
            States 4
            0:r0=0; 1:r0=0;
            0:r0=0; 1:r0=1;
            0:r0=1; 1:r0=0;
            0:r0=1; 1:r0=1;
            Ok
            Witnesses
            Positive: 1 Negative: 3
            Flag data-race
            Condition exists (0:r0=1 /\ 1:r0=1)
            Observation plain-lb-constant-data Sometimes 1 3

        "#]],
    );
}

/// `r0 == r0` is true before r0 is known, yet the branch depends on the read: the load buffering shape is forbidden.
#[test]
fn ctrl_const() {
    check(
        r#"C ctrl-on-a-known-condition
{}
P0(int *a, int *b)
{
	int r0;
	r0 = READ_ONCE(*a);
	if (r0 == r0) {
		WRITE_ONCE(*b, 1);
	}
}
P1(int *a, int *b)
{
	int r0;
	r0 = READ_ONCE(*b);
	smp_mb();
	WRITE_ONCE(*a, 1);
}
exists (0:r0=1 /\ 1:r0=1)
"#,
        expect![[r#"
            Test ctrl-on-a-known-condition Allowed
            States 3
            0:r0=0; 1:r0=0;
            0:r0=0; 1:r0=1;
            0:r0=1; 1:r0=0;
            No
            Witnesses
            Positive: 0 Negative: 3
            Condition exists (0:r0=1 /\ 1:r0=1)
            Observation ctrl-on-a-known-condition Never 0 3

        "#]],
    );
}

/// `r0 & 0` stays unknown until r0 is: the write is tried at every candidate location and lands on a.
#[test]
fn and_zero() {
    check(
        r#"C address-and-zero
{}
P0(int *a, int *b)
{
	int r0;
	r0 = READ_ONCE(*b);
	WRITE_ONCE(*(a + (r0 & 0)), 1);
}
P1(int *b)
{
	WRITE_ONCE(*b, 1);
}
exists (0:r0=1 /\ a=1)
"#,
        expect![[r#"
            Test address-and-zero Allowed
            States 2
            0:r0=0; [a]=1;
            0:r0=1; [a]=1;
            Ok
            Witnesses
            Positive: 1 Negative: 1
            Condition exists (0:r0=1 /\ [a]=1)
            Observation address-and-zero Sometimes 1 1

        "#]],
    );
}

/// A read at an integer address finds no write: herd7 drops the candidate, and only the read through a remains.
#[test]
fn read_int() {
    check(
        r#"C read-through-an-integer
{
	p=a;
}
P0(int **p)
{
	int *r0;
	int r1;
	r0 = READ_ONCE(*p);
	r1 = READ_ONCE(*r0);
}
P1(int **p)
{
	WRITE_ONCE(*p, 5);
}
exists (0:r1=0)
"#,
        expect![[r#"
            Test read-through-an-integer Allowed
            States 1
            0:r1=0;
            Ok
            Witnesses
            Positive: 1 Negative: 0
            Condition exists (0:r1=0)
            Observation read-through-an-integer Always 1 0

        "#]],
    );
}

/// Addresses move by integers and compare by subtraction.
#[test]
fn offsets() {
    check(
        r#"C address-offsets
{}
P0(int *a, int *b)
{
	int *r0;
	int r1;
	int r2;
	r0 = a + 2;
	r1 = r0 - 2 == a;
	r2 = b - a;
}
exists (0:r0=a /\ 0:r1=1)
"#,
        expect![[r#"
            Test address-offsets Allowed
            States 1
            0:r0=a+2; 0:r1=1;
            No
            Witnesses
            Positive: 0 Negative: 1
            Condition exists (0:r0=a /\ 0:r1=1)
            Observation address-offsets Never 0 1

        "#]],
    );
}

/// A division by zero that an allowed execution needs stops the test, as herd7 does.
#[test]
fn division_by_zero() {
    error(
        r#"C division-by-zero
{}
P0(int *a)
{
	int r0;
	int r1;
	r0 = READ_ONCE(*a);
	r1 = 6 / r0;
}
P1(int *a)
{
	WRITE_ONCE(*a, 3);
}
exists (0:r1=2)
"#,
        expect![[r#"
            t.litmus:8:2: error: division by zero (6 / 0)
              |
            8 | 	r1 = 6 / r0;
              | 	^^^^^^^^^^^^"#]],
    );
}

/// So does an operator with no meaning on an address.
#[test]
fn arithmetic_on_an_address() {
    error(
        r#"C arithmetic-on-an-address
{
	p=a;
}
P0(int **p)
{
	int r0;
	int r1;
	r0 = READ_ONCE(*p);
	r1 = r0 * 2;
}
exists (0:r1=0)
"#,
        expect![[r#"
            t.litmus:10:2: error: the operator `*` has no meaning on a and 2 (herd7 stops on it: illegal operation)
               |
            10 | 	r1 = r0 * 2;
               | 	^^^^^^^^^^^^"#]],
    );
}

/// A write at an integer address stops the test, where a read there only drops the candidate.
#[test]
fn write_through_an_integer() {
    error(
        r#"C write-through-an-integer
{
	p=a;
}
P0(int **p)
{
	int *r0;
	r0 = READ_ONCE(*p);
	WRITE_ONCE(*r0, 1);
}
P1(int **p)
{
	WRITE_ONCE(*p, 5);
}
exists (a=1)
"#,
        expect![[r#"
            t.litmus:9:2: error: the address of this access is the integer 5, not a location (herd7 stops on it: non-symbolic location)
              |
            9 | 	WRITE_ONCE(*r0, 1);
              | 	^^^^^^^^^^^^^^^^^^"#]],
    );
}

/// The write of an atomic operation computes from its read, and herd7's `data` holds that
/// pair: `rfi` from it carries the dependency on, which closes a happens-before cycle here
/// (an exchange's write has no such dependency).
#[test]
fn atomic_operations_carry_a_data_dependency_from_read_to_write() {
    check(
        r#"C atomic-operation-data-dependency
{}
P0(int *x, int *z)
{
	int r0;
	int r1;
	r0 = READ_ONCE(*z);
	r1 = atomic_fetch_add(2, x);
}
P1(int *x, int *z)
{
	int r0;
	int r1;
	atomic_add(1, x);
	r0 = READ_ONCE(*x);
	r1 = r0 ^ r0;
	WRITE_ONCE(*(z + r1), 2);
}
exists (0:r0=2 /\ 0:r1=0 /\ 1:r0=3)
"#,
        expect![[r#"
            Test atomic-operation-data-dependency Allowed
            States 4
            0:r0=0; 0:r1=0; 1:r0=3;
            0:r0=0; 0:r1=1; 1:r0=1;
            0:r0=0; 0:r1=1; 1:r0=3;
            0:r0=2; 0:r1=1; 1:r0=1;
            No
            Witnesses
            Positive: 0 Negative: 4
            Condition exists (0:r0=2 /\ 0:r1=0 /\ 1:r0=3)
            Observation atomic-operation-data-dependency Never 0 4

        "#]],
    );
}

/// Two calls nested in one statement are one herd7 instruction, and herd7 orders the
/// events of an instruction only by their dependencies: the two reads of x are unordered,
/// so they may see the writes in either order, and the read beside the exchange may miss
/// its write.
#[test]
fn the_events_of_one_instruction_are_ordered_only_by_their_dependencies() {
    check(
        "C two-reads-one-statement
{}
P0(int *x)
{
	int r0;
	r0 = READ_ONCE(*x) - READ_ONCE(*x);
}
P1(int *x)
{
	WRITE_ONCE(*x, 1);
}
exists (0:r0=1)
",
        expect![[r#"
            Test two-reads-one-statement Allowed
            States 3
            0:r0=-1;
            0:r0=0;
            0:r0=1;
            Ok
            Witnesses
            Positive: 1 Negative: 3
            Condition exists (0:r0=1)
            Observation two-reads-one-statement Sometimes 1 3

        "#]],
    );
    check(
        "C exchange-and-read-one-statement
{}
P0(int *x)
{
	int r0;
	r0 = xchg_relaxed(x, 1) + READ_ONCE(*x);
}
exists (0:r0=1)
",
        expect![[r#"
            Test exchange-and-read-one-statement Allowed
            States 2
            0:r0=0;
            0:r0=1;
            Ok
            Witnesses
            Positive: 1 Negative: 1
            Condition exists (0:r0=1)
            Observation exchange-and-read-one-statement Sometimes 1 1

        "#]],
    );
}

/// herd7 runs a `while` body at most twice; a run that would go round once more is cut
/// off, leaves no execution, and makes the result line `Loop Ok` or `Loop No`.
#[test]
fn loops_unroll_twice_and_runs_that_go_on_are_cut_off() {
    check(
        r#"C spin-until-flag
{}
P0(int *x, int *y)
{
	int r0;
	int r1;
	r0 = READ_ONCE(*x);
	while (r0 == 0) {
		r0 = READ_ONCE(*x);
	}
	r1 = READ_ONCE(*y);
}
P1(int *x, int *y)
{
	WRITE_ONCE(*y, 1);
	smp_wmb();
	WRITE_ONCE(*x, 1);
}
exists (0:r1=0)
"#,
        expect![[r#"
            Test spin-until-flag Allowed
            States 2
            0:r1=0;
            0:r1=1;
            Loop Ok
            Witnesses
            Positive: 3 Negative: 3
            Condition exists (0:r1=0)
            Observation spin-until-flag Sometimes 3 3

        "#]],
    );
    let c = run(r#"C spin-until-flag
{}
P0(int *x, int *y)
{
	int r0;
	int r1;
	r0 = READ_ONCE(*x);
	while (r0 == 0) {
		r0 = READ_ONCE(*x);
	}
	r1 = READ_ONCE(*y);
}
P1(int *x, int *y)
{
	WRITE_ONCE(*y, 1);
	smp_wmb();
	WRITE_ONCE(*x, 1);
}
exists (0:r1=0)
"#)
    .expect("the test checks");
    assert!(c.outcome.stats.removed.cutoff > 0);
    assert_eq!(c.warnings.len(), 1, "a warning names the loop");
    // A loop that ends within two rounds cuts nothing off.
    check(
        r#"C count-to-two
{}
P0(int *x)
{
	int r0;
	r0 = 0;
	while (r0 < 2) {
		r0 = r0 + 1;
	}
	WRITE_ONCE(*x, r0);
}
exists (x=2)
"#,
        expect![[r#"
            Test count-to-two Allowed
            States 1
            [x]=2;
            Ok
            Witnesses
            Positive: 1 Negative: 0
            Condition exists ([x]=2)
            Observation count-to-two Always 1 0

        "#]],
    );
}

/// Every candidate that does not reach the final state is counted under its reason.
#[test]
fn removed_candidates_are_counted_by_reason() {
    let removed = |source: &str| run(source).expect("the test checks").outcome.stats.removed;
    // The read at the integer finds no write.
    let r = removed(
        "C t\n{ p=a; }\nP0(int **p) { int *r0; int r1; r0 = READ_ONCE(*p); r1 = READ_ONCE(*r0); }\n\
         P1(int **p) { WRITE_ONCE(*p, 5); }\nexists (0:r1=0)\n",
    );
    assert_eq!(r.nowhere, 1);
    // The write at `a + (r0 & 0)` is also tried at b, where the address is not.
    let r = removed(
        "C t\n{}\nP0(int *a, int *b) { int r0; r0 = READ_ONCE(*b); WRITE_ONCE(*(a + (r0 & 0)), 1); }\n\
         exists (a=1)\n",
    );
    assert!(r.address > 0, "{r:?}");
    // A branch on a value read, and a compare-and-exchange, each have a way the values
    // contradict; the filter removes what it does not keep; the model forbids the rest.
    let r = removed(
        "C t\n{}\nP0(int *x, int *y) { int r0; int r1; r0 = READ_ONCE(*x); \
         if (r0 == 1) { WRITE_ONCE(*y, 1); } r1 = cmpxchg(y, 0, 2); }\n\
         P1(int *x, int *y) { WRITE_ONCE(*x, 1); }\nfilter (0:r1=0)\nexists (y=2)\n",
    );
    assert!(r.branch > 0 && r.rmw > 0 && r.filter > 0, "{r:?}");
    let c = run(
        "C t\n{}\nP0(int *x, int *y) { WRITE_ONCE(*x, 1); smp_wmb(); WRITE_ONCE(*y, 1); }\n\
         P1(int *x, int *y) { int r0; int r1; r0 = READ_ONCE(*y); smp_rmb(); r1 = READ_ONCE(*x); }\n\
         exists (1:r0=1 /\\ 1:r1=0)\n",
    )
    .expect("the test checks");
    assert!(c.outcome.stats.pruned + c.outcome.stats.removed.model > 0);
}

/// A grace period inside the thread's own read-side critical section deadlocks every run:
/// herd7 finds no execution, and neither does hazmat, without calling it lost.
#[test]
fn a_grace_period_inside_its_own_reader_has_no_execution() {
    check(
        "C gp-in-reader
{}
P0(int *x)
{
	rcu_read_lock();
	synchronize_rcu();
	rcu_read_unlock();
}
P1(int *x)
{
	int r0;
	r0 = xchg_acquire(x, 1);
}
exists (1:r0=0)
",
        expect![[r#"
            Test gp-in-reader Allowed
            States 0
            No
            Witnesses
            Positive: 0 Negative: 0
            Condition exists (1:r0=0)
            Observation gp-in-reader Never 0 0

        "#]],
    );
}
