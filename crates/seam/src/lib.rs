//! The seam: what one dialect implements (`interpreter`), so that everything above it reads
//! every dialect the same way.

pub mod interpreter;
