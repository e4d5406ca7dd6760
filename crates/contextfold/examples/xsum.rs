#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::print_stdout)]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let t = std::fs::read_to_string(&args[1]).unwrap();
    let target: usize = args[2].parse().unwrap();
    let s = contextfold::summarize::extractive::ExtractiveSummarizer { max_bytes: 400_000, max_line_chars: 600 };
    print!("{}", s.summarize_transcript(&t, target));
}
