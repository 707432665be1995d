//! Embeds every file of `assets/` (the page: HTML, ES modules, CSS) into the binary: writes
//! `$OUT_DIR/assets.rs`, a table of (file name, bytes) that `src/assets.rs` includes. A file
//! added to the folder is served without any other change.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| !n.starts_with('.'))
            .collect(),
        Err(e) => panic!("cannot list {}: {e}", dir.display()),
    };
    names.sort();
    let mut out =
        String::from("/// The page's files: (name, bytes), sorted by name.\npub static FILES: &[(&str, &[u8])] = &[\n");
    for name in &names {
        let path = dir.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        let _ = writeln!(out, "    ({name:?}, include_bytes!({:?})),", path.display().to_string());
    }
    out.push_str("];\n");
    let target = Path::new(&std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into())).join("assets.rs");
    if let Err(e) = std::fs::write(&target, out) {
        panic!("cannot write {}: {e}", target.display());
    }
}
