//! herd7's C dialect: the facts about its words, numbers and sections that the parser
//! enforces.
//!
//! herd7 reads a C litmus test in three parts, each with its own lexer: the header and the
//! init block, the program (every thread, from the init block's `}` to the trailer), and the
//! trailer (`locations`, `filter`, the condition).
//! Each lexer reserves its own words, so a name that is fine in one part may be refused in
//! another: `and` can name a register in thread code but not in the condition, `continue`
//! can name anything, `lock` names nothing in thread code.
//! Numbers are 32-bit, and thread code has decimal numbers only, where a `-` glued to digits
//! is part of the number (`r0-1` is the name `r0` followed by the number `-1`).
//! The program ends at the first trailer word herd7's splitter meets after the init block,
//! wherever it stands: in a C comment, or as a register's name.
//!
//! These facts were established by running herd7 7.58 on small tests; the tests that run
//! herd7 (`litmus/tests/dialect.rs`) check them again whenever the oracle is at hand.

/// Words herd7's C lexer turns into tokens of their own: in thread code they never name a
/// register, a parameter or a declared variable.
pub(crate) const CODE_RESERVED: &[&str] = &[
    // C keywords herd7 knows, and its type words.
    "if",
    "else",
    "while",
    "volatile",
    "const",
    "_Atomic",
    "atomic",
    "char",
    "int",
    "long",
    "struct",
    "void",
    "regions",
    "atomic_int",
    "srcu_struct",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "__int128_t",
    "__uint128_t",
    "__int128",
    "__uint128",
    "intptr_t",
    "uintptr_t",
    "mtx_t",
    "spinlock_t",
    "atomic_t",
    // C11 primitives.
    "atomic_fetch_add_explicit",
    "atomic_fetch_sub_explicit",
    "atomic_fetch_or_explicit",
    "atomic_fetch_xor_explicit",
    "atomic_fetch_and_explicit",
    "memory_order_acquire",
    "memory_order_release",
    "memory_order_acq_rel",
    "memory_order_seq_cst",
    "memory_order_relaxed",
    "memory_order_consume",
    "atomic_thread_fence",
    "atomic_load_explicit",
    "atomic_store_explicit",
    "atomic_exchange_explicit",
    "lock",
    "mtx_lock",
    "unlock",
    "mtx_unlock",
    "WCAS",
    "SCAS",
    "atomic_compare_exchange_weak",
    "atomic_compare_exchange_strong",
    "atomic_compare_exchange_weak_explicit",
    "atomic_compare_exchange_strong_explicit",
    // The internal instructions the kernel's macros expand to.
    "__fence",
    "__load",
    "__store",
    "__srcu",
    "__xchg",
    "__cmpxchg",
    "__lock",
    "__trylock",
    "__islocked",
    "__unlock",
    "__atomic_op",
    "__atomic_op_return",
    "__atomic_fetch_op",
    "__atomic_add_unless",
];

/// Words herd7's lexer of the init block and the trailer turns into tokens of their own:
/// there they never name a variable or a register.
pub(crate) const STATE_RESERVED: &[&str] = &[
    "true",
    "false",
    "not",
    "and",
    "with",
    "exists",
    "forall",
    "final",
    "locations",
    "filter",
    "observed",
    "Observed",
    "fault",
    "Fault",
    "tag",
    "TAG",
    "attrs",
    "Attrs",
    "oa",
    "PTE",
    "TTD",
    "PA",
    "NOP",
    "nop",
    "_Atomic",
    "ATOMIC_INIT",
];

/// Words that end the program wherever herd7's splitter meets them after the init block.
pub(crate) const TRAILER_WORDS: &[&str] = &[
    "exists",
    "forall",
    "final",
    "locations",
    "filter",
    "observed",
    "Observed",
    "cases",
];

/// The base types of thread code, besides `struct srcu_struct` and `void *`.
pub(crate) const CODE_BASE_TYPES: &[&str] = &[
    "int",
    "char",
    "long",
    "atomic_int",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "__int128_t",
    "__uint128_t",
    "__int128",
    "__uint128",
    "intptr_t",
    "uintptr_t",
    "mtx_t",
    "spinlock_t",
    "atomic_t",
];

