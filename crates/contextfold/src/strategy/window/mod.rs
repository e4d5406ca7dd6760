//! The `window` strategy (zrb). Work in progress.
