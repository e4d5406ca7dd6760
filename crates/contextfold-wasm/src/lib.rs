//! WebAssembly bindings of contextfold (filled in by the npm-package work).
