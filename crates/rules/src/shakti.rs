//! Shakti (shared/RULES.md §5). Implementation in progress.
