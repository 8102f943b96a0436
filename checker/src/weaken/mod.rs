//! `hazmat weaken`: which fences and orderings a test's verdict needs, which are stronger
//! than needed, and the cheapest strengthenings that forbid an outcome.
//!
//! Every barrier of a concurrent algorithm is an argument ("this `smp_mb()` forbids that
//! outcome"), and a litmus test decides in microseconds, so this module decides every
//! weakening of a test instead of a reviewer writing twins by hand:
//! - [`site`] finds the test's ordering sites on the parsed test (fences, ordered accesses,
//!   each C11 order) with the [`lattice`] of choices each could be written with, and the
//!   gaps where a fence could be inserted;
//! - [`variant`] writes a choice of every site into the source text at the sites' spans;
//! - [`decide`] asks a variant its question with the engine's speed check;
//! - [`search`] weakens a test whose verdict is `Never` or `Always` (each site alone, then
//!   the weakest whole assignments), [`strengthen`] strengthens one whose verdict is
//!   `Sometimes` (the cheapest sets of changes that forbid its outcome);
//! - [`render`] writes the result as a table, as JSON, or as Markdown.
//!
//! Variants are decided in parallel on the current rayon pool. Like the rest of the
//! library this module does no I/O: the command line reads the files and writes the
//! variants ([`variant_files`] gives their text).

pub mod decide;
pub mod lattice;
pub mod render;
pub mod search;
pub mod site;
pub mod strengthen;
pub mod variant;

use crate::CheckError;
use crate::engine::outcome::Verdict;
use crate::front::defs::Macros;
use crate::models::model::MemoryModel;
use crate::models::optace::OptAce;
use decide::{Fate, Judge, Question};
use rayon::prelude::*;
use site::{Site, Vocabulary};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use variant::Assignment;

/// How to weaken.
#[derive(Clone, Copy)]
pub struct Setup<'a> {
    /// The model.
    pub model: &'a dyn MemoryModel,
    /// Whether it is one of hazmat's native models.
    pub native: bool,
    /// A user's macros, in place of the kernel's.
    pub macros: Option<&'a Macros>,
    /// How long one variant may take to decide.
    pub timeout: Option<Duration>,
    /// Decide every whole assignment when there are at most this many.
    pub exact_limit: usize,
    /// The most decisions the strengthening search makes.
    pub budget: usize,
    /// The most changes in one strengthening.
    pub max_changes: usize,
    /// How herd7 builds the candidates (its `-optace`, from the model's configuration).
    pub optace: OptAce,
}

impl<'a> Setup<'a> {
    /// The defaults for `model`: exact up to 4,096 assignments, 4,000 decisions and four
    /// changes for a strengthening, no timeout.
    pub fn new(model: &'a dyn MemoryModel, native: bool) -> Setup<'a> {
        Setup {
            model,
            native,
            macros: None,
            timeout: None,
            exact_limit: 4096,
            budget: 4000,
            max_changes: 4,
            optace: OptAce::Iico,
        }
    }
}

/// Why a test could not be weakened.
#[derive(Debug, thiserror::Error)]
pub enum WeakenError {
    /// The test itself could not be checked.
    #[error(transparent)]
    Check(#[from] CheckError),
    /// The test has no condition.
    #[error(
        "the test has no condition (exists, ~exists or forall): there is no verdict to keep or outcome to forbid"
    )]
    NoCondition,
    /// The test itself is undecided within the limits.
    #[error("the test itself is undecided ({0}), so there is no verdict to keep: raise --timeout")]
    TestUndecided(String),
    /// Nothing to weaken or strengthen.
    #[error("{0}")]
    NoSite(String),
    /// A variant is undecided within the limits.
    #[error("variant {variant} is undecided ({why}); no partial table is given: raise --timeout")]
    Undecided {
        /// The variant, by its name.
        variant: String,
        /// The limit reached.
        why: String,
    },
    /// A variant could not be read or run (a fault of hazmat's, since it wrote it).
    #[error("variant {variant} cannot be decided: {message}")]
    Variant {
        /// The variant, by its name.
        variant: String,
        /// What went wrong.
        message: String,
    },
}

impl WeakenError {
    /// The error as `file:line:col: error: message` (or `file: error: message`).
    pub fn render(&self, file: &str, source: &str) -> String {
        match self {
            WeakenError::Check(e) => e.render(file, source),
            other => format!("{file}: error: {other}"),
        }
    }
}

/// What the searches share: the test, its slots, the question and the decisions made.
pub struct Cx<'a> {
    judge: Judge<'a>,
    source: &'a str,
    name: &'a str,
    /// The slots searched: the sites, then (strengthening) the gaps.
    pub slots: &'a [Site],
    question: Question,
    flags: &'a [&'static str],
    decided: AtomicUsize,
    cache: Mutex<HashMap<Assignment, Fate>>,
    /// See [`Setup::exact_limit`].
    pub exact_limit: usize,
    /// See [`Setup::budget`].
    pub budget: usize,
    /// See [`Setup::max_changes`].
    pub max_changes: usize,
}

