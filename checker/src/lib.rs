//! Exhaustive litmus-test checking under the Linux-kernel memory model, SC and TSO.