/// Whether `word` is `P` and digits, which both of herd7's lexers read as a thread's name.
pub(crate) fn is_thread_word(word: &str) -> bool {
    word.len() > 1 && word.starts_with('P') && word[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Whether `word` may name a register, parameter or declared variable in thread code.
pub(crate) fn is_code_name(word: &str) -> bool {
    !CODE_RESERVED.contains(&word) && !is_thread_word(word)
}

/// Whether `word` may name a variable or register in the init block or the trailer.
pub(crate) fn is_state_name(word: &str) -> bool {
    !STATE_RESERVED.contains(&word) && !is_thread_word(word)
}

/// The C11 primitives herd7's grammar gives `memory_order_*` arguments, each with the
/// positions (from 0) where an order stands: the only places an order word may appear.
pub(crate) const C11_ORDERED: &[(&str, &[usize])] = &[
    ("atomic_load_explicit", &[1]),
    ("atomic_store_explicit", &[2]),
    ("atomic_exchange_explicit", &[2]),
    ("atomic_fetch_add_explicit", &[2]),
    ("atomic_fetch_sub_explicit", &[2]),
    ("atomic_fetch_or_explicit", &[2]),
    ("atomic_fetch_xor_explicit", &[2]),
    ("atomic_fetch_and_explicit", &[2]),
    ("atomic_compare_exchange_strong_explicit", &[3, 4]),
    ("atomic_compare_exchange_weak_explicit", &[3, 4]),
    ("atomic_thread_fence", &[0]),
];

/// The memory orders of C11, as herd7's lexer reads them.
pub(crate) const MEMORY_ORDERS: &[&str] = &[
    "memory_order_relaxed",
    "memory_order_consume",
    "memory_order_acquire",
    "memory_order_release",
    "memory_order_acq_rel",
    "memory_order_seq_cst",
];

/// Where `func`'s arguments take memory orders, if it is a C11 primitive that takes any.
pub(crate) fn order_positions(func: &str) -> Option<&'static [usize]> {
    C11_ORDERED
        .iter()
        .find(|(name, _)| *name == func)
        .map(|(_, at)| *at)
}

/// Where herd7's grammar takes one of its internal instructions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Place {
    /// In an expression (and so also as an expression statement).
    Expr,
    /// Only as a statement of its own.
    Stmt,
    /// As an expression with one argument, or as a statement with one or two.
    Srcu,
}

/// One of herd7's internal instructions, written with annotations in braces.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Instruction {
    /// Where the grammar takes it.
    pub(crate) place: Place,
    /// Its arguments besides the operator; `None` for `__fence`, which has no parentheses.
    pub(crate) args: Option<usize>,
    /// Whether its second argument is an operator (`__atomic_op{mb}(x, +, 1)`).
    pub(crate) op: bool,
    /// Whether it may go without braces (`__atomic_op(x, +, 1)`).
    pub(crate) bare: bool,
}

/// herd7's internal instruction called `name`, if it is one that takes annotations.
pub(crate) fn instruction(name: &str) -> Option<Instruction> {
    let (place, args, op, bare) = match name {
        "__load" => (Place::Expr, Some(1), false, false),
        "__store" => (Place::Stmt, Some(2), false, false),
        "__fence" => (Place::Stmt, None, false, false),
        "__xchg" => (Place::Expr, Some(2), false, false),
        "__cmpxchg" => (Place::Expr, Some(3), false, false),
        "__atomic_op" => (Place::Stmt, Some(2), true, true),
        "__atomic_op_return" | "__atomic_fetch_op" => (Place::Expr, Some(2), true, false),
        "__atomic_add_unless" => (Place::Expr, Some(3), false, false),
        "__srcu" => (Place::Srcu, Some(1), false, false),
        _ => return None,
    };
    Some(Instruction {
        place,
        args,
        op,
        bare,
    })
}

/// Whether `word` begins a type in thread code.
pub(crate) fn begins_code_type(word: &str) -> bool {
    matches!(
        word,
        "volatile" | "const" | "_Atomic" | "struct" | "void" | "atomic"
    ) || CODE_BASE_TYPES.contains(&word)
}