impl Cx<'_> {
    /// The name of the variant `a`.
    fn what(&self, a: &[usize]) -> String {
        format!("{}{}", self.name, variant::suffix(self.slots, a))
    }

    /// The number of variants decided so far.
    pub fn decided(&self) -> usize {
        self.decided.load(Ordering::Relaxed)
    }

    /// Asks the question of the variant `a`.
    pub fn ask(&self, a: &Assignment) -> Result<Fate, WeakenError> {
        if let Some(f) = self.cache.lock().map_or(None, |c| c.get(a).cloned()) {
            return Ok(f);
        }
        let text = variant::text(self.source, self.slots, a);
        let fate = self
            .judge
            .ask(&text, &self.what(a), &self.question, self.flags)?;
        self.decided.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut c) = self.cache.lock() {
            c.insert(a.clone(), fate.clone());
        }
        Ok(fate)
    }

    /// Asks the question of each variant, in parallel; the answers in order, or the first
    /// error.
    pub fn ask_all(&self, all: Vec<Assignment>) -> Result<Vec<Fate>, WeakenError> {
        all.par_iter().map(|a| self.ask(a)).collect()
    }

    /// The witnesses of the variants, which lost the outcome, in parallel.
    pub fn witnesses(&self, all: Vec<Assignment>) -> Result<Vec<String>, WeakenError> {
        all.par_iter()
            .map(|a| {
                let text = variant::text(self.source, self.slots, a);
                self.judge.witness(&text, &self.what(a), &self.question)
            })
            .collect()
    }
}

/// What was asked of a test, and the answers.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The test's name.
    pub name: String,
    /// The model's name.
    pub model: String,
    /// The test's verdict.
    pub verdict: Verdict,
    /// The flags the test raises.
    pub flags: Vec<&'static str>,
    /// The condition as written.
    pub condition: String,
    /// The ordering sites (fences and ordered accesses), in source order.
    pub sites: Vec<Site>,
    /// The accesses with no ordering (`READ_ONCE`, relaxed), which a strengthening may
    /// upgrade, in source order.
    pub unordered: Vec<Site>,
    /// The gaps (strengthening only), in source order.
    pub gaps: Vec<Site>,
    /// Each site alone, parallel to `sites`.
    pub each: Vec<search::SiteResult>,
    /// The weakest whole assignments (a `Never` or `Always` test).
    pub weakest: Option<search::Weakest>,
    /// The strengthenings (a `Sometimes` test).
    pub strengthening: Option<strengthen::Strengthening>,
    /// The question each variant was asked.
    pub question: Question,
    /// The number of variants decided.
    pub decided: usize,
    /// The time it took.
    pub elapsed: Duration,
}

impl Analysis {
    /// The slots of the strengthening: the sites, the unordered accesses, then the gaps.
    pub fn slots(&self) -> Vec<Site> {
        self.sites
            .iter()
            .chain(&self.unordered)
            .chain(&self.gaps)
            .cloned()
            .collect()
    }
}

