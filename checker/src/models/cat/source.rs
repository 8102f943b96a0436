//! The files a model was read from: each one's name, origin and text, indexed by the
//! number that spans and errors carry ([`Span::file`]).
//!
//! It is the table every later step points into, so it imports nothing but the syntax's
//! [`Span`]: the parser, the loader and the errors all use it, and it uses none of them.

use std::path::PathBuf;

use super::ast::Span;

/// One file of a model: its name, where it came from, and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The name diagnostics give it: the path it was read from, or its built-in name.
    pub name: String,
    /// Where it came from.
    pub origin: Origin,
    /// Its text (invalid UTF-8 replaced by U+FFFD), which spans index.
    pub text: String,
}

/// Where a file's text came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A file of the file system, at this path.
    Path(PathBuf),
    /// One of the files built into hazmat ([`super::files::BUILTIN`]).
    Builtin,
    /// A text given by the caller, not read from anywhere.
    Text,
}

/// The files a model was read from, each with its index, which spans name
/// ([`Span::file`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Files {
    files: Vec<SourceFile>,
}

impl Files {
    /// No files.
    pub fn new() -> Files {
        Files::default()
    }

    /// Adds a file and returns its index.
    pub fn add(&mut self, name: impl Into<String>, origin: Origin, text: impl Into<String>) -> u32 {
        let index = u32::try_from(self.files.len()).unwrap_or(u32::MAX);
        self.files.push(SourceFile {
            name: name.into(),
            origin,
            text: text.into(),
        });
        index
    }

    /// The file of an index.
    pub fn get(&self, file: u32) -> Option<&SourceFile> {
        self.files.get(file as usize)
    }

    /// The text a span covers, if it is in these files.
    pub fn text_of(&self, span: Span) -> Option<&str> {
        self.get(span.file)?
            .text
            .get(span.start as usize..span.end as usize)
    }

    /// How many files there are.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The files, in index order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &SourceFile)> {
        (0u32..).zip(&self.files)
    }
}