/// Where herd7's splitter ends the program that starts at byte `from` of `src`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ProgramEnd {
    /// At the trailer word that starts at this offset.
    Word(usize),
    /// At the end of the text: the test has no trailer.
    Eof,
    /// Nowhere: the `"` at this offset opens a string that its line does not close, which
    /// herd7 refuses.
    Unclosed(usize),
}

/// Scans the program as herd7's splitter does: strings (`"..."`, on one line) are skipped,
/// names are taken whole (a letter, then letters, digits, `_`, `/`, `.` and `-`), and the
/// first name that is a trailer word ends the program.
/// C comments are not skipped, and `(*` is no comment here.
///
/// # Complexity
///
/// Linear in the length of the text.
pub(crate) fn program_end(src: &str, from: usize) -> ProgramEnd {
    let bytes = src.as_bytes();
    let mut k = from;
    while k < bytes.len() {
        let b = bytes[k];
        if b == b'"' {
            match bytes[k + 1..].iter().position(|&c| c == b'"' || c == b'\n') {
                Some(n) if bytes[k + 1 + n] == b'"' => k += n + 2,
                _ => return ProgramEnd::Unclosed(k),
            }
        } else if b.is_ascii_alphabetic() {
            let n = bytes[k..]
                .iter()
                .position(|&c| !(c.is_ascii_alphanumeric() || b"_/.-".contains(&c)))
                .unwrap_or(bytes.len() - k);
            if TRAILER_WORDS.contains(&&src[k..k + n]) {
                return ProgramEnd::Word(k);
            }
            k += n;
        } else {
            k += 1;
        }
    }
    ProgramEnd::Eof
}

/// The architectures herd7 7.58 knows by the first word of a test, as its splitter reads
/// that word (letters, digits and `_`).
const ARCHS: &[&str] = &[
    "AArch64", "ARM", "BPF", "MIPS", "PPC", "X86", "RISCV", "X86_64", "C", "CPP", "Bell", "LISA",
    "JAVA", "Java", "ASL",
];

/// The name herd7 gives the test `src`, as its splitter reads it before any parsing: the
/// second word of the first line (letters, digits and `_/.-+[]`), without a `.litmus`
/// suffix, after an architecture herd7 knows; `None` where the splitter stops herd7 with an
/// error of its own: a first line that is no header, no init block or one not closed, a
/// string in the program that its line does not close, a comment in the trailer never
/// closed (or the name `--`, which herd7 takes from the file's name).
///
/// # Complexity
///
/// Linear in the length of the text.
pub(crate) fn splitter_name(src: &str) -> Option<String> {
    let blank = |c: char| matches!(c, ' ' | '\t' | '\r');
    let line = src.trim_start_matches(blank);
    let arch_len = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(line.len());
    if !ARCHS.contains(&&line[..arch_len]) {
        return None;
    }
    let rest = &line[arch_len..];
    let name = rest.trim_start_matches(blank);
    if name.len() == rest.len() {
        return None;
    }
    let name_char = |c: char| c.is_ascii_alphanumeric() || "_/.-+[]".contains(c);
    let name_len = name.find(|c: char| !name_char(c)).unwrap_or(name.len());
    let (name, after) = name.split_at(name_len);
    if name.is_empty() || name == "--" {
        return None;
    }
    // The init block, its braces balanced.
    let open = src.len() - after.len() + after.find('{')?;
    let mut depth = 0usize;
    let mut close = None;
    for (k, c) in src[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + k + 1);
                    break;
                }
            }
            _ => {}
        }
    }
    let trailer = match program_end(src, close?) {
        ProgramEnd::Unclosed(_) => return None,
        ProgramEnd::Eof => src.len(),
        ProgramEnd::Word(k) => k,
    };
    // The trailer, up to `<<`: its comments nest and must close.
    let mut depth = 0usize;
    let bytes = src.as_bytes();
    let mut k = trailer;
    while k < bytes.len() {
        if bytes[k..].starts_with(b"(*") {
            depth += 1;
            k += 2;
        } else if depth > 0 && bytes[k..].starts_with(b"*)") {
            depth -= 1;
            k += 2;
        } else if depth == 0 && bytes[k..].starts_with(b"<<") {
            break;
        } else {
            k += 1;
        }
    }
    if depth > 0 {
        return None;
    }
    Some(name.strip_suffix(".litmus").unwrap_or(name).to_string())
}

