//! The seam: what one dialect implements (`interpreter`), so that everything above it reads
//! every dialect the same way.

pub mod conversation;
pub mod family;
pub mod interpreter;