/// Weakens (or, for a `Sometimes` verdict, strengthens) the test `source` under
/// `setup`'s model.
pub fn analyse(source: &str, setup: &Setup<'_>) -> Result<Analysis, WeakenError> {
    let start = Instant::now();
    let test =
        hazmat_litmus::parse(source).map_err(|e| WeakenError::Check(CheckError::Parse(e)))?;
    let dialect = setup.model.dialect();
    let reading = crate::model_reading(setup.model);
    let (program, _) =
        crate::front::lower::lower_with_variant(&test, dialect, setup.macros, reading)
            .map_err(|e| WeakenError::Check(CheckError::Lower(e)))?;
    let Some(condition) = &test.condition else {
        return Err(WeakenError::NoCondition);
    };
    let judge = Judge {
        model: setup.model,
        macros: setup.macros,
        timeout: setup.timeout,
        native: setup.native,
        optace: setup.optace,
    };
    let outcome = crate::engine::decide::run(&program, setup.model, &judge_options(setup))
        .map_err(|error| {
            WeakenError::Check(CheckError::Run {
                error,
                notes: Vec::new(),
            })
        })?;
    if let Some(why) = outcome.unknown {
        return Err(WeakenError::TestUndecided(why));
    }
    let verdict = outcome.verdict();
    let flags = outcome.flags.clone();
    let (all, gaps) = site::find(
        &test,
        source,
        Vocabulary {
            dialect,
            macros: setup.macros,
        },
    );
    let (sites, unordered): (Vec<Site>, Vec<Site>) = all
        .into_iter()
        .partition(|s| s.choices[s.current].strength != 0);
    let quantifier = program.condition.quantifier;
    let condition = source[condition.span.start..condition.span.end].to_string();
    let mut analysis = Analysis {
        name: test.name.name.clone(),
        model: setup.model.name().to_string(),
        verdict,
        flags: flags.clone(),
        condition,
        sites,
        unordered,
        gaps: Vec::new(),
        each: Vec::new(),
        weakest: None,
        strengthening: None,
        question: Question::keep(verdict, quantifier),
        decided: 0,
        elapsed: Duration::ZERO,
    };
    let cx = |slots, question| Cx {
        judge,
        source,
        name: &test.name.name,
        slots,
        question,
        flags: &flags,
        decided: AtomicUsize::new(0),
        cache: Mutex::new(HashMap::new()),
        exact_limit: setup.exact_limit,
        budget: setup.budget,
        max_changes: setup.max_changes,
    };
    match verdict {
        Verdict::Never | Verdict::Always => {
            if analysis.sites.is_empty() {
                return Err(WeakenError::NoSite(format!(
                    "the test has no ordering site to weaken: no fence and no ordered access \
                     that {} could write weaker (see docs/src/weaken.md for the forms)",
                    if dialect == crate::front::c11::Dialect::C11 {
                        "the C11 dialect"
                    } else {
                        "the kernel's dialect"
                    }
                )));
            }
            let sites = analysis.sites.clone();
            let cx = cx(&sites, analysis.question);
            analysis.each = search::each_site(&cx)?;
            analysis.weakest = Some(search::weakest(&cx)?);
            analysis.decided = cx.decided();
        }
        Verdict::Sometimes => {
            let sites = analysis.sites.clone();
            let keep = cx(&sites, analysis.question);
            analysis.each = search::each_site(&keep)?;
            analysis.gaps = gaps;
            let slots = analysis.slots();
            if slots.iter().all(|s| s.stronger().is_empty()) {
                return Err(WeakenError::NoSite(
                    "the test has no ordering site to strengthen and no place between two \
                     accesses of a thread to insert a fence"
                        .to_string(),
                ));
            }
            let question = Question::forbid(quantifier);
            let cx = cx(&slots, question);
            analysis.strengthening = Some(strengthen::strengthen(&cx)?);
            analysis.question = question;
            analysis.decided = keep.decided() + cx.decided();
        }
    }
    analysis.elapsed = start.elapsed();
    Ok(analysis)
}

fn judge_options(setup: &Setup<'_>) -> crate::engine::outcome::Options {
    crate::engine::outcome::Options {
        limits: crate::engine::enumerate::Limits {
            deadline: setup.timeout.map(|t| Instant::now() + t),
            optace: setup.optace,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// One variant to write: its file name's suffix and its text.
#[derive(Clone, Debug)]
pub struct VariantFile {
    /// `+no-mb-L18`, to follow the test's file stem.
    pub suffix: String,
    /// The litmus file.
    pub text: String,
}

/// The variants the analysis reports, as litmus files with their verdicts under the
/// analysis's model (each decided once more in full for its `Result:` line): each site's
/// weaker choices, the weakest assignments, and the strengthenings.
pub fn variant_files(
    source: &str,
    analysis: &Analysis,
    setup: &Setup<'_>,
) -> Result<Vec<VariantFile>, WeakenError> {
    let test =
        hazmat_litmus::parse(source).map_err(|e| WeakenError::Check(CheckError::Parse(e)))?;
    let judge = Judge {
        model: setup.model,
        macros: setup.macros,
        timeout: setup.timeout,
        native: setup.native,
        optace: setup.optace,
    };
    let mut wanted: Vec<(Vec<Site>, Assignment)> = Vec::new();
    let sites = analysis.sites.clone();
    let base = variant::original(&sites);
    for (i, r) in analysis.each.iter().enumerate() {
        for (c, _) in &r.fates {
            let mut a = base.clone();
            a[i] = *c;
            wanted.push((sites.clone(), a));
        }
    }
    if let Some(w) = &analysis.weakest {
        for a in &w.assignments {
            if variant::changed(&sites, a).len() > 1 {
                wanted.push((sites.clone(), a.clone()));
            }
        }
    }
    if let Some(s) = &analysis.strengthening {
        let slots = analysis.slots();
        for set in &s.sets {
            let mut a = variant::original(&slots);
            for &(i, c) in &set.changes {
                a[i] = c;
            }
            wanted.push((slots.clone(), a));
        }
    }
    let model = setup.model.name();
    wanted
        .par_iter()
        .map(|(slots, a)| {
            let text = variant::text(source, slots, a);
            let what = format!("{}{}", test.name.name, variant::suffix(slots, a));
            let program = judge.lower(&text, &what)?;
            let outcome = judge.full(&program, &what)?;
            let mut result = outcome.verdict().as_str().to_string();
            if outcome.flagged("data-race") || outcome.flagged(crate::models::model::UNDEFINED) {
                result.push_str(" DATARACE");
            }
            Ok(VariantFile {
                suffix: variant::suffix(slots, a),
                text: variant::file(source, &test, slots, a, model, &result),
            })
        })
        .collect()
}
