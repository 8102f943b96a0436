//! Shuttle schedules as short text, and a scheduler that records the schedule it runs.
//!
//! A shuttle schedule is a seed (for the model's random choices) and the sequence of tasks
//! chosen at each scheduling point.
//! [`encode`] writes it as `SEED:STEPS`, the seed in hexadecimal and the steps as
//! comma-separated task numbers, `r` for a random choice, and `NxK` for K repeats of N,
//! so that it fits in an environment variable: `HAZMAT_REPLAY=<model>@<schedule>`.

use std::sync::{Arc, Mutex};

use shuttle::scheduler::{Schedule, Scheduler, Task, TaskId};

/// One scheduling decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The task of this number ran next.
    Task(usize),
    /// The model drew a random value.
    Random,
}

/// A schedule as recorded: the execution's seed and its decisions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// The seed of the execution's random choices.
    pub seed: u64,
    /// The decisions, in order.
    pub steps: Vec<Step>,
}

impl Recorded {
    /// The schedule shuttle's replay scheduler takes.
    pub fn to_schedule(&self) -> Schedule {
        let mut schedule = Schedule::new(self.seed);
        for step in &self.steps {
            match *step {
                Step::Task(id) => schedule.push_task(TaskId::from(id)),
                Step::Random => schedule.push_random(),
            }
        }
        schedule
    }
}

/// Writes `schedule` as text; [`decode`] reads it back.
pub fn encode(schedule: &Recorded) -> String {
    let tokens: Vec<String> = schedule
        .steps
        .iter()
        .map(|step| match step {
            Step::Task(id) => id.to_string(),
            Step::Random => "r".to_owned(),
        })
        .collect();
    let mut out = format!("{:x}:", schedule.seed);
    let mut i = 0;
    while i < tokens.len() {
        let run = tokens[i..].iter().take_while(|t| **t == tokens[i]).count();
        if i > 0 {
            out.push(',');
        }
        out.push_str(&tokens[i]);
        if run > 1 {
            out.push_str(&format!("x{run}"));
        }
        i += run;
    }
    out
}

/// Reads a schedule written by [`encode`]; `None` if the text is not one.
pub fn decode(text: &str) -> Option<Recorded> {
    let (seed, steps) = text.trim().split_once(':')?;
    let mut schedule = Recorded {
        seed: u64::from_str_radix(seed, 16).ok()?,
        steps: Vec::new(),
    };
    for token in steps.split(',').filter(|t| !t.is_empty()) {
        let (step, count) = match token.split_once('x') {
            Some((step, count)) => (step, count.parse::<usize>().ok()?),
            None => (token, 1),
        };
        let step = if step == "r" {
            Step::Random
        } else {
            Step::Task(step.parse::<usize>().ok()?)
        };
        schedule.steps.extend(std::iter::repeat_n(step, count));
    }
    Some(schedule)
}

/// A scheduler that runs `inner` and records the current execution's schedule in a shared
/// cell, so that a failing execution's schedule can be printed after the run unwinds.
pub struct Recorder<S> {
    inner: S,
    current: Arc<Mutex<Recorded>>,
}

impl<S> Recorder<S> {
    /// Wraps `inner`; the returned cell holds the schedule of the execution running or last run.
    pub fn new(inner: S) -> (Self, Arc<Mutex<Recorded>>) {
        let current = Arc::new(Mutex::new(Recorded::default()));
        (
            Self {
                inner,
                current: Arc::clone(&current),
            },
            current,
        )
    }

    fn current(&self) -> std::sync::MutexGuard<'_, Recorded> {
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<S: Scheduler> Scheduler for Recorder<S> {
    fn new_execution(&mut self) -> Option<Schedule> {
        let schedule = self.inner.new_execution()?;
        *self.current() = Recorded {
            seed: schedule.seed,
            steps: Vec::new(),
        };
        Some(schedule)
    }

    fn next_task(
        &mut self,
        runnable_tasks: &[&Task],
        current_task: Option<TaskId>,
        is_yielding: bool,
    ) -> Option<TaskId> {
        let next = self
            .inner
            .next_task(runnable_tasks, current_task, is_yielding)?;
        self.current().steps.push(Step::Task(usize::from(next)));
        Some(next)
    }

    fn next_u64(&mut self) -> u64 {
        self.current().steps.push(Step::Random);
        self.inner.next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_round_trip_through_text() {
        let mut steps: Vec<Step> = [0, 0, 0, 1, 2, 2].map(Step::Task).to_vec();
        steps.extend([Step::Random, Step::Task(1)]);
        let schedule = Recorded {
            seed: 0xdead_beef,
            steps,
        };
        let text = encode(&schedule);
        assert_eq!(text, "deadbeef:0x3,1,2x2,r,1");
        assert_eq!(decode(&text), Some(schedule));
    }

    #[test]
    fn text_that_is_not_a_schedule_is_refused() {
        assert_eq!(decode("no colon"), None);
        assert_eq!(decode("zz:1"), None);
        assert_eq!(decode("1:1,q"), None);
        assert_eq!(decode("1:1xq"), None);
    }
}
