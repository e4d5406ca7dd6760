//! Provider validity passes. Work in progress.
