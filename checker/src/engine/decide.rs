//! Deciding a test: the one place that chooses how a program's outcome is found.
//!
//! [`run`] tries the searches in order: counting a pipeline of threads piece by piece
//! (`engine::pieces`), then the whole enumeration with one execution built per
//! group of images under the program's symmetry ([`crate::engine::symmetry`]), then every
//! execution; in full mode the enumeration is shared out among the rayon pool's threads
//! (`engine::enumerate::split`), and a speed check runs on the calling thread
//! towards its goal, as does a count of the executions that can decide the condition
//! (herd7's `-speedcheck true`), which goes on to the end. Each allowed execution is read
//! into states, counts and flags by one `Collector` per part of the search, merged in the
//! order of the parts.

use crate::engine::enumerate::{
    Allowed, Flow, Limits, RunError, Stop, enumerate_split, enumerate_with,
};
use crate::engine::outcome::{Options, Outcome, herd7_order_by};
use crate::exec::event::Value;
use crate::front::program::{Cell, Program, Prop, Quantifier};
use crate::models::model::MemoryModel;

/// Checks `program` under `model`: the free function behind `hazmat check`.
pub fn run(
    program: &Program,
    model: &dyn MemoryModel,
    options: &Options,
) -> Result<Outcome, RunError> {
    if let Some(split) = crate::engine::pieces::run(program, model, options) {
        return split;
    }
    // A symmetry would have to carry a location next to a variable with the variable.
    let symmetry = if options.every_image || program.locs.iter().any(|l| l.next_to.is_some()) {
        None
    } else {
        crate::engine::symmetry::Symmetry::find(program)
    };
    match run_with(program, model, options, symmetry.as_ref())? {
        Some(outcome) => Ok(outcome),
        // An image's state holds an unsolved symbol, whose name renaming may change:
        // every execution is built instead.
        None => {
            Ok(run_with(program, model, options, None)?
                .expect("with no symmetry, no image gives up"))
        }
    }
}

/// What one check reads of each allowed execution, and how it counts it.
struct Reading<'p> {
    program: &'p Program,
    /// The cells read: the state's columns, then those only the condition reads.
    read: Vec<Cell>,
    /// Under the program's symmetry, for the image `j` and the `i`th cell read, the
    /// position in [`Reading::read`] of the cell of the execution built that holds its
    /// value, when that cell is read too.
    preimages: Vec<Vec<Option<usize>>>,
    speedcheck: bool,
    /// Whether only the executions that can decide the condition count
    /// ([`Options::deciding_only`]).
    deciding_only: bool,
    /// Whether some executions are images under the program's symmetry.
    symmetric: bool,
    /// Whether every cell an image reads has its value from a cell read in the execution
    /// built, so that the values read in an image follow from those read in the execution
    /// built.
    closed: bool,
}

/// The states, counts and flags of the allowed executions one part of a check met.
struct Collector {
    /// The current execution's values of [`Reading::read`].
    values: Vec<Value>,
    /// The values of [`Reading::read`] in the execution built last under the program's
    /// symmetry, from which its images' values are read ([`Reading::preimages`]).
    built: Vec<Value>,
    /// Whether an image's state held an unsolved symbol.
    symbolic: bool,
    /// Every distinct tuple of values read, with whether it satisfies the condition: the
    /// states are their first [`Program::shown`] columns, and an execution whose values
    /// were met before needs no evaluation of the condition.
    seen: foldhash::HashMap<Vec<Value>, bool>,
    /// When [`Reading::closed`]: for each tuple of values an execution built under the
    /// symmetry had, whether each of its images satisfies the condition (its images' tuples
    /// are in `seen` then).
    images: foldhash::HashMap<Vec<Value>, Vec<bool>>,
    /// Whether each image of the execution built last satisfies the condition, as far as
    /// its images were met, or all of them when `images` had its tuple (`images_known`).
    image_sats: Vec<bool>,
    images_known: bool,
    positive: u128,
    negative: u128,
    /// In the order first raised.
    flags: Vec<&'static str>,
    cut_short: bool,
}

