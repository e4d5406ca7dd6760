//! The `tiers` strategy (eternal history). Work in progress.