/// The value herd7 gives a decimal literal (its sign included): a 32-bit integer, as OCaml's
/// `Int32.of_string` reads it; `None` when out of range.
pub(crate) fn decimal_value(negative: bool, magnitude: u64) -> Option<i64> {
    let v = if negative {
        -i128::from(magnitude)
    } else {
        i128::from(magnitude)
    };
    i32::try_from(v).ok().map(i64::from)
}

/// The value herd7 gives a hexadecimal literal of the init block or the condition: any 32-bit
/// pattern, read as a signed number (`0xffffffff` is -1); `None` beyond 32 bits.
pub(crate) fn hexadecimal_value(magnitude: u64) -> Option<i64> {
    u32::try_from(magnitude).ok().map(|v| i64::from(v as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_ends_at_the_first_trailer_word() {
        let src = "P0(int *x) { r = 1; // nothing exists here\n}\nexists (x=1)";
        assert_eq!(
            program_end(src, 0),
            ProgramEnd::Word(src.find("exists").unwrap_or(0))
        );
        // Whole names only, with the splitter's idea of a name.
        for text in ["existsx", "r_exists", "a.exists", "x-final", "Final"] {
            assert_eq!(program_end(text, 0), ProgramEnd::Eof, "{text}");
        }
        for text in ["_exists", "1exists", "(*filter*)", "~exists"] {
            assert!(
                matches!(program_end(text, 0), ProgramEnd::Word(_)),
                "{text}"
            );
        }
        // Strings are skipped, and must close on their line.
        assert_eq!(program_end("\"exists\" x", 0), ProgramEnd::Eof);
        assert_eq!(program_end("/* \"a */\n", 0), ProgramEnd::Unclosed(3));
        assert_eq!(program_end("\"", 0), ProgramEnd::Unclosed(0));
    }

    #[test]
    fn the_splitter_reads_the_name_before_the_code() {
        let name = |s: &str| splitter_name(s);
        let ok = "{}\nP0(int *x) { WRITE_ONCE(*x, 1) }\nexists (x=1)\n";
        assert_eq!(
            name(&format!("C MP+x.litmus\n{ok}")).as_deref(),
            Some("MP+x")
        );
        assert_eq!(
            name(&format!("\tX86  A[1]-b \"doc\"\n{ok}")).as_deref(),
            Some("A[1]-b")
        );
        assert_eq!(name(&format!("C B\n{ok}(* open *)")).as_deref(), Some("B"));
        for bad in [
            format!("(* c *)\nC B\n{ok}"),
            format!("Foo B\n{ok}"),
            format!("C\n{ok}"),
            format!("C --\n{ok}"),
            "C B\n{ x=1;\n".to_string(),
            "C B\n{}\nP0(int *x) { r = \"a; }\n".to_string(),
            format!("C B\n{ok}(* (* *)"),
        ] {
            assert_eq!(name(&bad), None, "{bad}");
        }
    }

    #[test]
    fn numbers_are_32_bit() {
        assert_eq!(decimal_value(false, 2147483647), Some(2147483647));
        assert_eq!(decimal_value(true, 2147483648), Some(-2147483648));
        assert_eq!(decimal_value(false, 2147483648), None);
        assert_eq!(hexadecimal_value(0xffff_ffff), Some(-1));
        assert_eq!(hexadecimal_value(0x10), Some(16));
        assert_eq!(hexadecimal_value(0x1_0000_0000), None);
    }

    #[test]
    fn names_depend_on_the_part() {
        for w in [
            "continue", "return", "do", "for", "true", "false", "and", "tag",
        ] {
            assert!(is_code_name(w), "{w}");
        }
        for w in ["lock", "int", "if", "P1", "atomic_t"] {
            assert!(!is_code_name(w), "{w}");
        }
        for w in ["continue", "if", "int", "lock", "P1x", "cases"] {
            assert!(is_state_name(w), "{w}");
        }
        for w in ["true", "false", "and", "not", "tag", "P0"] {
            assert!(!is_state_name(w), "{w}");
        }
    }
}