impl Collector {
    fn new() -> Collector {
        Collector {
            values: Vec::new(),
            built: Vec::new(),
            symbolic: false,
            seen: foldhash::HashMap::default(),
            images: foldhash::HashMap::default(),
            image_sats: Vec::new(),
            images_known: false,
            positive: 0,
            negative: 0,
            flags: Vec::new(),
            cut_short: false,
        }
    }

    /// Counts one allowed execution, or the group of them `x` stands for.
    fn visit(&mut self, r: &Reading<'_>, x: &Allowed<'_>) -> Flow {
        let decides = |sat: bool| match r.program.condition.quantifier {
            Quantifier::Exists | Quantifier::NotExists => sat,
            Quantifier::Forall => !sat,
        };
        let image = x.image().filter(|_| r.closed);
        let sat = match image {
            // An image of an execution built whose tuple was met before: its tuple was.
            Some(j) if j > 0 && self.images_known => self.image_sats[j],
            _ => {
                self.read(r, x);
                let values = &self.values;
                if r.symmetric && values.iter().any(|v| matches!(v, Value::Sym(_))) {
                    self.symbolic = true;
                    return Flow::Stop;
                }
                // The enumeration has applied the filter.
                let known = self.seen.get(values).copied();
                let sat = known.unwrap_or_else(|| {
                    let get =
                        |c: Cell| values[r.read.iter().position(|&k| k == c).expect("a cell read")];
                    r.program.condition.prop.eval(&get)
                });
                if let Some(j) = image {
                    self.record_image(j, sat, r.preimages.len());
                }
                // The goal has cut every execution that cannot decide the condition
                // already; one that came through all the same would not count.
                if r.deciding_only && !decides(sat) {
                    return Flow::Continue;
                }
                if known.is_none() {
                    self.seen.insert(self.values.clone(), sat);
                }
                sat
            }
        };
        let decided = decides(sat);
        if r.deciding_only && !decided {
            return Flow::Continue;
        }
        for f in &x.judgement.flags {
            if !self.flags.contains(f) {
                self.flags.push(f);
            }
        }
        if sat {
            self.positive += u128::from(x.count());
        } else {
            self.negative += u128::from(x.count());
        }
        if r.speedcheck && decided {
            self.cut_short = true;
            Flow::Stop
        } else {
            Flow::Continue
        }
    }

    /// Keeps whether image `j` (of `order`) of the execution built last satisfies the
    /// condition; at image 0, looks up the images of an execution built before with the
    /// same tuple of values.
    fn record_image(&mut self, j: usize, sat: bool, order: usize) {
        if j == 0 {
            match self.images.get(&self.values) {
                Some(sats) => {
                    self.image_sats.clone_from(sats);
                    self.images_known = true;
                }
                None => {
                    self.image_sats.clear();
                    self.image_sats.push(sat);
                    self.images_known = false;
                }
            }
            return;
        }
        self.image_sats.push(sat);
        if j + 1 == order {
            self.images
                .insert(self.built.clone(), self.image_sats.clone());
        }
    }

    /// Reads the values of [`Reading::read`] in `x` into `self.values`; an image's from
    /// those of the execution built, where the cell that holds it is read too.
    fn read(&mut self, r: &Reading<'_>, x: &Allowed<'_>) {
        self.values.clear();
        match x.image() {
            Some(j) if j > 0 => {
                let built = &self.built;
                self.values.extend(
                    r.read
                        .iter()
                        .zip(&r.preimages[j])
                        .map(|(&c, pre)| pre.map_or_else(|| x.value(c), |k| built[k])),
                );
            }
            image => {
                self.values.extend(r.read.iter().map(|&c| x.value(c)));
                if image.is_some() {
                    self.built.clone_from(&self.values);
                }
            }
        }
    }

    /// The final states met, over [`Program::shown`]'s `shown` columns (a state twice
    /// where the condition reads cells it does not show), each from its tuple of values.
    fn states(self, shown: usize) -> impl Iterator<Item = Vec<Value>> {
        self.seen.into_keys().map(move |mut v| {
            v.truncate(shown);
            v
        })
    }

