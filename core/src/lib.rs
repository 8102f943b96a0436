//! Hazard pointers with a shared scan thread, modelled on the Linux-kernel hazptr series.
//!
//! The library is being built; see `docs/src/hazptr.md` for the design it follows.