    /// Adds what `later` met after what `self` met.
    fn merge(&mut self, mut later: Collector) {
        self.symbolic |= later.symbolic;
        // The tuples met have no order: the smaller map goes into the larger, since moving
        // a million of them one by one takes as long as a search of seconds.
        if later.seen.len() > self.seen.len() {
            std::mem::swap(&mut self.seen, &mut later.seen);
        }
        self.seen.extend(later.seen);
        self.positive += later.positive;
        self.negative += later.negative;
        for f in later.flags {
            if !self.flags.contains(&f) {
                self.flags.push(f);
            }
        }
        self.cut_short |= later.cut_short;
    }
}

/// [`run`] on the whole program, building one execution of each group of images under
/// `symmetry`; `None` if an image's final state holds an unsolved symbol.
fn run_with(
    program: &Program,
    model: &dyn MemoryModel,
    options: &Options,
    symmetry: Option<&crate::engine::symmetry::Symmetry>,
) -> Result<Option<Outcome>, RunError> {
    let mut read: Vec<Cell> = program.shown.clone();
    let mut in_condition = Vec::new();
    program.condition.prop.cells(&mut in_condition);
    for c in in_condition {
        if !read.contains(&c) {
            read.push(c);
        }
    }
    let preimages = symmetry.map_or_else(Vec::new, |s| {
        (0..s.order())
            .map(|j| {
                read.iter()
                    .map(|&c| read.iter().position(|&k| k == s.preimage(c, j)))
                    .collect()
            })
            .collect()
    });
    let closed = preimages.iter().flatten().all(Option::is_some);
    let reading = Reading {
        program,
        read,
        closed: symmetry.is_some() && closed,
        preimages,
        speedcheck: options.speedcheck,
        deciding_only: options.deciding_only,
        symmetric: symmetry.is_some(),
    };
    let quantifier = program.condition.quantifier;
    // In a speed check, only executions that can decide the condition matter: those that
    // satisfy the proposition (`exists`, `~exists`) or fail it (`forall`).
    let negated;
    let goal = match (options.speedcheck || options.deciding_only, quantifier) {
        (false, _) => None,
        (true, Quantifier::Forall) => {
            negated = Prop::Not(Box::new(program.condition.prop.clone()));
            Some(&negated)
        }
        (true, _) => Some(&program.condition.prop),
    };
    let (stats, stop, mut all) = match goal {
        Some(goal) => {
            let mut c = Collector::new();
            let (stats, stop) = enumerate_with(
                program,
                model,
                &options.limits,
                Some(goal),
                symmetry,
                &mut |x| c.visit(&reading, x),
            )?;
            (stats, stop, c)
        }
        None => {
            // The collectors read how many executions each one reported stands for.
            let limits = Limits {
                count_completions: !options.every_completion,
                ..options.limits
            };
            let (stats, stop, parts) = enumerate_split(
                program,
                model,
                &limits,
                symmetry,
                &Collector::new,
                &|c, x| c.visit(&reading, x),
            )?;
            let mut all = Collector::new();
            for part in parts {
                all.merge(part);
            }
            (stats, stop, all)
        }
    };
    if all.symbolic {
        return Ok(None);
    }
    let unknown = match stop {
        Some(Stop::Limit(why)) => Some(why),
        Some(Stop::Done) | None => None,
    };
    let (positive, negative, cut_short) = (all.positive, all.negative, all.cut_short);
    let flags = std::mem::take(&mut all.flags);
    // The tuples met are distinct, and so are the states when they are the whole tuples.
    let distinct = reading.read.len() == program.shown.len();
    let (states, states_left_out) = herd7_order_by(
        program,
        all.states(program.shown.len()),
        distinct,
        options.limits.deadline,
    );
    Ok(Some(Outcome {
        states,
        states_left_out,
        positive,
        negative,
        flags,
        stats,
        unknown,
        cut_short,
        speedcheck: options.speedcheck.then_some(quantifier),
        pieces: 1,
    }))
}
